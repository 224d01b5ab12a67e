// A high-precision Linear pair (autocast disabled): @fwd's saved tensors are
// its own arguments x and w, so --teq-dedupe-saved-tensors drops them from
// its results (teq.saved_from_args) and @bwd takes the forward's x and w:
// the artifact has fwd(x, w) -> y and bwd(dy, x, w) -> (dx, dw), which a
// training pair maps with explicit roles (backward_args = grad_output,
// input, weight). python-bindings tests.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fwd(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast enabled(false) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
  func.func @bwd(%dy: tensor<64x256xbf16>, %sx: tensor<64x128xbf16>, %sw: tensor<256x128xbf16>) -> (tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %dx, %dw = teq.autocast enabled(false) -> tensor<64x128xbf16>, tensor<256x128xbf16> {
      %a, %b = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %a, %b : tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %dx, %dw : tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}
