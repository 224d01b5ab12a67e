// te-compile: every --emit stage of a current-scaling quantization.
// RUN: te-compile %s --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: te-compile %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: te-compile %s --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: te-compile %s -o %t.so && nm -D %t.so | FileCheck %s --check-prefix=LIB
// RUN: te-compile %s --target=sm_90 --emit=obj -o %t.o && test -s %t.o

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @quantize(%x: tensor<128x256xbf16>) -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  // Above 2^22 elements the amax pass's last block computes the scale;
  // below, the cast computes it from the amax partials (one launch fewer).
  func.func @large(%x: tensor<4096x2048xbf16>) -> !teq.proto<4096x2048xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {
    %q = teq.quantize %x : tensor<4096x2048xbf16> -> !teq.proto<4096x2048xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %q : !teq.proto<4096x2048xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
}

// MLIR: gpu.module @teq_kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">]
// MLIR-DAG: gpu.func @q0_amax(
// MLIR-DAG: gpu.func @q0_cast(%{{.*}}: memref<32768xbf16>, %{{.*}}: memref<32768xi8>, %{{.*}}: memref<32768xi8>, %{{.*}}: memref<1xf32>)
// MLIR-DAG: gpu.func @q1_amax(
// MLIR-DAG: gpu.func @q1_cast(
// MLIR-NOT: gpu.func @q{{[01]}}_scale(
// MLIR-LABEL: func.func @quantize(
// MLIR-SAME: memref<32768xbf16>, %{{.*}}: memref<32768xi8>, %{{.*}}: memref<32768xi8>, %{{.*}}: memref<1xf32>) attributes {teq.entry}
// MLIR: gpu.launch_func async {{.*}} @teq_kernels::@q0_amax blocks in
// MLIR-NOT: q0_scale
// MLIR: gpu.launch_func async {{.*}} @teq_kernels::@q0_cast
// MLIR-LABEL: func.func @large(
// MLIR: gpu.launch_func async {{.*}} @teq_kernels::@q1_amax blocks in
// MLIR-NOT: q1_scale
// MLIR: gpu.launch_func async {{.*}} @teq_kernels::@q1_cast

// The amax reads 16-byte vectors; the scale divides with IEEE rounding; the
// cast converts pairs with the hardware RNE + satfinite instruction and
// stores 16-byte rows of the data and of the transposed copy.
// PTX: .target sm_90
// PTX-LABEL: .visible .entry q0_cast(
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX: st.global.v4.b32
// PTX-LABEL: .visible .entry q0_amax(
// PTX: ld.global.v4.b32
// PTX: shfl.sync.bfly.b32
// PTX-LABEL: .visible .entry q1_amax(
// PTX: griddepcontrol.launch_dependents
// PTX: atom.global.max.u32
// PTX: div.rn.f32

// LLVM: @teq_manifest_text = internal constant
// LLVM-SAME: \22format\22:\22teq-artifact\22
// LLVM: define void @teq_entry_quantize(ptr
// LLVM: define ptr @teq_artifact_manifest()

// LIB-DAG: T teq_artifact_manifest
// LIB-DAG: T teq_entry_quantize
// LIB-DAG: U mgpuLaunchKernel
