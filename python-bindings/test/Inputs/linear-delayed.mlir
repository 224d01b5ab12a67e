// A Linear training pair under DelayedScaling (amax history 16), its state
// as arguments: @fwd(x, w, scale[3], amax_history[16x3]) returns y, the
// saved (quantized) x and w and the updated forward amax history;
// @bwd(dy, saved x, saved w, scale[2], amax_history[16x2]) returns
// (dx, dw, updated backward amax history). Scales are TE's fp8_meta
// "scaling_fwd"/"scaling_bwd" rows (input, weight, output / grad_output,
// grad_input); the scale update itself is a separate step
// (teq.delayed_scaling_update). python-bindings tests.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fwd(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<16x3xf32>)
      -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>) {
    %y, %sx, %sw, %h1 = teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>)
        -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32> {
      %out, %a, %b, %hh = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>) updated_amax_history(tensor<16x3xf32>)
      teq.yield %out, %a, %b, %hh : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>
    }
    return %y, %sx, %sw, %h1 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x3xf32>
  }
  func.func @bwd(%dy: tensor<64x256xbf16>, %sx: tensor<64x128xbf16>, %sw: tensor<256x128xbf16>, %bs: tensor<2xf32>, %bh: tensor<16x2xf32>)
      -> (tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x2xf32>) {
    %dx, %dw, %bh1 = teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>) -> tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x2xf32> {
      %a, %b, %hh = teq.linear_backward %dy, %sx, %sw state(%bs, %bh : tensor<2xf32>, tensor<16x2xf32>) config(#teq.linear<name = "fc1">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<16x2xf32>)
      teq.yield %a, %b, %hh : tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x2xf32>
    }
    return %dx, %dw, %bh1 : tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<16x2xf32>
  }
}
