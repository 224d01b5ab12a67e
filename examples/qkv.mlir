// TEQ example: attention's Q, K and V projections, three Linears reading one
// input. Under a stateless recipe they quantize x identically, so
// teq-dedupe-saved-tensors keeps x's quantized copy for backward once.
//
//   te-opt examples/qkv.mlir --teq-frontend="target=sm_90 print-saved-memory=true"
//   te-opt examples/qkv.mlir --teq-frontend="target=sm_100 print-saved-memory=true"
//
//   x : [64, 128], wq/wk/wv : [128, 128], dq/dk/dv : [64, 128].
module {
  func.func @qkv(%x: tensor<64x128xbf16>, %wq: tensor<128x128xbf16>, %wk: tensor<128x128xbf16>, %wv: tensor<128x128xbf16>,
                 %dq: tensor<64x128xbf16>, %dk: tensor<64x128xbf16>, %dv: tensor<64x128xbf16>)
      -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
          tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>) {
    %q, %k, %v, %gq, %gk, %gv = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
           tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16> {
      %oq, %qx, %qw = teq.linear_forward %x, %wq config(#teq.linear<name = "q">)
          : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %ok, %kx, %kw = teq.linear_forward %x, %wk config(#teq.linear<name = "k">)
          : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %ov, %vx, %vw = teq.linear_forward %x, %wv config(#teq.linear<name = "v">)
          : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
      %dxv, %dwv = teq.linear_backward %dv, %vx, %vw config(#teq.linear<name = "v">)
          : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
      %dxk, %dwk = teq.linear_backward %dk, %kx, %kw config(#teq.linear<name = "k">)
          : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
      %dxq, %dwq = teq.linear_backward %dq, %qx, %qw config(#teq.linear<name = "q">)
          : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
      teq.yield %oq, %ok, %ov, %dxq, %dxk, %dxv
          : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
            tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>
    }
    return %q, %k, %v, %gq, %gk, %gv
        : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
          tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>
  }

  // The same projections under Float8BlockScaling (1x128 input blocks).
  func.func @qkv_block(%x: tensor<64x128xbf16>, %wq: tensor<128x128xbf16>, %wk: tensor<128x128xbf16>, %wv: tensor<128x128xbf16>)
      -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
          tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>) {
    %q, %k, %v, %sq, %sk, %sv = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
           tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16> {
      %oq, %qx = teq.linear_forward %x, %wq config(#teq.linear<name = "q">)
          : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>)
      %ok, %kx = teq.linear_forward %x, %wk config(#teq.linear<name = "k">)
          : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>)
      %ov, %vx = teq.linear_forward %x, %wv config(#teq.linear<name = "v">)
          : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x128xbf16>)
      teq.yield %oq, %ok, %ov, %qx, %kx, %vx
          : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
            tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>
    }
    return %q, %k, %v, %sq, %sk, %sv
        : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
          tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>
  }

  // Nested recipes: the outer region is Float8CurrentScaling; the
  // projections run in an inner region under a custom recipe that spells
  // DeepSeek-style block scaling as rules (128x128 blocks for weights, 1x128
  // for everything else). Q, K and V give x the same quantizer, so x is still
  // quantized and saved once. The backward ops sit in the outer region and
  // run under their forwards' custom recipe; they return dgrad and wgrad.
  func.func @qkv_custom(%x: tensor<64x128xbf16>, %wq: tensor<128x128xbf16>, %wk: tensor<128x128xbf16>, %wv: tensor<128x128xbf16>,
                        %dq: tensor<64x128xbf16>, %dk: tensor<64x128xbf16>, %dv: tensor<64x128xbf16>)
      -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
          tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>) {
    %q, %k, %v, %gx, %gwq, %gwk, %gwv = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
           tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16> {
      %oq, %ok, %ov, %qx, %kx, %vx, %qw, %kw, %vw = teq.autocast recipe(#teq.custom_recipe<[<tensor_type = weight> -> #teq.float8_block_quantizer<f8E4M3FN>, <> -> #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>]>)
          -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
             tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
             tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16> {
        %o1, %x1, %w1 = teq.linear_forward %x, %wq config(#teq.linear<name = "q">)
            : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
              saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
        %o2, %x2, %w2 = teq.linear_forward %x, %wk config(#teq.linear<name = "k">)
            : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
              saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
        %o3, %x3, %w3 = teq.linear_forward %x, %wv config(#teq.linear<name = "v">)
            : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
              saved_input(tensor<64x128xbf16>) saved_weight(tensor<128x128xbf16>)
        teq.yield %o1, %o2, %o3, %x1, %x2, %x3, %w1, %w2, %w3
            : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
              tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
              tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>
      }
      %dxv, %dwv = teq.linear_backward %dv, %vx, %vw config(#teq.linear<name = "v">)
          : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
      %dxk, %dwk = teq.linear_backward %dk, %kx, %kw config(#teq.linear<name = "k">)
          : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
      %dxq, %dwq = teq.linear_backward %dq, %qx, %qw config(#teq.linear<name = "q">)
          : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<128x128xbf16>)
      // x feeds all three projections: its gradient is the sum of the dgrads.
      %s1 = arith.addf %dxq, %dxk : tensor<64x128xbf16>
      %dxs = arith.addf %s1, %dxv : tensor<64x128xbf16>
      teq.yield %oq, %ok, %ov, %dxs, %dwq, %dwk, %dwv
          : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
            tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>
    }
    return %q, %k, %v, %gx, %gwq, %gwk, %gwv
        : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>,
          tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xbf16>
  }
}
