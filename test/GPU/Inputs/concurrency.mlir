// Entries for the runtime's concurrency tests (unittests/Runtime/
// ConcurrencyTest.cpp, run on the GPU by scripts/gpu-check): two threads,
// two streams and two artifacts running these entries at once must give the
// outputs of one serial run, bit for bit. Each entry keeps per-call state
// the runtime must not share between concurrent calls: temporaries in the
// entry workspace, the kernels' module globals (amax partials, the fused
// amax accumulators and NVFP4 constants), the cuBLASLt workspace. Sizes
// are large enough for calls on two streams to overlap on an H100.
// test/GPU/concurrency.test checks them against the CPU reference once.
module attributes {teq.target = #teq.target<sm_90>} {
  // Float8CurrentScaling MLP, forward and backward: amax partials in module
  // globals, FP8 temporaries in the workspace, five cuBLASLt GEMMs.
  func.func @mlp_current(%x: tensor<1024x1024xbf16>, %w1: tensor<2048x1024xbf16>, %w2: tensor<1024x2048xbf16>,
                         %dy: tensor<1024x1024xbf16>, %dh: tensor<1024x2048xbf16>)
      -> (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>, tensor<2048x1024xbf16>, tensor<1024x2048xbf16>) {
    %y, %dx, %dw1, %dw2 = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<1024x1024xbf16>, tensor<1024x1024xbf16>, tensor<2048x1024xbf16>, tensor<1024x2048xbf16> {
      %h, %s1x, %s1w = teq.linear_forward %x, %w1 config(#teq.linear<name = "fc1">)
          : tensor<1024x1024xbf16>, tensor<2048x1024xbf16> -> tensor<1024x2048xbf16>
            saved_input(tensor<1024x1024xbf16>) saved_weight(tensor<2048x1024xbf16>)
      %a = math.tanh %h : tensor<1024x2048xbf16>
      %out, %s2x, %s2w = teq.linear_forward %a, %w2 config(#teq.linear<name = "fc2">)
          : tensor<1024x2048xbf16>, tensor<1024x2048xbf16> -> tensor<1024x1024xbf16>
            saved_input(tensor<1024x2048xbf16>) saved_weight(tensor<1024x2048xbf16>)
      %da, %g2 = teq.linear_backward %dy, %s2x, %s2w config(#teq.linear<name = "fc2">)
          : tensor<1024x1024xbf16>, tensor<1024x2048xbf16>, tensor<1024x2048xbf16>
            dgrad(tensor<1024x2048xbf16>) wgrad(tensor<1024x2048xbf16>)
      %gx, %g1 = teq.linear_backward %dh, %s1x, %s1w config(#teq.linear<name = "fc1">)
          : tensor<1024x2048xbf16>, tensor<1024x1024xbf16>, tensor<2048x1024xbf16>
            dgrad(tensor<1024x1024xbf16>) wgrad(tensor<2048x1024xbf16>)
      teq.yield %out, %gx, %g1, %g2
          : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>, tensor<2048x1024xbf16>, tensor<1024x2048xbf16>
    }
    return %y, %dx, %dw1, %dw2
        : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>, tensor<2048x1024xbf16>, tensor<1024x2048xbf16>
  }

  // Float8BlockScaling Linear, forward and backward: block-scaled
  // temporaries in the workspace and cuBLASLt's block-scaled GEMMs.
  func.func @linear_block(%x: tensor<1024x1024xbf16>, %w: tensor<2048x1024xbf16>, %dy: tensor<1024x2048xbf16>)
      -> (tensor<1024x2048xbf16>, tensor<1024x1024xbf16>, tensor<2048x1024xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<1024x2048xbf16>, tensor<1024x1024xbf16>, tensor<2048x1024xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<1024x1024xbf16>, tensor<2048x1024xbf16> -> tensor<1024x2048xbf16>
            saved_input(tensor<1024x1024xbf16>) saved_weight(tensor<2048x1024xbf16>)
      %gx, %gw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc">)
          : tensor<1024x2048xbf16>, tensor<1024x1024xbf16>, tensor<2048x1024xbf16>
            dgrad(tensor<1024x1024xbf16>) wgrad(tensor<2048x1024xbf16>)
      teq.yield %out, %gx, %gw : tensor<1024x2048xbf16>, tensor<1024x1024xbf16>, tensor<2048x1024xbf16>
    }
    return %y, %dx, %dw : tensor<1024x2048xbf16>, tensor<1024x1024xbf16>, tensor<2048x1024xbf16>
  }

  // NVFP4 with the random Hadamard transform: the fused amax accumulator,
  // its block counter and the NVFP4 constants are module globals.
  func.func @nvfp4_rht(%x: tensor<2048x2048xbf16>) -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<2048x2048xbf16> -> !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
    return %q : !teq.proto<2048x2048xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise>
  }

  // Per-tensor current scaling alone: amax partials, no workspace.
  func.func @quantize_current(%x: tensor<4096x2048xbf16>) -> !teq.proto<4096x2048xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<4096x2048xbf16> -> !teq.proto<4096x2048xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<4096x2048xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
}
