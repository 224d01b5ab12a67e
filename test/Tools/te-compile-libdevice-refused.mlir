// An op whose GPU code would still call CUDA's libdevice (convert-gpu-to-nvvm
// makes calls of the math it has no instruction for) is refused where it
// stands, whether or not the toolkit is installed: TEQ's kernels call
// nothing (te-compile-no-libdevice.mlir), and libdevice would also bring
// approximations such as sqrt.approx.f32.
// RUN: split-file %s %t
// RUN: not te-compile %t/log.mlir --emit=ptx 2>&1 | FileCheck %s --check-prefix=LOG
// LOG: log.mlir:3:10: error: this op's GPU code would call '__nv_logf' (CUDA libdevice), which TEQ's kernels never do: the op has no toolkit-free, exact GPU lowering yet
// RUN: not te-compile %t/sqrt.mlir -o %t/sqrt.so 2>&1 | FileCheck %s --check-prefix=SQRT
// SQRT: sqrt.mlir:3:10: error: this op's GPU code would call '__nv_sqrtf'
// RUN: not test -e %t/sqrt.so
//--- log.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%x: tensor<1024xbf16>) -> tensor<1024xbf16> {
    %e = math.log %x : tensor<1024xbf16>
    return %e : tensor<1024xbf16>
  }
}
//--- sqrt.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
    %e = math.sqrt %x : tensor<1024xf32>
    return %e : tensor<1024xf32>
  }
}
