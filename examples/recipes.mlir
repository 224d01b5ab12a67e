// TEQ example: every TransformerEngine (TE) recipe, written in the `teq` dialect.
//
//   te-opt examples/recipes.mlir                              # parse + verify, print back
//   te-opt examples/recipes.mlir --teq-print-buffer-layouts   # buffers of every !teq.proto
//   te-opt examples/recipes.mlir --teq-print-buffer-layouts=target=sm_90
//
// One Linear layer (TE's `te.Linear(256, 512)`) is used throughout:
//   x  : [tokens = 128, in = 256]   the activation (sequence-first in TE)
//   w  : [out = 512, in = 256]      the weight
//   b  : [512]                      the bias
//   dy : [128, 512]                 the gradient of the Linear's output
//
// What TE keeps in Python objects and global state is explicit IR here:
//   * the GPU target is a module attribute (TE asks the current device);
//   * a recipe is an attribute on a `teq.autocast` region (TE: `te.autocast(recipe=...)`);
//   * a quantizer is an attribute inside a `!teq.proto` type (TE: a Quantizer object);
//   * a quantized tensor is a value of type `!teq.proto<...>`; the type alone is
//     TE's data-free "tensor prototype" and determines the tensor's inner buffers;
//   * what forward saves for backward (TE: ctx.save_for_backward) is explicit
//     results of `teq.linear_forward` and operands of `teq.linear_backward`;
//   * delayed-scaling state (scale, amax history) is passed explicitly.

// The target: sm_100 (Blackwell B200). It supports every recipe: FP8, FP8 block
// scaling (emulated with MXFP8 there), MXFP8 and NVFP4. On Blackwell, FP8 GEMMs
// need not be TN, so per-tensor FP8 tensors carry no transposed copy.
module attributes {teq.target = #teq.target<sm_100>} {

  // ---------------------------------------------------------------------------
  // 1. DelayedScaling: per-tensor FP8, scale from the amax history of earlier
  //    steps: scale = (FP8_MAX / amax) / 2^margin.
  //
  //    TE:  recipe = DelayedScaling(margin=0, amax_history_len=16)
  //         with te.autocast(recipe=recipe):
  //             y = linear(x)
  //
  //    TE keeps the state (scale, amax_history) inside the module. Here it is an
  //    argument: forward has 3 quantizer slots (input, weight, output), so the
  //    scale is tensor<3xf32> and the history tensor<16x3xf32> (amax_history_len
  //    x slots); backward has 2 slots (grad_output, grad_input). Each op returns
  //    the history with this step's amaxes recorded.
  // ---------------------------------------------------------------------------
  func.func @delayed_scaling(%x: tensor<128x256xbf16>, %w: tensor<512x256xbf16>,
                             %dy: tensor<128x512xbf16>,
                             %fwd_scale: tensor<3xf32>, %fwd_hist: tensor<16x3xf32>,
                             %bwd_scale: tensor<2xf32>, %bwd_hist: tensor<16x2xf32>)
      -> (tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xbf16>,
          tensor<16x3xf32>, tensor<16x2xf32>) {
    %y, %dx, %dw, %fwd_hist1, %bwd_hist1 =
        teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>)
        -> tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xbf16>,
           tensor<16x3xf32>, tensor<16x2xf32> {
      // Forward: y = x w^T. It also returns the tensors backward needs
      // (saved_input, saved_weight) and the updated forward amax history.
      %out, %saved_x, %saved_w, %h1 = teq.linear_forward %x, %w
          state(%fwd_scale, %fwd_hist : tensor<3xf32>, tensor<16x3xf32>)
          config(#teq.linear<name = "fc1">)
          : tensor<128x256xbf16>, tensor<512x256xbf16> -> tensor<128x512xbf16>
            saved_input(tensor<128x256xbf16>) saved_weight(tensor<512x256xbf16>)
            updated_amax_history(tensor<16x3xf32>)
      // Backward: dgrad dx = dy w, wgrad dw = dy^T x, from the saved tensors.
      %gx, %gw, %h2 = teq.linear_backward %dy, %saved_x, %saved_w
          state(%bwd_scale, %bwd_hist : tensor<2xf32>, tensor<16x2xf32>)
          config(#teq.linear<name = "fc1">)
          : tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xbf16>
            dgrad(tensor<128x256xbf16>) wgrad(tensor<512x256xbf16>)
            updated_amax_history(tensor<16x2xf32>)
      teq.yield %out, %gx, %gw, %h1, %h2
          : tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xbf16>,
            tensor<16x3xf32>, tensor<16x2xf32>
    }
    return %y, %dx, %dw, %fwd_hist1, %bwd_hist1
        : tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xbf16>,
          tensor<16x3xf32>, tensor<16x2xf32>
  }

  // ---------------------------------------------------------------------------
  // 2. Float8CurrentScaling: per-tensor FP8, scale from the tensor's own amax.
  //    HYBRID format: E4M3 forward, E5M2 for gradients. fprop uses fast
  //    accumulation by default (fp8_gemm_fprop.use_split_accumulator = False).
  //
  //    TE:  recipe = Float8CurrentScaling()
  //         linear = te.Linear(256, 512, bias=True)
  //         with te.autocast(recipe=recipe):
  //             y = linear(x)
  //         y.backward(dy)
  //
  //    With a bias, backward also returns dbias.
  // ---------------------------------------------------------------------------
  func.func @current_scaling(%x: tensor<128x256xbf16>, %w: tensor<512x256xbf16>,
                             %b: tensor<512xbf16>, %dy: tensor<128x512xbf16>)
      -> (tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xbf16>,
          tensor<512xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xbf16>,
           tensor<512xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w bias(%b : tensor<512xbf16>)
          config(#teq.linear<bias = true>)
          : tensor<128x256xbf16>, tensor<512x256xbf16> -> tensor<128x512xbf16>
            saved_input(tensor<128x256xbf16>) saved_weight(tensor<512x256xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %saved_x, %saved_w
          config(#teq.linear<bias = true>)
          : tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xbf16>
            dgrad(tensor<128x256xbf16>) wgrad(tensor<512x256xbf16>)
            dbias(tensor<512xbf16>)
      teq.yield %out, %gx, %gw, %gb
          : tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xbf16>,
            tensor<512xbf16>
    }
    return %y, %dx, %dw, %db
        : tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xbf16>,
          tensor<512xbf16>
  }

  // ---------------------------------------------------------------------------
  // 3. Float8BlockScaling (DeepSeek-V3 style): FP8 with one fp32 scale per
  //    1x128 block (activations, gradients) or 128x128 block (weights).
  //    All GEMMs use split accumulation. On sm_100 TE emulates it with MXFP8,
  //    which is why power-of-two scales (the default) are required there.
  //
  //    TE:  recipe = Float8BlockScaling()   # x/grad 1x128, w 128x128
  //
  //    Here the Linear keeps the fp32 main_grad of Megatron-style training:
  //    fuse_wgrad_accumulation = true makes wgrad = main_grad + dy^T x.
  // ---------------------------------------------------------------------------
  func.func @block_scaling(%x: tensor<128x256xbf16>, %w: tensor<512x256xbf16>,
                           %dy: tensor<128x512xbf16>, %main_grad: tensor<512x256xf32>)
      -> (tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xf32>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xf32> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w
          config(#teq.linear<fuse_wgrad_accumulation = true>)
          : tensor<128x256xbf16>, tensor<512x256xbf16> -> tensor<128x512xbf16>
            saved_input(tensor<128x256xbf16>) saved_weight(tensor<512x256xbf16>)
      %gx, %gw = teq.linear_backward %dy, %saved_x, %saved_w
          main_grad(%main_grad : tensor<512x256xf32>)
          config(#teq.linear<fuse_wgrad_accumulation = true>)
          : tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xbf16>
            dgrad(tensor<128x256xbf16>) wgrad(tensor<512x256xf32>)
      teq.yield %out, %gx, %gw
          : tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xf32>
    }
    return %y, %dx, %dw
        : tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xf32>
  }

  // ---------------------------------------------------------------------------
  // 4. MXFP8BlockScaling: FP8 E4M3 with one E8M0 (power-of-two) scale per 32
  //    elements. This is TE's default recipe on sm_100.
  //
  //    TE:  recipe = MXFP8BlockScaling()
  //         with te.autocast(recipe=recipe):
  //             h = fc1(x)
  //             with te.autocast(enabled=False):   # a sensitive layer in bf16
  //                 y = fc2(h)
  //
  //    Autocast regions nest; the innermost wins. enabled(false) runs fc2 in
  //    high precision. An autocast without recipe(...) would use the target's
  //    default recipe (TE's get_default_recipe()).
  // ---------------------------------------------------------------------------
  func.func @mxfp8_nested(%x: tensor<128x256xbf16>, %w1: tensor<512x256xbf16>,
                          %w2: tensor<256x512xbf16>) -> tensor<128x256xbf16> {
    %y = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<128x256xbf16> {
      // Inference only: no gradients are needed, so forward saves nothing.
      %h = teq.linear_forward %x, %w1
          config(#teq.linear<requires_dgrad = false, requires_wgrad = false, name = "fc1">)
          : tensor<128x256xbf16>, tensor<512x256xbf16> -> tensor<128x512xbf16>
      %out = teq.autocast enabled(false) -> tensor<128x256xbf16> {
        %o = teq.linear_forward %h, %w2
            config(#teq.linear<requires_dgrad = false, requires_wgrad = false, name = "fc2">)
            : tensor<128x512xbf16>, tensor<256x512xbf16> -> tensor<128x256xbf16>
        teq.yield %o : tensor<128x256xbf16>
      }
      teq.yield %out : tensor<128x256xbf16>
    }
    return %y : tensor<128x256xbf16>
  }

  // ---------------------------------------------------------------------------
  // 5. NVFP4BlockScaling: FP4 E2M1 values, an E4M3 scale per 16 elements and a
  //    per-tensor fp32 scale. By default activations and gradients get the
  //    random Hadamard transform (RHT) on their columnwise copy, gradients
  //    stochastic rounding, weights 16x16 2D blocks.
  //
  //    TE:  recipe = NVFP4BlockScaling()
  //
  //    Tensor parallelism: a column-parallel Linear with sequence parallelism
  //    over tp_size = 2 ranks. The weight is the local shard [512/2, 256]; the
  //    input is the local sequence shard [128/2, 256], all-gathered to
  //    [128, 256] before fprop, so the output is [128, 256]. The process group
  //    is an explicit operand (TE: tp_group=...).
  //
  //    TE:  te.Linear(256, 512, parallel_mode="column", sequence_parallel=True,
  //                   tp_group=tp, tp_size=2)
  // ---------------------------------------------------------------------------
  func.func @nvfp4_tensor_parallel(%x: tensor<64x256xbf16>, %w: tensor<256x256xbf16>,
                                   %tp: !teq.process_group) -> tensor<128x256xbf16> {
    %y = teq.autocast recipe(#teq.nvfp4_block_scaling<>) -> tensor<128x256xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w tp_group(%tp)
          config(#teq.linear<parallel_mode = column, sequence_parallel = true, tp_size = 2, name = "qkv">)
          : tensor<64x256xbf16>, tensor<256x256xbf16> -> tensor<128x256xbf16>
            saved_input(tensor<64x256xbf16>) saved_weight(tensor<256x256xbf16>)
      teq.yield %out : tensor<128x256xbf16>
    }
    return %y : tensor<128x256xbf16>
  }

  // ---------------------------------------------------------------------------
  // 6. CustomRecipe: TE's qfactory callable becomes an ordered list of rules
  //    `role pattern -> quantizer`; the first matching rule wins. A role is
  //    (module_type, tensor_type, name); fields left out match anything.
  //
  //    TE:  def qfactory(role):
  //             if role.tensor_type == "weight":
  //                 return Float8BlockQuantizer(tex.DType.kFloat8E4M3, rowwise=True,
  //                                             columnwise=True, block_scaling_dim=2)
  //             if role.tensor_type == "grad_output":
  //                 return Float8CurrentScalingQuantizer(tex.DType.kFloat8E5M2, device)
  //             return Float8CurrentScalingQuantizer(tex.DType.kFloat8E4M3, device)
  //         recipe = CustomRecipe(qfactory=qfactory)
  // ---------------------------------------------------------------------------
  func.func @custom_recipe(%x: tensor<128x256xbf16>, %w: tensor<512x256xbf16>)
      -> tensor<128x512xbf16> {
    %y = teq.autocast recipe(#teq.custom_recipe<[
            <tensor_type = weight> -> #teq.float8_block_quantizer<f8E4M3FN>,
            <tensor_type = grad_output> -> #teq.float8_current_scaling_quantizer<f8E5M2>,
            <> -> #teq.float8_current_scaling_quantizer<f8E4M3FN>]>)
        -> tensor<128x512xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<>)
          : tensor<128x256xbf16>, tensor<512x256xbf16> -> tensor<128x512xbf16>
            saved_input(tensor<128x256xbf16>) saved_weight(tensor<512x256xbf16>)
      teq.yield %out : tensor<128x512xbf16>
    }
    return %y : tensor<128x512xbf16>
  }

  // ---------------------------------------------------------------------------
  // 7. Quantizers and quantized tensors. `teq.quantize` turns a high-precision
  //    tensor into a `!teq.proto<shape x dtype, quantizer, usages[, scale layout]>`.
  //    Usages are TE's rowwise / columnwise copies: a GEMM reads an operand
  //    rowwise or columnwise depending on its layout (fprop TN, dgrad NN,
  //    wgrad NT). `gemm_swizzled` is TE's optimize_for_gemm for MXFP8/NVFP4 scales.
  //
  //    `te-opt --teq-print-buffer-layouts` prints the inner buffers of each of
  //    these for the module's target (or another one with target=sm_90).
  // ---------------------------------------------------------------------------
  func.func @quantizers(%x: tensor<128x256xbf16>, %scale: tensor<1xf32>,
                        %hist: tensor<16xf32>, %tp: !teq.process_group)
      -> tensor<16xf32> {
    // Float8Quantizer (delayed scaling): stateful, so it takes its scale and
    // amax history and returns the history with this tensor's amax recorded.
    // TE: Float8Quantizer(scale, amax, tex.DType.kFloat8E4M3)
    %q0, %hist1 = teq.quantize %x state(%scale, %hist : tensor<1xf32>, tensor<16xf32>)
        : tensor<128x256xbf16>
        -> !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>,
           tensor<16xf32>

    // Float8CurrentScalingQuantizer. With with_amax_reduction the amax is
    // MAX-reduced over a process group before the scale is computed.
    // TE: Float8CurrentScalingQuantizer(tex.DType.kFloat8E4M3, device,
    //         with_amax_reduction=True, amax_reduction_group=tp)
    %q1 = teq.quantize %x amax_reduction_group(%tp) : tensor<128x256xbf16>
        -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN, with_amax_reduction = true>, rowwise|columnwise>

    // Float8BlockQuantizer, 1x128 blocks (activations) and 128x128 (weights).
    // TE: Float8BlockQuantizer(tex.DType.kFloat8E4M3, rowwise=True,
    //         columnwise=True, block_scaling_dim=1)
    %q2 = teq.quantize %x : tensor<128x256xbf16>
        -> !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
    %q3 = teq.quantize %x : tensor<128x256xbf16>
        -> !teq.proto<128x256xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise|columnwise>

    // MXFP8Quantizer: compact scales, and GEMM-swizzled scales.
    // TE: MXFP8Quantizer(tex.DType.kFloat8E4M3)
    %q4 = teq.quantize %x : tensor<128x256xbf16>
        -> !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
    %q5 = teq.quantize %x : tensor<128x256xbf16>
        -> !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise, gemm_swizzled>

    // NVFP4Quantizer as NVFP4BlockScaling configures it for activations
    // (RHT with post-RHT amax), with GEMM-swizzled scales.
    // TE: NVFP4Quantizer(with_rht=True, with_post_rht_amax=True)
    %q6 = teq.quantize %x : tensor<128x256xbf16>
        -> !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>

    // Changing usage is a type change. Dropping a usage is always allowed
    // (TE keeps only the columnwise usage of the saved input after fprop).
    %c6 = teq.update_usage %q6
        : !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, rowwise|columnwise, gemm_swizzled>
        -> !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_rht = true, with_post_rht_amax = true>, columnwise, gemm_swizzled>

    // Back to high precision.
    %d4 = teq.dequantize %q4
        : !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise|columnwise>
        -> tensor<128x256xf32>
    return %hist1 : tensor<16xf32>
  }

  // ---------------------------------------------------------------------------
  // 8. A GEMM on quantized operands: the fprop of a Linear, y = x w^T, in TE's
  //    general_gemm(A = w, B = x, layout = "TN") convention. TN reads both
  //    operands rowwise. use_split_accumulator = false is FP8 fast accumulation
  //    (the fprop default of current scaling).
  // ---------------------------------------------------------------------------
  func.func @fprop_gemm(%x: tensor<128x256xbf16>, %w: tensor<512x256xbf16>,
                        %b: tensor<512xbf16>) -> tensor<128x512xbf16> {
    %wq = teq.quantize %w : tensor<512x256xbf16>
        -> !teq.proto<512x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    %xq = teq.quantize %x : tensor<128x256xbf16>
        -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    %y = teq.gemm TN %wq, %xq bias(%b : tensor<512xbf16>)
        {use_split_accumulator = false}
        : !teq.proto<512x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>,
          !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
        -> tensor<128x512xbf16>
    return %y : tensor<128x512xbf16>
  }
}
