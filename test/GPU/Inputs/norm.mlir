// LayerNorm and RMSNorm programs for te-run --check (test/GPU/norm.test):
// the norm kernels of convert-teq-to-gpu (Kernels/Norm.h) forward and
// backward against lib/Reference/Norm.h. Forwards return mean and rstd so
// that y is checked bit for bit from the GPU's own statistics.
module attributes {teq.target = #teq.target<sm_90>} {
  // bf16 [256, 1024] with a beta: 16-byte vectors, 128 threads per row.
  func.func @layer_norm_bf16(%x: tensor<256x1024xbf16>, %g: tensor<1024xbf16>, %b: tensor<1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>) {
    %y, %mean, %rstd = teq.layer_norm %x, %g, %b
        : (tensor<256x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
        -> (tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>)
    return %y, %mean, %rstd : tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>
  }
  func.func @layer_norm_bf16_backward(%dy: tensor<256x1024xbf16>, %x: tensor<256x1024xbf16>,
                                      %mean: tensor<256xf32>, %rstd: tensor<256xf32>, %g: tensor<1024xbf16>)
      -> (tensor<256x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>) {
    %dx, %dg, %db = teq.layer_norm_backward %dy, %x, %mean, %rstd, %g
        : (tensor<256x1024xbf16>, tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>, tensor<1024xbf16>)
        -> (tensor<256x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
    return %dx, %dg, %db : tensor<256x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>
  }
  // [64, 4096] bf16, zero_centered_gamma, an f32 gamma (TE's fp32 weights),
  // no beta.
  func.func @layer_norm_zero_centered(%x: tensor<64x4096xbf16>, %g: tensor<4096xf32>)
      -> (tensor<64x4096xbf16>, tensor<64xf32>, tensor<64xf32>) {
    %y, %mean, %rstd = teq.layer_norm %x, %g {zero_centered_gamma}
        : (tensor<64x4096xbf16>, tensor<4096xf32>)
        -> (tensor<64x4096xbf16>, tensor<64xf32>, tensor<64xf32>)
    return %y, %mean, %rstd : tensor<64x4096xbf16>, tensor<64xf32>, tensor<64xf32>
  }
  func.func @layer_norm_zero_centered_backward(%dy: tensor<64x4096xbf16>, %x: tensor<64x4096xbf16>,
                                               %mean: tensor<64xf32>, %rstd: tensor<64xf32>, %g: tensor<4096xf32>)
      -> (tensor<64x4096xbf16>, tensor<4096xf32>, tensor<4096xf32>) {
    %dx, %dg, %db = teq.layer_norm_backward %dy, %x, %mean, %rstd, %g {zero_centered_gamma}
        : (tensor<64x4096xbf16>, tensor<64x4096xbf16>, tensor<64xf32>, tensor<64xf32>, tensor<4096xf32>)
        -> (tensor<64x4096xbf16>, tensor<4096xf32>, tensor<4096xf32>)
    return %dx, %dg, %db : tensor<64x4096xbf16>, tensor<4096xf32>, tensor<4096xf32>
  }
  // f32, a 3-D x ([4, 32, 768]: M = 128), eps 1e-6.
  func.func @layer_norm_f32(%x: tensor<4x32x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>)
      -> (tensor<4x32x768xf32>, tensor<128xf32>, tensor<128xf32>) {
    %y, %mean, %rstd = teq.layer_norm %x, %g, %b {eps = 1.0e-6 : f32}
        : (tensor<4x32x768xf32>, tensor<768xf32>, tensor<768xf32>)
        -> (tensor<4x32x768xf32>, tensor<128xf32>, tensor<128xf32>)
    return %y, %mean, %rstd : tensor<4x32x768xf32>, tensor<128xf32>, tensor<128xf32>
  }
  // A hidden size that is not a multiple of 8 (1002): one element at a
  // time, 1002 = 512 + 490 (threads past the row's end hold nothing).
  func.func @rms_norm_ragged(%x: tensor<96x1002xbf16>, %g: tensor<1002xbf16>)
      -> (tensor<96x1002xbf16>, tensor<96xf32>) {
    %y, %rstd = teq.rms_norm %x, %g
        : (tensor<96x1002xbf16>, tensor<1002xbf16>) -> (tensor<96x1002xbf16>, tensor<96xf32>)
    return %y, %rstd : tensor<96x1002xbf16>, tensor<96xf32>
  }
  func.func @rms_norm_ragged_backward(%dy: tensor<96x1002xbf16>, %x: tensor<96x1002xbf16>,
                                      %rstd: tensor<96xf32>, %g: tensor<1002xbf16>)
      -> (tensor<96x1002xbf16>, tensor<1002xbf16>) {
    %dx, %dg = teq.rms_norm_backward %dy, %x, %rstd, %g
        : (tensor<96x1002xbf16>, tensor<96x1002xbf16>, tensor<96xf32>, tensor<1002xbf16>)
        -> (tensor<96x1002xbf16>, tensor<1002xbf16>)
    return %dx, %dg : tensor<96x1002xbf16>, tensor<1002xbf16>
  }
  // RMSNorm [512, 16384] bf16 zero-centred: four 16-byte vectors per thread;
  // the backward's rows grid-strided over its CTAs.
  func.func @rms_norm_wide(%x: tensor<512x16384xbf16>, %g: tensor<16384xbf16>)
      -> (tensor<512x16384xbf16>, tensor<512xf32>) {
    %y, %rstd = teq.rms_norm %x, %g {zero_centered_gamma}
        : (tensor<512x16384xbf16>, tensor<16384xbf16>) -> (tensor<512x16384xbf16>, tensor<512xf32>)
    return %y, %rstd : tensor<512x16384xbf16>, tensor<512xf32>
  }
  func.func @rms_norm_wide_backward(%dy: tensor<512x16384xbf16>, %x: tensor<512x16384xbf16>,
                                    %rstd: tensor<512xf32>, %g: tensor<16384xbf16>)
      -> (tensor<512x16384xbf16>, tensor<16384xbf16>) {
    %dx, %dg = teq.rms_norm_backward %dy, %x, %rstd, %g {zero_centered_gamma}
        : (tensor<512x16384xbf16>, tensor<512x16384xbf16>, tensor<512xf32>, tensor<16384xbf16>)
        -> (tensor<512x16384xbf16>, tensor<16384xbf16>)
    return %dx, %dg : tensor<512x16384xbf16>, tensor<16384xbf16>
  }
  // The residual gradient added to dx, written unfused: te-compile's
  // teq-fuse-norm-backward-adds makes it the backward's `add` (TE's
  // rmsnorm_bwd_add, one rounding), which --check recomputes from dx's
  // computed_by. [300, 1024] bf16: the 16-byte path (next row prefetched),
  // 300 rows over 300 CTAs; [96, 1002]: one element at a time.
  func.func @layer_norm_backward_add(%dy: tensor<300x1024xbf16>, %x: tensor<300x1024xbf16>,
                                     %mean: tensor<300xf32>, %rstd: tensor<300xf32>, %g: tensor<1024xbf16>,
                                     %go: tensor<300x1024xbf16>)
      -> (tensor<300x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>) {
    %dx, %dg, %db = teq.layer_norm_backward %dy, %x, %mean, %rstd, %g
        : (tensor<300x1024xbf16>, tensor<300x1024xbf16>, tensor<300xf32>, tensor<300xf32>, tensor<1024xbf16>)
        -> (tensor<300x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
    %gx = arith.addf %go, %dx : tensor<300x1024xbf16>
    return %gx, %dg, %db : tensor<300x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>
  }
  func.func @rms_norm_ragged_backward_add(%dy: tensor<96x1002xbf16>, %x: tensor<96x1002xbf16>,
                                          %rstd: tensor<96xf32>, %g: tensor<1002xbf16>,
                                          %go: tensor<96x1002xbf16>)
      -> (tensor<96x1002xbf16>, tensor<1002xbf16>) {
    %dx, %dg = teq.rms_norm_backward %dy, %x, %rstd, %g
        : (tensor<96x1002xbf16>, tensor<96x1002xbf16>, tensor<96xf32>, tensor<1002xbf16>)
        -> (tensor<96x1002xbf16>, tensor<1002xbf16>)
    %gx = arith.addf %dx, %go : tensor<96x1002xbf16>
    return %gx, %dg : tensor<96x1002xbf16>, tensor<1002xbf16>
  }
}
