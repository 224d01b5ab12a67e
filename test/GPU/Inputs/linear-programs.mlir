// Whole Linear programs on the GPU (te-run --check, test/GPU/linear-programs.test):
// quantize kernels + cuBLASLt GEMMs + bias/dbias + temporaries in one entry.
// x : [M, K], w : [N, K], b : [N], dy : [M, N]; M = 256, K = 512, N = 1024
// unless the name says otherwise.
module attributes {teq.target = #teq.target<sm_90>} {
  // Float8CurrentScaling, forward and backward with a bias: fprop with the
  // BIAS epilogue (fast accumulation), dgrad/wgrad split accumulation, dbias
  // from the unquantized dy (bias_grad).
  func.func @current_bias(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %b: tensor<1024xbf16>, %dy: tensor<256x1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<1024xbf16>) config(#teq.linear<bias = true, name = "fc">)
          : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
            saved_input(tensor<256x512xbf16>) saved_weight(tensor<1024x512xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sx, %sw config(#teq.linear<bias = true, name = "fc">)
          : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
            dgrad(tensor<256x512xbf16>) wgrad(tensor<1024x512xbf16>) dbias(tensor<1024xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
    }
    return %y, %dx, %dw, %db : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
  }

  // Float8BlockScaling (1x128 activations/gradients, 128x128 weights): the
  // 1Dx2D, 1Dx1D scale modes of cuBLASLt on Hopper.
  func.func @block_bias(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %b: tensor<1024xbf16>, %dy: tensor<256x1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<1024xbf16>) config(#teq.linear<bias = true, name = "fc">)
          : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
            saved_input(tensor<256x512xbf16>) saved_weight(tensor<1024x512xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sx, %sw config(#teq.linear<bias = true, name = "fc">)
          : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
            dgrad(tensor<256x512xbf16>) wgrad(tensor<1024x512xbf16>) dbias(tensor<1024xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
    }
    return %y, %dx, %dw, %db : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
  }

  // Autocast disabled: bf16 GEMMs; dbias through the wgrad GEMM's BGRADB
  // epilogue.
  func.func @high_precision_bias(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %b: tensor<1024xbf16>, %dy: tensor<256x1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>) {
    %y, %dx, %dw, %db = teq.autocast enabled(false)
        -> tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<1024xbf16>) config(#teq.linear<bias = true, name = "fc">)
          : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
            saved_input(tensor<256x512xbf16>) saved_weight(tensor<1024x512xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sx, %sw config(#teq.linear<bias = true, name = "fc">)
          : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
            dgrad(tensor<256x512xbf16>) wgrad(tensor<1024x512xbf16>) dbias(tensor<1024xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
    }
    return %y, %dx, %dw, %db : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
  }

  // fuse_wgrad_accumulation: wgrad accumulates into the fp32 main_grad
  // (beta = 1); requires_dgrad = false drops the dgrad GEMM.
  func.func @current_main_grad_no_dgrad(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %dy: tensor<256x1024xbf16>, %mg: tensor<1024x512xf32>)
      -> (tensor<256x1024xbf16>, tensor<1024x512xf32>) {
    %y, %dw = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<256x1024xbf16>, tensor<1024x512xf32> {
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<fuse_wgrad_accumulation = true, requires_dgrad = false, name = "fc">)
          : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
            saved_input(tensor<256x512xbf16>) saved_weight(tensor<1024x512xbf16>)
      %gw = teq.linear_backward %dy, %sx, %sw main_grad(%mg : tensor<1024x512xf32>) config(#teq.linear<fuse_wgrad_accumulation = true, requires_dgrad = false, name = "fc">)
          : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
            wgrad(tensor<1024x512xf32>)
      teq.yield %out, %gw : tensor<256x1024xbf16>, tensor<1024x512xf32>
    }
    return %y, %dw : tensor<256x1024xbf16>, tensor<1024x512xf32>
  }

  // requires_wgrad = false: dgrad only.
  func.func @current_no_wgrad(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %dy: tensor<256x1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<256x512xbf16>) {
    %y, %dx = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<256x1024xbf16>, tensor<256x512xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<requires_wgrad = false, name = "fc">)
          : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
            saved_input(tensor<256x512xbf16>) saved_weight(tensor<1024x512xbf16>)
      %gx = teq.linear_backward %dy, %sx, %sw config(#teq.linear<requires_wgrad = false, name = "fc">)
          : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
            dgrad(tensor<256x512xbf16>)
      teq.yield %out, %gx : tensor<256x1024xbf16>, tensor<256x512xbf16>
    }
    return %y, %dx : tensor<256x1024xbf16>, tensor<256x512xbf16>
  }

  // A larger forward (M = 2048, K = 1024, N = 4096) with f32 activations
  // (the GEMM writes f32).
  func.func @current_fwd_f32(%x: tensor<2048x1024xf32>, %w: tensor<4096x1024xf32>) -> tensor<2048x4096xf32> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<2048x4096xf32> {
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<2048x1024xf32>, tensor<4096x1024xf32> -> tensor<2048x4096xf32>
            saved_input(tensor<2048x1024xf32>) saved_weight(tensor<4096x1024xf32>)
      teq.yield %out : tensor<2048x4096xf32>
    }
    return %y : tensor<2048x4096xf32>
  }
  // f32 activations with a bias, forward and backward: cuBLASLt's FP8 GEMMs
  // take no f32 bias, so the bias reaches the fprop epilogue cast to bf16 (as
  // TE casts it; teq-legalize-gemm-operands); dbias in f32.
  func.func @current_f32_bias(%x: tensor<256x512xf32>, %w: tensor<1024x512xf32>, %b: tensor<1024xf32>, %dy: tensor<256x1024xf32>)
      -> (tensor<256x1024xf32>, tensor<256x512xf32>, tensor<1024x512xf32>, tensor<1024xf32>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<256x1024xf32>, tensor<256x512xf32>, tensor<1024x512xf32>, tensor<1024xf32> {
      %out, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<1024xf32>) config(#teq.linear<bias = true, name = "fc">)
          : tensor<256x512xf32>, tensor<1024x512xf32> -> tensor<256x1024xf32>
            saved_input(tensor<256x512xf32>) saved_weight(tensor<1024x512xf32>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sx, %sw config(#teq.linear<bias = true, name = "fc">)
          : tensor<256x1024xf32>, tensor<256x512xf32>, tensor<1024x512xf32>
            dgrad(tensor<256x512xf32>) wgrad(tensor<1024x512xf32>) dbias(tensor<1024xf32>)
      teq.yield %out, %gx, %gw, %gb : tensor<256x1024xf32>, tensor<256x512xf32>, tensor<1024x512xf32>, tensor<1024xf32>
    }
    return %y, %dx, %dw, %db : tensor<256x1024xf32>, tensor<256x512xf32>, tensor<1024x512xf32>, tensor<1024xf32>
  }

  // Float8CurrentScaling with backward_override = high_precision: FP8 fprop
  // (rowwise copies only), then bf16 dgrad and wgrad on the original x and w
  // with the unquantized dy, dbias from the BGRADB epilogue.
  func.func @current_high_precision_backward(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %b: tensor<1024xbf16>, %dy: tensor<256x1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_current_scaling<backward_override = high_precision>)
        -> tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<1024xbf16>) config(#teq.linear<bias = true, name = "fc">)
          : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
            saved_input(tensor<256x512xbf16>) saved_weight(tensor<1024x512xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sx, %sw config(#teq.linear<bias = true, name = "fc">)
          : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
            dgrad(tensor<256x512xbf16>) wgrad(tensor<1024x512xbf16>) dbias(tensor<1024xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
    }
    return %y, %dx, %dw, %db : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
  }

  // backward_override = dequantized: bf16 dgrad and wgrad on the forward's
  // rowwise FP8 copies of w and x dequantized (teq.dequantize), dy
  // unquantized.
  func.func @current_dequantized_backward(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %b: tensor<1024xbf16>, %dy: tensor<256x1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_current_scaling<backward_override = dequantized>)
        -> tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<1024xbf16>) config(#teq.linear<bias = true, name = "fc">)
          : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
            saved_input(tensor<256x512xbf16>) saved_weight(tensor<1024x512xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sx, %sw config(#teq.linear<bias = true, name = "fc">)
          : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
            dgrad(tensor<256x512xbf16>) wgrad(tensor<1024x512xbf16>) dbias(tensor<1024xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
    }
    return %y, %dx, %dw, %db : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>
  }

  // DelayedScaling (history 16), two training steps in one entry: step 1
  // quantizes with the stored scales and records amaxes; the update step
  // rolls the histories and computes new scales; step 2 runs with them.
  // Every state tensor out of it is checked bit for bit.
  func.func @delayed_two_steps(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %dy: tensor<256x1024xbf16>,
                               %s: tensor<3xf32>, %h: tensor<16x3xf32>, %bs: tensor<2xf32>, %bh: tensor<16x2xf32>)
      -> (tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>,
          tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>,
          tensor<3xf32>, tensor<16x3xf32>, tensor<2xf32>, tensor<16x2xf32>) {
    %y1, %dx1, %dw1, %h1, %bh1 = teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>)
        -> tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<16x3xf32>, tensor<16x2xf32> {
      %out, %sx, %sw, %hh = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<name = "fc">)
          : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
            saved_input(tensor<256x512xbf16>) saved_weight(tensor<1024x512xbf16>) updated_amax_history(tensor<16x3xf32>)
      %gx, %gw, %bhh = teq.linear_backward %dy, %sx, %sw state(%bs, %bh : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<name = "fc">)
          : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
            dgrad(tensor<256x512xbf16>) wgrad(tensor<1024x512xbf16>) updated_amax_history(tensor<16x2xf32>)
      teq.yield %out, %gx, %gw, %hh, %bhh : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<16x3xf32>, tensor<16x2xf32>
    }
    %s2, %h2 = teq.delayed_scaling_update %s, %h1 {fp8_dtype = f8E4M3FN, margin = 0 : i64, amax_compute_algo = #teq.amax_compute_algo<max>} : tensor<3xf32>, tensor<16x3xf32>
    %bs2, %bh2 = teq.delayed_scaling_update %bs, %bh1 {fp8_dtype = f8E5M2, margin = 0 : i64, amax_compute_algo = #teq.amax_compute_algo<max>} : tensor<2xf32>, tensor<16x2xf32>
    %y2, %dx2, %dw2, %h3, %bh3 = teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>)
        -> tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<16x3xf32>, tensor<16x2xf32> {
      %out, %sx, %sw, %hh = teq.linear_forward %x, %w state(%s2, %h2 : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<name = "fc">)
          : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
            saved_input(tensor<256x512xbf16>) saved_weight(tensor<1024x512xbf16>) updated_amax_history(tensor<16x3xf32>)
      %gx, %gw, %bhh = teq.linear_backward %dy, %sx, %sw state(%bs2, %bh2 : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<name = "fc">)
          : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>
            dgrad(tensor<256x512xbf16>) wgrad(tensor<1024x512xbf16>) updated_amax_history(tensor<16x2xf32>)
      teq.yield %out, %gx, %gw, %hh, %bhh : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<16x3xf32>, tensor<16x2xf32>
    }
    return %y1, %dx1, %dw1, %y2, %dx2, %dw2, %s2, %h3, %bs2, %bh3
        : tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>,
          tensor<256x1024xbf16>, tensor<256x512xbf16>, tensor<1024x512xbf16>,
          tensor<3xf32>, tensor<16x3xf32>, tensor<2xf32>, tensor<16x2xf32>
  }
  // A 3-D activation [batch, sequence, hidden] (flattened to [512, 512] for
  // the GEMMs as TE does), f16 activations and weights.
  func.func @current_3d_f16(%x: tensor<4x128x512xf16>, %w: tensor<768x512xf16>, %dy: tensor<4x128x768xf16>)
      -> (tensor<4x128x768xf16>, tensor<4x128x512xf16>, tensor<768x512xf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<4x128x768xf16>, tensor<4x128x512xf16>, tensor<768x512xf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<4x128x512xf16>, tensor<768x512xf16> -> tensor<4x128x768xf16>
            saved_input(tensor<4x128x512xf16>) saved_weight(tensor<768x512xf16>)
      %gx, %gw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc">)
          : tensor<4x128x768xf16>, tensor<4x128x512xf16>, tensor<768x512xf16>
            dgrad(tensor<4x128x512xf16>) wgrad(tensor<768x512xf16>)
      teq.yield %out, %gx, %gw : tensor<4x128x768xf16>, tensor<4x128x512xf16>, tensor<768x512xf16>
    }
    return %y, %dx, %dw : tensor<4x128x768xf16>, tensor<4x128x512xf16>, tensor<768x512xf16>
  }
}
