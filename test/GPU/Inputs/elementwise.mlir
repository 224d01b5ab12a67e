// Elementwise programs for te-run --check (test/GPU/elementwise.test): the
// fused elementwise kernels of convert-teq-to-gpu (ElementwiseFusion.h) on
// the GPU against te-run's float64 recomputation of every op, intermediates
// (held in registers, "in_registers" in the manifest) rounded to their
// dtypes as the kernels round them, and splat constants by value.
module attributes {teq.target = #teq.target<sm_90>} {
  // tanh's backward, one kernel: dh = da - (da * a) * a.
  func.func @tanh_backward(%da: tensor<256x512xbf16>, %a: tensor<256x512xbf16>) -> tensor<256x512xbf16> {
    %p = arith.mulf %da, %a : tensor<256x512xbf16>
    %q = arith.mulf %p, %a : tensor<256x512xbf16>
    %dh = arith.subf %da, %q : tensor<256x512xbf16>
    return %dh : tensor<256x512xbf16>
  }
  // GELU on bf16 tensors with bf16 splat constants, one kernel; the tanh is
  // also returned (stored by the same kernel).
  func.func @gelu_bf16(%h: tensor<256x512xbf16>) -> (tensor<256x512xbf16>, tensor<256x512xbf16>) {
    %half = arith.constant dense<0.5> : tensor<256x512xbf16>
    %one = arith.constant dense<1.0> : tensor<256x512xbf16>
    %k0 = arith.constant dense<0.7978845608> : tensor<256x512xbf16>
    %k1 = arith.constant dense<0.044715> : tensor<256x512xbf16>
    %h2 = arith.mulf %h, %h : tensor<256x512xbf16>
    %h3 = arith.mulf %h2, %h : tensor<256x512xbf16>
    %c = arith.mulf %k1, %h3 : tensor<256x512xbf16>
    %s = arith.addf %h, %c : tensor<256x512xbf16>
    %u = arith.mulf %k0, %s : tensor<256x512xbf16>
    %t = math.tanh %u : tensor<256x512xbf16>
    %t1 = arith.addf %one, %t : tensor<256x512xbf16>
    %ht = arith.mulf %h, %t1 : tensor<256x512xbf16>
    %a = arith.mulf %half, %ht : tensor<256x512xbf16>
    return %a, %t : tensor<256x512xbf16>, tensor<256x512xbf16>
  }
  // An element count no vector width divides (33 x 7 = 231: 224 elements
  // as vectors, 7 one at a time), f32 and f16 tensors, extf and truncf.
  func.func @odd_f32_f16(%x: tensor<33x7xf32>, %y: tensor<33x7xf16>) -> (tensor<33x7xf16>, tensor<33x7xf32>) {
    %two = arith.constant dense<2.0> : tensor<33x7xf32>
    %yf = arith.extf %y : tensor<33x7xf16> to tensor<33x7xf32>
    %m = arith.mulf %x, %yf : tensor<33x7xf32>
    %s = arith.addf %m, %two : tensor<33x7xf32>
    %e = math.tanh %s : tensor<33x7xf32>
    %n = arith.truncf %e : tensor<33x7xf32> to tensor<33x7xf16>
    %d = arith.divf %s, %two : tensor<33x7xf32>
    return %n, %d : tensor<33x7xf16>, tensor<33x7xf32>
  }
  // The MLP block with tanh: its tanh and its backward one kernel each.
  // 1 x (fc1 [128->512] -> tanh -> fc2 [512->128]), 256 tokens, forward + backward.
  func.func @mlp_tanh(%x: tensor<256x128xbf16>, %w1_0: tensor<512x128xbf16>, %w2_0: tensor<128x512xbf16>, %dy: tensor<256x128xbf16>)
      -> (tensor<256x128xbf16>, tensor<256x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>) {
    %r0, %r1, %r2, %r3 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<256x128xbf16>, tensor<256x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16> {
      %h0, %s1x0, %s1w0 = teq.linear_forward %x, %w1_0 config(#teq.linear<name = "fc1_0">)
          : tensor<256x128xbf16>, tensor<512x128xbf16> -> tensor<256x512xbf16> saved_input(tensor<256x128xbf16>) saved_weight(tensor<512x128xbf16>)
      %a0 = math.tanh %h0 : tensor<256x512xbf16>
      %o0, %s2x0, %s2w0 = teq.linear_forward %a0, %w2_0 config(#teq.linear<name = "fc2_0">)
          : tensor<256x512xbf16>, tensor<128x512xbf16> -> tensor<256x128xbf16> saved_input(tensor<256x512xbf16>) saved_weight(tensor<128x512xbf16>)
      %da0, %gw2_0 = teq.linear_backward %dy, %s2x0, %s2w0 config(#teq.linear<name = "fc2_0">)
          : tensor<256x128xbf16>, tensor<256x512xbf16>, tensor<128x512xbf16> dgrad(tensor<256x512xbf16>) wgrad(tensor<128x512xbf16>)
      %p0 = arith.mulf %da0, %a0 : tensor<256x512xbf16>
      %q0 = arith.mulf %p0, %a0 : tensor<256x512xbf16>
      %dh0 = arith.subf %da0, %q0 : tensor<256x512xbf16>
      %gx0, %gw1_0 = teq.linear_backward %dh0, %s1x0, %s1w0 config(#teq.linear<name = "fc1_0">)
          : tensor<256x512xbf16>, tensor<256x128xbf16>, tensor<512x128xbf16> dgrad(tensor<256x128xbf16>) wgrad(tensor<512x128xbf16>)
      teq.yield %o0, %gx0, %gw1_0, %gw2_0 : tensor<256x128xbf16>, tensor<256x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>
    }
    return %r0, %r1, %r2, %r3 : tensor<256x128xbf16>, tensor<256x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>
  }
  // The MLP block with GELU in f32 (bench/programs.py): one kernel each way,
  // the backward recomputing tanh from the pre-activation.
  // 1 x (fc1 [128->512] -> gelu -> fc2 [512->128]), 256 tokens, forward + backward.
  func.func @mlp_gelu(%x: tensor<256x128xbf16>, %w1_0: tensor<512x128xbf16>, %w2_0: tensor<128x512xbf16>, %dy: tensor<256x128xbf16>)
      -> (tensor<256x128xbf16>, tensor<256x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>) {
    %r0, %r1, %r2, %r3 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<256x128xbf16>, tensor<256x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16> {
      %h0, %s1x0, %s1w0 = teq.linear_forward %x, %w1_0 config(#teq.linear<name = "fc1_0">)
          : tensor<256x128xbf16>, tensor<512x128xbf16> -> tensor<256x512xbf16> saved_input(tensor<256x128xbf16>) saved_weight(tensor<512x128xbf16>)
      %g0_half = arith.constant dense<0.5> : tensor<256x512xf32>
      %g0_one = arith.constant dense<1.0> : tensor<256x512xf32>
      %g0_k0 = arith.constant dense<0.7978845608028654> : tensor<256x512xf32>
      %g0_k1 = arith.constant dense<0.044715> : tensor<256x512xf32>
      %g0_h = arith.extf %h0 : tensor<256x512xbf16> to tensor<256x512xf32>
      %g0_h2 = arith.mulf %g0_h, %g0_h : tensor<256x512xf32>
      %g0_h3 = arith.mulf %g0_h2, %g0_h : tensor<256x512xf32>
      %g0_c = arith.mulf %g0_k1, %g0_h3 : tensor<256x512xf32>
      %g0_s = arith.addf %g0_h, %g0_c : tensor<256x512xf32>
      %g0_u = arith.mulf %g0_k0, %g0_s : tensor<256x512xf32>
      %g0_t = math.tanh %g0_u : tensor<256x512xf32>
      %g0_t1 = arith.addf %g0_one, %g0_t : tensor<256x512xf32>
      %g0_ht = arith.mulf %g0_h, %g0_t1 : tensor<256x512xf32>
      %g0_a = arith.mulf %g0_half, %g0_ht : tensor<256x512xf32>
      %a0 = arith.truncf %g0_a : tensor<256x512xf32> to tensor<256x512xbf16>
      %o0, %s2x0, %s2w0 = teq.linear_forward %a0, %w2_0 config(#teq.linear<name = "fc2_0">)
          : tensor<256x512xbf16>, tensor<128x512xbf16> -> tensor<256x128xbf16> saved_input(tensor<256x512xbf16>) saved_weight(tensor<128x512xbf16>)
      %da0, %gw2_0 = teq.linear_backward %dy, %s2x0, %s2w0 config(#teq.linear<name = "fc2_0">)
          : tensor<256x128xbf16>, tensor<256x512xbf16>, tensor<128x512xbf16> dgrad(tensor<256x512xbf16>) wgrad(tensor<128x512xbf16>)
      %b0_k13 = arith.constant dense<0.134145> : tensor<256x512xf32>
      %b0_da = arith.extf %da0 : tensor<256x512xbf16> to tensor<256x512xf32>
      %b0_tt = arith.mulf %g0_t, %g0_t : tensor<256x512xf32>
      %b0_omt = arith.subf %g0_one, %b0_tt : tensor<256x512xf32>
      %b0_q = arith.mulf %b0_k13, %g0_h2 : tensor<256x512xf32>
      %b0_q1 = arith.addf %g0_one, %b0_q : tensor<256x512xf32>
      %b0_r = arith.mulf %g0_k0, %b0_q1 : tensor<256x512xf32>
      %b0_w = arith.mulf %b0_omt, %b0_r : tensor<256x512xf32>
      %b0_hw = arith.mulf %g0_h, %b0_w : tensor<256x512xf32>
      %b0_g = arith.addf %g0_t1, %b0_hw : tensor<256x512xf32>
      %b0_g2 = arith.mulf %g0_half, %b0_g : tensor<256x512xf32>
      %b0_dh = arith.mulf %b0_da, %b0_g2 : tensor<256x512xf32>
      %dh0 = arith.truncf %b0_dh : tensor<256x512xf32> to tensor<256x512xbf16>
      %gx0, %gw1_0 = teq.linear_backward %dh0, %s1x0, %s1w0 config(#teq.linear<name = "fc1_0">)
          : tensor<256x512xbf16>, tensor<256x128xbf16>, tensor<512x128xbf16> dgrad(tensor<256x128xbf16>) wgrad(tensor<512x128xbf16>)
      teq.yield %o0, %gx0, %gw1_0, %gw2_0 : tensor<256x128xbf16>, tensor<256x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>
    }
    return %r0, %r1, %r2, %r3 : tensor<256x128xbf16>, tensor<256x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>
  }
  // Stored splat constants: filled by a kernel of their own where they are
  // returned or quantized (the quantize reads the filled buffer), a scalar
  // for the product; the folded product of two constants is one too.
  func.func @stored_constants(%x: tensor<33x7xbf16>) -> (tensor<33x7xbf16>, tensor<33x7xbf16>, tensor<256x128xbf16>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>) {
    %c = arith.constant dense<1.5> : tensor<33x7xbf16>
    %y = arith.mulf %x, %c : tensor<33x7xbf16>
    %a = arith.constant dense<2.0> : tensor<256x128xbf16>
    %b = arith.constant dense<-3.0> : tensor<256x128xbf16>
    %p = arith.mulf %a, %b : tensor<256x128xbf16>
    %q = teq.quantize %a : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %c, %y, %p, %q : tensor<33x7xbf16>, tensor<33x7xbf16>, tensor<256x128xbf16>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
}
