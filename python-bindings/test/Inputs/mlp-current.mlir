// A two-Linear MLP (fc1 -> tanh -> fc2) as a forward/backward function pair
// under Float8CurrentScaling, the form te-compile compiles a training step
// into: @mlp_fwd returns the output and the tensors backward reads (the
// saved inputs and weights become quantized !teq.proto results, columnwise,
// after --teq-infer-prototypes; the tanh output stays bf16 for tanh's
// derivative); @mlp_bwd takes the output gradient and those tensors and
// returns (dx, dw1, dw2). python-bindings/test/test_runtime*.py.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @mlp_fwd(%x: tensor<64x128xbf16>, %w1: tensor<256x128xbf16>, %w2: tensor<128x256xbf16>)
      -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x256xbf16>,
          tensor<64x256xbf16>, tensor<128x256xbf16>) {
    %y, %s1x, %s1w, %act, %s2x, %s2w = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x256xbf16>,
           tensor<64x256xbf16>, tensor<128x256xbf16> {
      %h, %a1, %b1 = teq.linear_forward %x, %w1 config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %a = math.tanh %h : tensor<64x256xbf16>
      %out, %a2, %b2 = teq.linear_forward %a, %w2 config(#teq.linear<name = "fc2">)
          : tensor<64x256xbf16>, tensor<128x256xbf16> -> tensor<64x128xbf16>
            saved_input(tensor<64x256xbf16>) saved_weight(tensor<128x256xbf16>)
      teq.yield %out, %a1, %b1, %a, %a2, %b2
          : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x256xbf16>,
            tensor<64x256xbf16>, tensor<128x256xbf16>
    }
    return %y, %s1x, %s1w, %act, %s2x, %s2w
        : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<64x256xbf16>,
          tensor<64x256xbf16>, tensor<128x256xbf16>
  }
  func.func @mlp_bwd(%dy: tensor<64x128xbf16>, %s1x: tensor<64x128xbf16>, %s1w: tensor<256x128xbf16>,
                     %act: tensor<64x256xbf16>, %s2x: tensor<64x256xbf16>, %s2w: tensor<128x256xbf16>)
      -> (tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16>) {
    %dx, %dw1, %dw2 = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16> {
      %da, %g2 = teq.linear_backward %dy, %s2x, %s2w config(#teq.linear<name = "fc2">)
          : tensor<64x128xbf16>, tensor<64x256xbf16>, tensor<128x256xbf16>
            dgrad(tensor<64x256xbf16>) wgrad(tensor<128x256xbf16>)
      // dh = da * tanh'(h) = da * (1 - act^2) = da - da * act^2
      %sq = arith.mulf %act, %act : tensor<64x256xbf16>
      %t = arith.mulf %da, %sq : tensor<64x256xbf16>
      %dh = arith.subf %da, %t : tensor<64x256xbf16>
      %gx, %g1 = teq.linear_backward %dh, %s1x, %s1w config(#teq.linear<name = "fc1">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %gx, %g1, %g2 : tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16>
    }
    return %dx, %dw1, %dw2 : tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16>
  }
}
