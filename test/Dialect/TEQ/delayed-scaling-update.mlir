// RUN: te-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @update(
// CHECK: teq.delayed_scaling_update %{{.*}}, %{{.*}} {amax_compute_algo = #teq.amax_compute_algo<most_recent>, fp8_dtype = f8E4M3FN, margin = 1 : i64} : tensor<3xf32>, tensor<16x3xf32>
func.func @update(%s: tensor<3xf32>, %h: tensor<16x3xf32>) -> (tensor<3xf32>, tensor<16x3xf32>) {
  %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = f8E4M3FN, margin = 1 : i64, amax_compute_algo = #teq.amax_compute_algo<most_recent>} : tensor<3xf32>, tensor<16x3xf32>
  return %s1, %h1 : tensor<3xf32>, tensor<16x3xf32>
}

// -----

// CHECK-LABEL: func.func @one_slot(
func.func @one_slot(%s: tensor<1xf32>, %h: tensor<1024xf32>) -> (tensor<1xf32>, tensor<1024xf32>) {
  %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = f8E5M2} : tensor<1xf32>, tensor<1024xf32>
  return %s1, %h1 : tensor<1xf32>, tensor<1024xf32>
}

// -----

// DelayedScaling's reduce_amax: row 0 is all-reduced (max) over the group
// before the update; a delayed-scaling quantize names the group its update
// reduces over (which lets its FP8 data be gathered).
// CHECK-LABEL: func.func @reduced(
// CHECK: teq.quantize %{{.*}} state(%{{.*}}, %{{.*}} : tensor<1xf32>, tensor<16xf32>) amax_reduction_group(%[[G:.*]]) :
// CHECK: teq.delayed_scaling_update %{{.*}}, %{{.*}} amax_reduction_group(%[[G]]) {fp8_dtype = f8E4M3FN} : tensor<1xf32>, tensor<16xf32>
func.func @reduced(%x: tensor<32x64xbf16>, %s: tensor<1xf32>, %h: tensor<16xf32>, %g: !teq.process_group) -> (!teq.proto<32x64xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<1xf32>, tensor<16xf32>) {
  %q, %h1 = teq.quantize %x state(%s, %h : tensor<1xf32>, tensor<16xf32>) amax_reduction_group(%g) : tensor<32x64xbf16> -> !teq.proto<32x64xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<16xf32>
  %s2, %h2 = teq.delayed_scaling_update %s, %h1 amax_reduction_group(%g) {fp8_dtype = f8E4M3FN} : tensor<1xf32>, tensor<16xf32>
  return %q, %s2, %h2 : !teq.proto<32x64xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>, tensor<1xf32>, tensor<16xf32>
}

// -----

func.func @slots_mismatch(%s: tensor<3xf32>, %h: tensor<16x2xf32>) {
  // expected-error @+1 {{amax history must be tensor<L x 3 x f32>}}
  %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = f8E4M3FN} : tensor<3xf32>, tensor<16x2xf32>
  return
}

// -----

func.func @bad_dtype(%s: tensor<1xf32>, %h: tensor<4xf32>) {
  // expected-error @+1 {{fp8_dtype must be f8E4M3FN or f8E5M2, got 'bf16'}}
  %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = bf16} : tensor<1xf32>, tensor<4xf32>
  return
}

// -----

func.func @bad_margin(%s: tensor<1xf32>, %h: tensor<4xf32>) {
  // expected-error @+1 {{margin must be in [-100, 100] (fp8_max * 2^-margin must stay a normal float32), got 127}}
  %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = f8E4M3FN, margin = 127 : i64} : tensor<1xf32>, tensor<4xf32>
  return
}

// -----

func.func @bad_scale(%s: tensor<2x2xf32>, %h: tensor<4xf32>) {
  // expected-error @+1 {{scale must be tensor<S x f32>}}
  %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = f8E4M3FN} : tensor<2x2xf32>, tensor<4xf32>
  return
}
