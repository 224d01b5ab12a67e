// Linear training pairs under Float8CurrentScaling (python-bindings tests):
// @fwd/@bwd is te-compile's function-pair form: @fwd(x, w) returns y and the
// tensors backward reads (after --teq-infer-prototypes: x and w quantized,
// columnwise, as !teq.proto results); @bwd(dy, saved x, saved w) returns
// (dx, dw). @fwd_bias/@bwd_main_grad add a bias (dbias from dy) and
// fuse_wgrad_accumulation: the wgrad GEMM accumulates into the fp32
// main_grad, passed in and returned updated.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fwd(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
  func.func @bwd(%dy: tensor<64x256xbf16>, %sx: tensor<64x128xbf16>, %sw: tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<256x128xbf16> {
      %a, %b = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %a, %b : tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }

  func.func @fwd_bias(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %bias: tensor<256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w bias(%bias : tensor<256xbf16>) config(#teq.linear<bias = true, fuse_wgrad_accumulation = true, name = "fc2">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
  func.func @bwd_main_grad(%dy: tensor<64x256xbf16>, %sx: tensor<64x128xbf16>, %sw: tensor<256x128xbf16>, %mg: tensor<256x128xf32>)
      -> (tensor<64x128xbf16>, tensor<256x128xf32>, tensor<256xbf16>) {
    %dx, %dw, %db = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<256x128xf32>, tensor<256xbf16> {
      %a, %b, %c = teq.linear_backward %dy, %sx, %sw main_grad(%mg : tensor<256x128xf32>) config(#teq.linear<bias = true, fuse_wgrad_accumulation = true, name = "fc2">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xf32>) dbias(tensor<256xbf16>)
      teq.yield %a, %b, %c : tensor<64x128xbf16>, tensor<256x128xf32>, tensor<256xbf16>
    }
    return %dx, %dw, %db : tensor<64x128xbf16>, tensor<256x128xf32>, tensor<256xbf16>
  }
}
