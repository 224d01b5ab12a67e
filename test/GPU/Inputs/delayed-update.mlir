// The delayed-scaling update step (te-semantics.md §5.2) on the GPU, alone
// (several slots, both algorithms, margins, one-slot and short histories)
// and chained over three training steps: quantize with the stored scale
// (recording the amax), update, quantize again with the new scale, ...
// te-run --check verifies each step from the previous step's GPU result.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @update_3x1024_max_m0_f8E4M3FN(%s: tensor<3xf32>, %h: tensor<1024x3xf32>) -> (tensor<3xf32>, tensor<1024x3xf32>) {
    %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = f8E4M3FN, margin = 0 : i64, amax_compute_algo = #teq.amax_compute_algo<max>} : tensor<3xf32>, tensor<1024x3xf32>
    return %s1, %h1 : tensor<3xf32>, tensor<1024x3xf32>
  }
  func.func @update_3x16_most_recent_m2_f8E4M3FN(%s: tensor<3xf32>, %h: tensor<16x3xf32>) -> (tensor<3xf32>, tensor<16x3xf32>) {
    %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = f8E4M3FN, margin = 2 : i64, amax_compute_algo = #teq.amax_compute_algo<most_recent>} : tensor<3xf32>, tensor<16x3xf32>
    return %s1, %h1 : tensor<3xf32>, tensor<16x3xf32>
  }
  func.func @update_2x31_max_m2_f8E5M2(%s: tensor<2xf32>, %h: tensor<31x2xf32>) -> (tensor<2xf32>, tensor<31x2xf32>) {
    %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = f8E5M2, margin = 2 : i64, amax_compute_algo = #teq.amax_compute_algo<max>} : tensor<2xf32>, tensor<31x2xf32>
    return %s1, %h1 : tensor<2xf32>, tensor<31x2xf32>
  }
  // TE checks no margin: a negative one scales up by 2^-margin.
  func.func @update_3x16_max_mneg3_f8E4M3FN(%s: tensor<3xf32>, %h: tensor<16x3xf32>) -> (tensor<3xf32>, tensor<16x3xf32>) {
    %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = f8E4M3FN, margin = -3 : i64, amax_compute_algo = #teq.amax_compute_algo<max>} : tensor<3xf32>, tensor<16x3xf32>
    return %s1, %h1 : tensor<3xf32>, tensor<16x3xf32>
  }
  func.func @update_1x1_max_m0_f8E4M3FN(%s: tensor<1xf32>, %h: tensor<1x1xf32>) -> (tensor<1xf32>, tensor<1x1xf32>) {
    %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = f8E4M3FN, margin = 0 : i64, amax_compute_algo = #teq.amax_compute_algo<max>} : tensor<1xf32>, tensor<1x1xf32>
    return %s1, %h1 : tensor<1xf32>, tensor<1x1xf32>
  }
  func.func @update_2x1024_most_recent_m0_f8E5M2(%s: tensor<2xf32>, %h: tensor<1024x2xf32>) -> (tensor<2xf32>, tensor<1024x2xf32>) {
    %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = f8E5M2, margin = 0 : i64, amax_compute_algo = #teq.amax_compute_algo<most_recent>} : tensor<2xf32>, tensor<1024x2xf32>
    return %s1, %h1 : tensor<2xf32>, tensor<1024x2xf32>
  }
  func.func @three_steps(%x0: tensor<256x512xbf16>, %x1: tensor<256x512xbf16>, %x2: tensor<256x512xbf16>, %scale: tensor<1xf32>, %hist: tensor<16xf32>) -> (!teq.proto<256x512xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>, tensor<1xf32>, tensor<16xf32>, !teq.proto<256x512xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>, tensor<1xf32>, tensor<16xf32>, !teq.proto<256x512xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>, tensor<1xf32>, tensor<16xf32>) {
    %q0, %r0 = teq.quantize %x0 state(%scale, %hist : tensor<1xf32>, tensor<16xf32>) : tensor<256x512xbf16> -> !teq.proto<256x512xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
    %s0, %h0 = teq.delayed_scaling_update %scale, %r0 {fp8_dtype = f8E4M3FN} : tensor<1xf32>, tensor<16xf32>
    %q1, %r1 = teq.quantize %x1 state(%s0, %h0 : tensor<1xf32>, tensor<16xf32>) : tensor<256x512xbf16> -> !teq.proto<256x512xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
    %s1, %h1 = teq.delayed_scaling_update %s0, %r1 {fp8_dtype = f8E4M3FN} : tensor<1xf32>, tensor<16xf32>
    %q2, %r2 = teq.quantize %x2 state(%s1, %h1 : tensor<1xf32>, tensor<16xf32>) : tensor<256x512xbf16> -> !teq.proto<256x512xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>
    %s2, %h2 = teq.delayed_scaling_update %s1, %r2 {fp8_dtype = f8E4M3FN} : tensor<1xf32>, tensor<16xf32>
    return %q0, %r0, %s0, %h0, %q1, %r1, %s1, %h1, %q2, %r2, %s2, %h2 : !teq.proto<256x512xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>, tensor<1xf32>, tensor<16xf32>, !teq.proto<256x512xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>, tensor<1xf32>, tensor<16xf32>, !teq.proto<256x512xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<16xf32>, tensor<1xf32>, tensor<16xf32>
  }
}
