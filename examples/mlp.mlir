// TEQ example: a two-layer MLP, fc1 -> tanh -> fc2, forward and backward.
// The tanh runs in high precision between the quantized Linears.
//
//   te-opt examples/mlp.mlir --teq-frontend="target=sm_90 print-saved-memory=true"
//   te-opt examples/mlp.mlir --teq-frontend="target=sm_100 print-saved-memory=true"
//
//   x : [64, 128], w1 : [512, 128], w2 : [128, 512], dy : [64, 128].
//   Backward of the tanh is left to the caller: dh is the gradient of fc1's
//   output (here given as an argument).
module {
  // Float8CurrentScaling for the whole MLP.
  func.func @mlp(%x: tensor<64x128xbf16>, %w1: tensor<512x128xbf16>, %w2: tensor<128x512xbf16>,
                 %dy: tensor<64x128xbf16>, %dh: tensor<64x512xbf16>)
      -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>) {
    %y, %dx, %dw1, %dw2 = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16> {
      %h, %s1x, %s1w = teq.linear_forward %x, %w1 config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<512x128xbf16> -> tensor<64x512xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<512x128xbf16>)
      %a = math.tanh %h : tensor<64x512xbf16>
      %out, %s2x, %s2w = teq.linear_forward %a, %w2 config(#teq.linear<name = "fc2">)
          : tensor<64x512xbf16>, tensor<128x512xbf16> -> tensor<64x128xbf16>
            saved_input(tensor<64x512xbf16>) saved_weight(tensor<128x512xbf16>)
      %da, %g2 = teq.linear_backward %dy, %s2x, %s2w config(#teq.linear<name = "fc2">)
          : tensor<64x128xbf16>, tensor<64x512xbf16>, tensor<128x512xbf16>
            dgrad(tensor<64x512xbf16>) wgrad(tensor<128x512xbf16>)
      %gx, %g1 = teq.linear_backward %dh, %s1x, %s1w config(#teq.linear<name = "fc1">)
          : tensor<64x512xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<512x128xbf16>)
      teq.yield %out, %gx, %g1, %g2
          : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>
    }
    return %y, %dx, %dw1, %dw2
        : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>
  }

  // Nested recipes: the outer region is Float8CurrentScaling; fc2 runs in an
  // inner region with a custom recipe (E5M2 for grad_output, current-scaling
  // E4M3 otherwise).
  func.func @mlp_custom(%x: tensor<64x128xbf16>, %w1: tensor<512x128xbf16>, %w2: tensor<128x512xbf16>)
      -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x512xbf16>) {
    %y, %s1x, %s2x = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x512xbf16> {
      %h, %a1x = teq.linear_forward %x, %w1 config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<512x128xbf16> -> tensor<64x512xbf16>
            saved_input(tensor<64x128xbf16>)
      %a = math.tanh %h : tensor<64x512xbf16>
      %out, %a2x = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = grad_output> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>)
          -> tensor<64x128xbf16>, tensor<64x512xbf16> {
        %o, %sx = teq.linear_forward %a, %w2 config(#teq.linear<name = "fc2">)
            : tensor<64x512xbf16>, tensor<128x512xbf16> -> tensor<64x128xbf16>
              saved_input(tensor<64x512xbf16>)
        teq.yield %o, %sx : tensor<64x128xbf16>, tensor<64x512xbf16>
      }
      teq.yield %out, %a1x, %a2x : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x512xbf16>
    }
    return %y, %s1x, %s2x : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x512xbf16>
  }

  // Float8BlockScaling for the whole MLP (1x128 blocks for activations and
  // gradients, 128x128 for weights), forward and backward.
  func.func @mlp_block(%x: tensor<64x128xbf16>, %w1: tensor<512x128xbf16>, %w2: tensor<128x512xbf16>,
                       %dy: tensor<64x128xbf16>, %dh: tensor<64x512xbf16>)
      -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>) {
    %y, %dx, %dw1, %dw2 = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16> {
      %h, %s1x, %s1w = teq.linear_forward %x, %w1 config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<512x128xbf16> -> tensor<64x512xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<512x128xbf16>)
      %a = math.tanh %h : tensor<64x512xbf16>
      %out, %s2x, %s2w = teq.linear_forward %a, %w2 config(#teq.linear<name = "fc2">)
          : tensor<64x512xbf16>, tensor<128x512xbf16> -> tensor<64x128xbf16>
            saved_input(tensor<64x512xbf16>) saved_weight(tensor<128x512xbf16>)
      %da, %g2 = teq.linear_backward %dy, %s2x, %s2w config(#teq.linear<name = "fc2">)
          : tensor<64x128xbf16>, tensor<64x512xbf16>, tensor<128x512xbf16>
            dgrad(tensor<64x512xbf16>) wgrad(tensor<128x512xbf16>)
      %gx, %g1 = teq.linear_backward %dh, %s1x, %s1w config(#teq.linear<name = "fc1">)
          : tensor<64x512xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<512x128xbf16>)
      teq.yield %out, %gx, %g1, %g2
          : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>
    }
    return %y, %dx, %dw1, %dw2
        : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>
  }
}
