// The norm kernels at [8192, 4096] bf16 (issue 24; te-run --bench against
// the copy ceiling): LayerNorm and RMSNorm forward (reads x, writes y: 128
// MiB) and backward (reads dy and x, writes dx: 192 MiB, plus the f32
// dgamma/dbeta partials and their finalize).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @layer_norm_fwd(%x: tensor<8192x4096xbf16>, %g: tensor<4096xbf16>, %b: tensor<4096xbf16>)
      -> (tensor<8192x4096xbf16>, tensor<8192xf32>, tensor<8192xf32>) {
    %y, %mean, %rstd = teq.layer_norm %x, %g, %b
        : (tensor<8192x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>)
        -> (tensor<8192x4096xbf16>, tensor<8192xf32>, tensor<8192xf32>)
    return %y, %mean, %rstd : tensor<8192x4096xbf16>, tensor<8192xf32>, tensor<8192xf32>
  }
  func.func @layer_norm_bwd(%dy: tensor<8192x4096xbf16>, %x: tensor<8192x4096xbf16>,
                            %mean: tensor<8192xf32>, %rstd: tensor<8192xf32>, %g: tensor<4096xbf16>)
      -> (tensor<8192x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>) {
    %dx, %dg, %db = teq.layer_norm_backward %dy, %x, %mean, %rstd, %g
        : (tensor<8192x4096xbf16>, tensor<8192x4096xbf16>, tensor<8192xf32>, tensor<8192xf32>, tensor<4096xbf16>)
        -> (tensor<8192x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>)
    return %dx, %dg, %db : tensor<8192x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>
  }
  func.func @rms_norm_fwd(%x: tensor<8192x4096xbf16>, %g: tensor<4096xbf16>)
      -> (tensor<8192x4096xbf16>, tensor<8192xf32>) {
    %y, %rstd = teq.rms_norm %x, %g
        : (tensor<8192x4096xbf16>, tensor<4096xbf16>) -> (tensor<8192x4096xbf16>, tensor<8192xf32>)
    return %y, %rstd : tensor<8192x4096xbf16>, tensor<8192xf32>
  }
  func.func @rms_norm_bwd(%dy: tensor<8192x4096xbf16>, %x: tensor<8192x4096xbf16>,
                          %rstd: tensor<8192xf32>, %g: tensor<4096xbf16>)
      -> (tensor<8192x4096xbf16>, tensor<4096xbf16>) {
    %dx, %dg = teq.rms_norm_backward %dy, %x, %rstd, %g
        : (tensor<8192x4096xbf16>, tensor<8192x4096xbf16>, tensor<8192xf32>, tensor<4096xbf16>)
        -> (tensor<8192x4096xbf16>, tensor<4096xbf16>)
    return %dx, %dg : tensor<8192x4096xbf16>, tensor<4096xbf16>
  }
  // The backwards with the residual gradient added to dx (written unfused;
  // te-compile's teq-fuse-norm-backward-adds makes it the op's `add`):
  // reads dy, x and the addend, writes dx (256 MiB).
  func.func @layer_norm_bwd_add(%dy: tensor<8192x4096xbf16>, %x: tensor<8192x4096xbf16>,
                                %mean: tensor<8192xf32>, %rstd: tensor<8192xf32>, %g: tensor<4096xbf16>,
                                %go: tensor<8192x4096xbf16>)
      -> (tensor<8192x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>) {
    %dx, %dg, %db = teq.layer_norm_backward %dy, %x, %mean, %rstd, %g
        : (tensor<8192x4096xbf16>, tensor<8192x4096xbf16>, tensor<8192xf32>, tensor<8192xf32>, tensor<4096xbf16>)
        -> (tensor<8192x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>)
    %gx = arith.addf %go, %dx : tensor<8192x4096xbf16>
    return %gx, %dg, %db : tensor<8192x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>
  }
  func.func @rms_norm_bwd_add(%dy: tensor<8192x4096xbf16>, %x: tensor<8192x4096xbf16>,
                              %rstd: tensor<8192xf32>, %g: tensor<4096xbf16>, %go: tensor<8192x4096xbf16>)
      -> (tensor<8192x4096xbf16>, tensor<4096xbf16>) {
    %dx, %dg = teq.rms_norm_backward %dy, %x, %rstd, %g
        : (tensor<8192x4096xbf16>, tensor<8192x4096xbf16>, tensor<8192xf32>, tensor<4096xbf16>)
        -> (tensor<8192x4096xbf16>, tensor<4096xbf16>)
    %gx = arith.addf %go, %dx : tensor<8192x4096xbf16>
    return %gx, %dg : tensor<8192x4096xbf16>, tensor<4096xbf16>
  }
}
