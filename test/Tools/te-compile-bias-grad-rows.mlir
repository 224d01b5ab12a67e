// Found by the fuzzer (test/Fuzz/teq-fuzz.py): te-compile died with SIGFPE
// (a division by zero sizing the bias-gradient kernels) on a teq.bias_grad
// whose leading dimension is dynamic or 0. Entry values need static,
// non-empty shapes: convert-teq-to-gpu says so before sizing anything.
// RUN: split-file %s %t
// RUN: not te-compile %t/dynamic.mlir --emit=mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not te-compile %t/zero.mlir --emit=mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// DYNAMIC: error: entry values need static shapes (buffers are planned at compile time), got 'tensor<?x64xbf16>'
// ZERO: error: empty tensors have no GPU lowering, got 'tensor<0x64xbf16>'

//--- dynamic.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @g(%x: tensor<?x64xbf16>) -> tensor<64xbf16> {
    %d = teq.bias_grad %x : tensor<?x64xbf16> -> tensor<64xbf16>
    return %d : tensor<64xbf16>
  }
}

//--- zero.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @g(%x: tensor<0x64xbf16>) -> tensor<64xbf16> {
    %d = teq.bias_grad %x : tensor<0x64xbf16> -> tensor<64xbf16>
    return %d : tensor<64xbf16>
  }
}
