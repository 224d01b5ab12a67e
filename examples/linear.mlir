// TEQ example: one Linear (TE's `te.Linear(128, 256)`), forward and backward.
//
// No #teq.target: the GPU is chosen on the command line.
//   te-opt examples/linear.mlir --teq-frontend="target=sm_90 print-saved-memory=true"
//   te-opt examples/linear.mlir --teq-frontend="target=sm_100 print-saved-memory=true"
//
//   x : [64, 128] activation, w : [256, 128] weight, dy : [64, 256] output grad.
module {
  // Float8CurrentScaling: per-tensor FP8 (E4M3 forward, E5M2 gradients);
  // runs on Hopper and Blackwell.
  func.func @linear(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>)
      -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc1">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }

  // Float8BlockScaling (defaults: E4M3, power-of-two scales, 1x128 input
  // blocks, 128x128 weight blocks); runs on Hopper and, emulated with
  // MXFP8, on Blackwell.
  func.func @linear_block(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>)
      -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc1">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }

  // Nested recipes: the outer region is Float8BlockScaling; fc1's forward
  // runs in an inner region under a custom recipe (TE's qfactory as rules:
  // per-tensor current scaling, E5M2 for grad_output, E4M3 otherwise). Its
  // backward sits in the outer region but still runs under the custom recipe:
  // TE captures the forward's recipe for backward.
  func.func @linear_custom(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>)
      -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %saved_x, %saved_w = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = grad_output> -> #teq.float8_current_scaling_quantizer<f8E5M2>, <> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>)
          -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
        %o, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">)
            : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
              saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
        teq.yield %o, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
      }
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w config(#teq.linear<name = "fc1">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}
