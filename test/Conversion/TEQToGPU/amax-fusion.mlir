// A current-scaling quantization of a tensor an elementwise kernel stores
// (an activation, its gradient) or of a norm's y (TE's FUSED_NORM_AMAX_FP8)
// takes its amax from that kernel
// (QuantizeFusion.h, TE's activation kernels writing the amax with their
// output): the kernel folds max|stored value| over its blocks (an atomic max
// of the float's pattern and a count of blocks done, device globals) and its
// last block writes [scale, scale_inv] into the quantization's scratch; the
// quantization launches only its cast, which reads the scale there and passes
// scale_inv on. Left alone: delayed scaling, an amax all-reduce, a tensor
// that is an argument, a second current-scaling quantization of the same
// tensor, and disabled-fusions=amax.
// RUN: split-file %s %t
// RUN: te-opt %t/fused.mlir --teq-decompose-activations --convert-teq-to-gpu | FileCheck %s --check-prefix=FUSED
// RUN: te-opt %t/fused.mlir --teq-decompose-activations --convert-teq-to-gpu="disabled-fusions=amax" | FileCheck %s --check-prefix=DISABLED
// RUN: te-opt %t/unfused.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=UNFUSED
// RUN: te-opt %t/norm.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=NORM

//--- fused.mlir
#cur = #teq.float8_current_scaling_quantizer<f8E4M3FN>
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @gelu_quantize(%h: tensor<128x256xbf16>) -> !teq.proto<128x256xbf16, #cur, rowwise|columnwise> {
    %a = teq.activation gelu %h : tensor<128x256xbf16> -> tensor<128x256xbf16>
    %q = teq.quantize %a : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #cur, rowwise|columnwise>
    return %q : !teq.proto<128x256xbf16, #cur, rowwise|columnwise>
  }
}

// The GELU kernel: its output, then the scale scratch; 8 warp slots.
// FUSED-LABEL: gpu.func @e0_fused10(
// FUSED-SAME: %{{[^:]*}}: memref<32768xbf16>, %{{[^:]*}}: memref<32768xbf16>, %[[SCALE:[^:]*]]: memref<2xf32>) workgroup(%{{[^:]*}} : memref<8xf32, #gpu.address_space<workgroup>>)
// FUSED: vector.store %[[OUT:[^,]*]], %arg1
// FUSED-NEXT: arith.extf %[[OUT]]
// FUSED: vector.reduction <maxnumf>
// FUSED: memref.atomic_rmw maxu
// FUSED: nvvm.memory.barrier <gpu>
// FUSED: %[[DONE:.*]] = memref.atomic_rmw addi
// FUSED: arith.cmpi eq, %[[DONE]], %c15_i32
// FUSED: memref.store %{{.*}}, %[[SCALE]][%{{.*}}] : memref<2xf32>
// FUSED: memref.store %{{.*}}, %[[SCALE]][%{{.*}}] : memref<2xf32>
// The cast reads the scale and passes scale_inv on.
// FUSED-LABEL: gpu.func @q1_cast(
// FUSED-SAME: %{{[^:]*}}: memref<32768xbf16>, %[[CS:[^:]*]]: memref<2xf32>, %{{[^:]*}}: memref<32768xi8>, %{{[^:]*}}: memref<32768xi8>, %[[INV:[^:]*]]: memref<1xf32>)
// FUSED: memref.load %[[CS]][%c1{{[_0-9]*}}] : memref<2xf32>
// FUSED-NEXT: memref.store %{{.*}}, %[[INV]]
// FUSED: memref.load %[[CS]][%c0{{[_0-9]*}}] : memref<2xf32>
// FUSED-NOT: gpu.func @q1_amax
// FUSED-LABEL: func.func @gelu_quantize(
// FUSED: %[[S:.*]] = memref.view %{{.*}} to memref<2xf32>
// FUSED: @teq_kernels::@e0_fused10 {{.*}}, %[[S]] : memref<2xf32>)
// FUSED-NOT: _amax
// FUSED: @teq_kernels::@q1_cast {{.*}}(%{{.*}} : memref<32768xbf16>, %[[S]] : memref<2xf32>,

// DISABLED-LABEL: func.func @gelu_quantize(
// DISABLED: @teq_kernels::@e0_fused10
// DISABLED: @teq_kernels::@q1_amax
// DISABLED: @teq_kernels::@q1_cast

//--- unfused.mlir
#cur = #teq.float8_current_scaling_quantizer<f8E4M3FN>
#red = #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>
#del = #teq.float8_quantizer<f8E4M3FN>
module attributes {teq.target = #teq.target<sm_90>} {
  // Delayed scaling: the cast records the amax with the stored scale.
  func.func @delayed(%h: tensor<128x256xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (!teq.proto<128x256xbf16, #del, rowwise>, tensor<16xf32>) {
    %a = math.tanh %h : tensor<128x256xbf16>
    %q, %u = teq.quantize %a state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #del, rowwise>, tensor<16xf32>
    return %q, %u : !teq.proto<128x256xbf16, #del, rowwise>, tensor<16xf32>
  }
  // An amax all-reduced over a group between the amax pass and the cast.
  func.func @reduced(%h: tensor<128x256xbf16>, %g: !teq.process_group) -> !teq.proto<128x256xbf16, #red, rowwise> {
    %a = math.tanh %h : tensor<128x256xbf16>
    %q = teq.quantize %a amax_reduction_group(%g) : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #red, rowwise>
    return %q : !teq.proto<128x256xbf16, #red, rowwise>
  }
  // An argument: no kernel produces it.
  func.func @argument(%h: tensor<128x256xbf16>) -> !teq.proto<128x256xbf16, #cur, rowwise> {
    %q = teq.quantize %h : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #cur, rowwise>
    return %q : !teq.proto<128x256xbf16, #cur, rowwise>
  }
  // Two quantizations of one tensor: the first takes the kernel's amax.
  func.func @twice(%h: tensor<128x256xbf16>) -> (!teq.proto<128x256xbf16, #cur, rowwise>, !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise>) {
    %a = math.tanh %h : tensor<128x256xbf16>
    %q = teq.quantize %a : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #cur, rowwise>
    %r = teq.quantize %a : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise>
    return %q, %r : !teq.proto<128x256xbf16, #cur, rowwise>, !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise>
  }
}

// UNFUSED-LABEL: func.func @delayed(
// UNFUSED: @teq_kernels::@e{{[0-9]+}}_tanh {{.*}} args(%{{[^:]*}} : memref<32768xbf16>, %{{[^:]*}} : memref<32768xbf16>)
// UNFUSED: _cast
// UNFUSED: _record
// UNFUSED-LABEL: func.func @reduced(
// UNFUSED: @teq_kernels::@e{{[0-9]+}}_tanh {{.*}} args(%{{[^:]*}} : memref<32768xbf16>, %{{[^:]*}} : memref<32768xbf16>)
// UNFUSED: _amax
// UNFUSED-LABEL: func.func @argument(
// UNFUSED: _amax
// UNFUSED-LABEL: func.func @twice(
// UNFUSED: @teq_kernels::@e{{[0-9]+}}_tanh {{.*}} memref<2xf32>)
// UNFUSED-NOT: _amax
// UNFUSED: @teq_kernels::@q{{[0-9]+}}_cast {{.*}} memref<2xf32>,
// UNFUSED: @teq_kernels::@q{{[0-9]+}}_amax
// UNFUSED: _cast

//--- norm.mlir
// A LayerNorm's y: one CTA a row (64 rows), each thread's max |y| as stored
// (bf16), the block's into the running max; the cast alone follows.
#cur = #teq.float8_current_scaling_quantizer<f8E4M3FN>
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @ln_quantize(%x: tensor<64x1024xbf16>, %g: tensor<1024xbf16>, %b: tensor<1024xbf16>) -> (!teq.proto<64x1024xbf16, #cur, rowwise>, tensor<64xf32>, tensor<64xf32>) {
    %y, %mean, %rstd = teq.layer_norm %x, %g, %b
        : (tensor<64x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
        -> (tensor<64x1024xbf16>, tensor<64xf32>, tensor<64xf32>)
    %q = teq.quantize %y : tensor<64x1024xbf16> -> !teq.proto<64x1024xbf16, #cur, rowwise>
    return %q, %mean, %rstd : !teq.proto<64x1024xbf16, #cur, rowwise>, tensor<64xf32>, tensor<64xf32>
  }
}

// NORM-LABEL: gpu.func @n0_layer_norm(
// NORM-SAME: %[[SCALE:[^:]*]]: memref<2xf32>) workgroup(
// NORM: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// NORM: vector.reduction <maxnumf>
// NORM: memref.atomic_rmw maxu
// NORM: %[[DONE:.*]] = memref.atomic_rmw addi
// NORM: arith.cmpi eq, %[[DONE]], %c63_i32
// NORM: memref.store %{{.*}}, %[[SCALE]]
// NORM-LABEL: func.func @ln_quantize(
// NORM: @teq_kernels::@n0_layer_norm
// NORM-NOT: _amax
// NORM: @teq_kernels::@q1_cast
