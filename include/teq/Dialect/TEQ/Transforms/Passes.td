//===- Passes.td - Passes over the teq dialect ------------*- tablegen -*-===//

#ifndef TEQ_DIALECT_TEQ_TRANSFORMS_PASSES_TD
#define TEQ_DIALECT_TEQ_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrintBufferLayouts : Pass<"teq-print-buffer-layouts", "ModuleOp"> {
  let summary = "print the inner buffers of every quantized tensor type";
  let description = [{
    For every distinct `!teq.proto` type used by an op or block argument of
    the module, prints the buffers it has on the module's `#teq.target`
    (te-semantics.md §4): name, storage shape, valid region, encoding,
    transposition, scale layout and size. The IR is not changed.

    Input:
    ```mlir
    module attributes {teq.target = #teq.target<sm_90>} {
      func.func @f(%x: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>) { return }
    }
    ```
    Output (stdout):
    ```
    !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> on sm_90: 2 buffers, 79872 bytes
      rowwise_data          e4m3   [300, 256]  76800 B
      rowwise_scale_inv     e8m0   [384, 8]  valid [300, 8]  compact  3072 B
    ```
    A module without `teq.target` is an error: layouts depend on the GPU.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "print for this target (e.g. sm_100) instead of the module's">
  ];
}

def CheckRecipeSupport : Pass<"teq-check-recipe-support", "ModuleOp"> {
  let summary = "check each recipe and Linear against the module's GPU target";
  let description = [{
    TE checks recipes when an autocast region is entered and tensor shapes
    when a Linear runs; this pass does both at compile time
    (te-semantics.md §2, §3):

    * every enabled `teq.autocast` (or the target's default recipe when it
      names none) must run on `#teq.target`: FP8 needs CC 8.9+, block
      scaling 9.0+ with CUDA 12.9, MXFP8 10.x/11.x, NVFP4 10.0+. The error
      is TE's message, at the autocast op;
    * every Linear under an FP8/FP4 recipe must satisfy TE's shape rules:
      `prod(shape[:-1]) % 8 == 0` and `shape[-1] % 16 == 0` for input and
      weight (assert_dim_for_fp8_exec), both dims % 32 for MXFP8 and % 16
      for NVFP4 tensors;
    * delayed scaling is supported when its state is passed explicitly; a
      Linear under DelayedScaling without `state(...)` is an error that
      shows how to pass it, and the amax history length must match the
      recipe's;
    * stochastic rounding (NVFP4BlockScaling's grad_output by default, or
      a CustomRecipe's NVFP4 quantizer with `stochastic_rounding`) is
      supported when its Philox state is passed explicitly: a Linear that
      quantizes a tensor stochastically without
      `rng_state(%rng : tensor<2xi64>)` is an error that shows how to pass
      it; an rng_state on a Linear that rounds nothing stochastically, or
      one Linear op rounding two tensors stochastically (one stream), is an
      error too.

    Before (sm_90 target):
    ```mlir
    %y = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16> { ... }
    ```
    After: the IR is unchanged; the pass fails with
    `error: MXFP8BlockScaling is not supported on sm_90: Device compute
    capability 10.0 or higher required for MXFP8 execution.`
  }];
}

def ResolveAutocast : Pass<"teq-resolve-autocast", "ModuleOp"> {
  let summary = "give every Linear explicit quantizers and remove autocast regions";
  let description = [{
    For every `teq.linear_forward` / `teq.linear_backward`, takes the recipe
    in effect (innermost enclosing `teq.autocast`; the target's default
    recipe when the region names none; high precision when disabled or
    outside any region; a backward op uses its forward's recipe, as TE
    captures it for backward) and records in `quantization` the quantizer
    of each role (input/weight/output E4M3 and grad_output/grad_input E5M2
    under HYBRID; block dims, MXFP8 2D and NVFP4 RHT / stochastic rounding /
    2D per role; a custom recipe's first matching rule) and the
    split-accumulator flag of its fprop, dgrad and wgrad GEMMs. Inputs of
    column-parallel SP Linears and grad_outputs of row-parallel SP ones
    reduce their amax over the TP group. Then every autocast region is
    inlined: none remains.

    Before:
    ```mlir
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      %o, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<>) : ...
      teq.yield %o : tensor<64x256xbf16>
    }
    ```
    After:
    ```mlir
    %o, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<>)
        {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling",
           input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, ...,
           fprop_split_accumulator = false>} : ...
    ```
  }];
}

def InferPrototypes : Pass<"teq-infer-prototypes", "ModuleOp"> {
  let summary = "give saved tensors the quantized types backward needs";
  let description = [{
    TE's "fake implementations" as a pass: after `teq-resolve-autocast`,
    each Linear forward's saved tensors get the `!teq.proto` type that its
    backward reads (te-semantics.md §6.1, §7):

    * the saved input keeps only its columnwise usage (wgrad reads it
      columnwise); per-tensor FP8 under column-parallel sequence
      parallelism keeps rowwise instead, so backward can re-gather it;
      under `save_original_input` it stays the high-precision input;
    * the saved weight keeps its columnwise usage (dgrad reads it);
    * MXFP8 / NVFP4 inputs and weights get GEMM-swizzled scales, except
      where an all-gather needs compact ones (column-parallel SP inputs).

    Function signatures follow: a function returning saved tensors, or a
    backward function taking them as arguments (the pair-of-functions form),
    gets the new types, and so do its call sites. High-precision Linears
    keep their types.

    Before:
    ```mlir
    %y, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<>)
        {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling", ...>}
        : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
          saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
    ```
    After:
    ```mlir
        ... saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>)
            saved_weight(!teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>)
    ```
  }];
}

def QuantizeCSE : Pass<"teq-quantize-cse"> {
  let summary = "one quantization per (tensor, quantizer, usage)";
  let description = [{
    Quantizers are attributes, so they compare by value: two `teq.quantize`
    ops of the same tensor with equal quantizers, scale layout and operands
    (state, rng state, amax reduction group) are one quantization. They are merged
    into a single op at the first one's position whose result holds the
    union of their usages; each former result becomes a
    `teq.update_usage` that keeps the usages its users asked for (dropping
    usages is free). Q, K and V Linears that share an input therefore
    quantize it once. Rebuilds marked `teq.recompute` (backward quantizing
    what forward did not save) only merge with each other.

    Before:
    ```mlir
    %a = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #q, rowwise>
    %b = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #q, columnwise>
    ```
    After:
    ```mlir
    %ab = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #q, rowwise|columnwise>
    %a = teq.update_usage %ab : !teq.proto<..., rowwise|columnwise> -> !teq.proto<..., rowwise>
    %b = teq.update_usage %ab : !teq.proto<..., rowwise|columnwise> -> !teq.proto<..., columnwise>
    ```
  }];
}

def DedupeSavedTensors : Pass<"teq-dedupe-saved-tensors", "ModuleOp"> {
  let summary = "keep each tensor between forward and backward at most once";
  let description = [{
    Runs after `teq-infer-prototypes`. For every `teq.linear_forward`:

    * a saved slot that aliases a forward input (the high-precision weight,
      or the input under `save_original_input` / high precision) is not
      saved: backward reads the original value;
    * a quantized weight (stateless quantizer, not rounded
      stochastically) is not saved either:
      backward rebuilds it with a `teq.quantize` of the weight, which stays
      alive anyway as a parameter; the rebuild is marked `teq.recompute` so
      quantize CSE does not merge it back into forward's quantization;
    * the same tensor saved by several Linears (Q, K and V share their
      quantized input) is saved once, unless its quantization depends on
      each Linear's own state (delayed scaling, stochastic rounding).

    In the pair-of-functions form, a forward function result that is one of
    its own arguments is removed from the signature; every call site uses
    the argument instead, and the function records the mapping in
    `teq.saved_from_args` (`[result index, argument index]` pairs of its
    original signature) for callers outside the module.

    With `record-saved-memory`, the same report is data on each function that
    saves tensors: `teq.saved_memory = {after = {bytes = 24584 : i64,
    per_recipe = {Float8CurrentScaling = 24584 : i64}, tensors = 2 : i64},
    before = {...}}` (what the Python package's `saved_memory()` reads).
    With `print-saved-memory`, prints per function the bytes kept between
    forward and backward (saved tensors plus activations backward reads;
    weights are parameters and not counted) before and after, per recipe.

    Before:
    ```mlir
    %y, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<>) {quantization = #hp}
        : ... saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
    %dx, %dw = teq.linear_backward %dy, %sx, %sw ...
    ```
    After:
    ```mlir
    %y = teq.linear_forward %x, %w config(#teq.linear<>) {quantization = #hp} : ...
    %dx, %dw = teq.linear_backward %dy, %x, %w ...
    ```
  }];
  let options = [
    Option<"printSavedMemory", "print-saved-memory", "bool", /*default=*/"false",
           "print the bytes kept between forward and backward, before and after">,
    Option<"recordSavedMemory", "record-saved-memory", "bool", /*default=*/"false",
           "record the same report on each function as the attribute "
           "teq.saved_memory = {before = {tensors, bytes, per_recipe}, after = ...}">
  ];
}

def SetTarget : Pass<"teq-set-target", "ModuleOp"> {
  let summary = "put a #teq.target on the module";
  let description = [{
    Sets `teq.target` on the module from the `target` option (e.g. `sm_90`,
    `sm_100a`), so a program written without one can be compiled for a GPU
    chosen on the command line. A module that already names a different
    target is an error, not silently retargeted.

    Before: `module {}`; after (`target=sm_90`):
    `module attributes {teq.target = #teq.target<sm_90>} {}`
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "the GPU, e.g. sm_90 or sm_100">
  ];
  // The module may have no teq op, so nothing has loaded the dialect whose
  // attribute the pass creates.
  let dependentDialects = ["::mlir::teq::TEQDialect"];
}

def DecomposeLinear : Pass<"teq-decompose-linear", "ModuleOp"> {
  let summary = "turn Linear forward/backward into quantize + GEMM + collectives";
  let description = [{
    Runs after `teq-infer-prototypes` (and `teq-dedupe-saved-tensors`).
    Each resolved Linear becomes TE's GEMMs (te-semantics.md §6.1):

    * forward: `fprop = gemm TN(w rowwise, x rowwise)` with the bias as
      epilogue; the saved tensors become quantizations of x and w in the
      usages backward reads;
    * backward: `dgrad = gemm NN(w columnwise, dy rowwise)` if
      requires_dgrad, `wgrad = gemm NT(x columnwise, dy columnwise)` if
      requires_wgrad, accumulated into the fp32 `main_grad` under
      fuse_wgrad_accumulation; dbias is `teq.bias_grad` of dy in FP8 mode
      (fused with dy's quantization later) and the wgrad GEMM's BGRADB
      epilogue in high precision;
    * each GEMM records `physical_layout`: TN wherever the target has no
      non-TN FP8 GEMM (Hopper per-tensor FP8, reading the transposed
      copies), always TN for NVFP4 and block FP8, the logical layout for
      MXFP8 and high precision;
    * GEMMs read MXFP8 / NVFP4 scales GEMM-swizzled (te-semantics.md §4.2):
      tensors the Linear quantizes get that layout directly; an operand
      with compact scales (gathered, or quantized by the caller) is left
      to `teq-legalize-gemm-operands`, which swizzles just before the GEMM
      as TE does (and casts an f32 bias of an FP8 GEMM to bf16);
    * delayed scaling slices each slot's scale and amax history from the
      Linear's state and puts the recorded histories back;
    * the quantization that rounds stochastically (grad_output under
      NVFP4BlockScaling) takes the Linear's `rng_state`; a rebuild in
      backward that would need it while another quantization of the op
      already uses it is an error (one Philox stream per op);
    * tensor and sequence parallelism become `teq.all_gather`,
      `teq.reduce_scatter` and `teq.all_reduce` on the Linear's group
      (§7); row-parallel biases are added after the reduction.

    Quantizations of one tensor are emitted per use and merged by
    `teq-quantize-cse`.

    Before:
    ```mlir
    %y, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<>) {quantization = #q} : ...
    ```
    After:
    ```mlir
    %xq = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #cs, rowwise>
    %wq = teq.quantize %w : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #cs, rowwise>
    %y = teq.gemm TN %wq, %xq {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>,
                               use_split_accumulator = false} : ...
    %sx = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #cs, columnwise>
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def LegalizeGemmOperands : Pass<"teq-legalize-gemm-operands"> {
  let summary = "give every teq.gemm the operands cuBLASLt takes, as TE does just before the call";
  let description = [{
    TE prepares a GEMM's operands in `general_gemm`, whoever produced them
    (te-semantics.md §6.1, §6.2); so does this pass, for every `teq.gemm`:

    * an MXFP8 or NVFP4 operand with compact scales (gathered, quantized by
      the caller, or written by hand) gets a `teq.swizzle_scales` just
      before the GEMM: cuBLASLt reads those scales GEMM-swizzled (§4.2);
    * an f32 bias of a GEMM on quantized (FP8/FP4) operands is cast to bf16
      (`arith.truncf`, round to nearest even): cuBLASLt's FP8 GEMMs take no
      f32 bias, and TE casts it so.

    Operands that are already right are left alone; a swizzle shared by two
    GEMMs of one operand is emitted once per GEMM and merged by CSE.

    Before (sm_100a):
    ```mlir
    %y = teq.gemm TN %wq, %xq bias(%b : tensor<256xf32>) {...}
        : !teq.proto<256x128xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>,
          !teq.proto<64x128xf32, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> -> tensor<64x256xf32>
    ```
    After:
    ```mlir
    %ws = teq.swizzle_scales %wq : ... -> !teq.proto<..., rowwise, gemm_swizzled>
    %xs = teq.swizzle_scales %xq : ... -> !teq.proto<..., rowwise, gemm_swizzled>
    %bb = arith.truncf %b : tensor<256xf32> to tensor<256xbf16>
    %y = teq.gemm TN %ws, %xs bias(%bb : tensor<256xbf16>) {...} : ... -> tensor<64x256xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def DecomposeActivations : Pass<"teq-decompose-activations"> {
  let summary = "rewrite teq.activation(_backward) into arith/math ops with TE's formulas";
  let description = [{
    The derivative of every activation lives here, once, rather than in
    each frontend. Each `teq.activation` and `teq.activation_backward`
    becomes arith/math ops on f32 tensors with TransformerEngine's formulas
    as written (te-layer-semantics.md §2.1, `common/util/math.h`; GELU's
    backward writes its tanh argument as `0.79788456 * x * (1 + 0.044715 *
    x * x)`, not as the forward does). The operands are upcast once
    (`arith.extf`, exact), everything computes in f32, and the result is
    rounded once (`arith.truncf`, round to nearest even) to its dtype: no
    intermediate bf16 rounding (§2.3). The GPU lowering fuses the ops into
    one elementwise kernel.

    * sigmoid is `1 / (1 + exp(-x))`; relu is `maxnumf(x, 0)` (a NaN gives
      0, as `fmaxf`); srelu is `relu(x)^2`; relu's derivative `x > 0 ? 1 :
      0` is `minnumf(maxnumf(x * 2^127 * 2^127, 0), 1)`, exact for every
      f32 (the smallest subnormal becomes 2^105; a NaN gives 0), since the
      elementwise kernels carry floating-point tensors only.
    * Gated kinds read the halves of `[..., 2n]` with `tensor.extract_slice`
      (offsets 0 and n) and the backward joins `[da | db]` with
      `tensor.concat` on the last dimension; the elementwise kernel loads
      and stores the halves in place (no copies).

    Before:
    ```mlir
    %y = teq.activation silu %x : tensor<64x256xbf16> -> tensor<64x256xbf16>
    ```
    After:
    ```mlir
    %xf = arith.extf %x : tensor<64x256xbf16> to tensor<64x256xf32>
    %neg = arith.negf %xf : tensor<64x256xf32>
    %e = math.exp %neg : tensor<64x256xf32>
    %d = arith.addf %one, %e : tensor<64x256xf32>
    %s = arith.divf %one, %d : tensor<64x256xf32>
    %yf = arith.mulf %xf, %s : tensor<64x256xf32>
    %y = arith.truncf %yf : tensor<64x256xf32> to tensor<64x256xbf16>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuseResidualAdds : Pass<"teq-fuse-residual-adds"> {
  let summary = "add a residual to a GEMM's output through the GEMM's C input (beta = 1)";
  let description = [{
    A transformer layer adds its residual to a GEMM's output (`h =
    proj(attn) + x`, `out = fc2(a) + h`). Unfused, that is an elementwise
    kernel reading two [tokens, hidden] tensors and writing a third after
    the GEMM wrote one of them; cuBLASLt adds it in the GEMM's epilogue:
    `D = A.B + C (+ bias)` with beta = 1, as TE's te.ops
    ForwardLinearBiasAdd does (te-layer-semantics.md §4).

    An `arith.addf` of a `teq.gemm` result and a tensor of the same type
    becomes the GEMM with `accumulate(%r)`, where the GEMM's result has no
    other reader, it does not accumulate already and it computes no dbias.

    Numerics: the sum is rounded once, with the product and the bias, in
    f32 (cuBLASLt's epilogue), where the unfused form rounds the GEMM's
    output and then the sum (te-layer-semantics.md §6: TE's fused op rounds
    as this does).

    Before:
    ```mlir
    %y = teq.gemm TN %wq, %xq bias(%b : tensor<256xbf16>) {use_split_accumulator = false} : ... -> tensor<64x256xbf16>
    %h = arith.addf %y, %r : tensor<64x256xbf16>
    ```
    After:
    ```mlir
    %h = teq.gemm TN %wq, %xq bias(%b : tensor<256xbf16>) accumulate(%r : tensor<64x256xbf16>) {use_split_accumulator = false} : ... -> tensor<64x256xbf16>
    ```
  }];
}

def FuseNormBackwardAdds : Pass<"teq-fuse-norm-backward-adds"> {
  let summary = "add a residual gradient to a norm backward's dx before its rounding (TE's rmsnorm_bwd_add)";
  let description = [{
    In a transformer layer's backward the gradient of a norm's input is the
    norm's dx plus the gradient arriving through the residual branch
    (`gx = g + dx`). Unfused, that is an elementwise kernel reading two
    [tokens, hidden] tensors and writing a third right after the norm's
    backward wrote dx; the norm's kernel adds it as it writes dx, as TE's
    `rmsnorm_bwd_add` does (te-layer-semantics.md §1.5, §4
    BackwardAddRMSNorm; here for LayerNorm too).

    An `arith.addf` of the dx of a `teq.layer_norm_backward` or
    `teq.rms_norm_backward` and a tensor of dx's type becomes the backward
    with that tensor as its `add`, where dx has no other reader and the
    backward has no `add` yet. The fused op goes where the norm was if the
    addend is defined before it, else where the add was (if the norm's
    other results are read only after it).

    Numerics: dx + add is computed in f32 and rounded once to dx's dtype,
    where the unfused form rounds dx and then the sum (TE's fused op rounds
    as this does).

    Before:
    ```mlir
    %dx, %dg = teq.rms_norm_backward %dy, %x, %rstd, %gamma : ...
    %gx = arith.addf %g, %dx : tensor<64x4096xbf16>
    ```
    After:
    ```mlir
    %gx, %dg = teq.rms_norm_backward %dy, %x, %rstd, %gamma, %g : ...
    ```
  }];
}

def CacheWeightQuantization : Pass<"teq-cache-weight-quantization", "ModuleOp"> {
  let summary = "split a forward marked teq.weight_cache into a weight-quantizing entry and a forward taking its copies";
  let description = [{
    TE's `is_first_microbatch`: with gradient accumulation the weights do
    not change between the microbatches of one optimizer step, so each
    weight needs quantizing (both usages) once per step, not once per
    microbatch. For every function `@f` with the unit attribute
    `teq.weight_cache`, after the Linears are decomposed, this pass adds

    * `@f_weights`: the parameters (`teq.role = "parameter"`) that `@f`
      quantizes, in, and their quantized copies, out (role
      `quantized_weight` of the parameter, named `<parameter>.quantized`,
      with a suffix where one parameter has several quantizations): the
      very `teq.quantize` ops of `@f`;
    * `@f_cached`: `@f` taking those copies as arguments (each after its
      parameter) instead of quantizing; a parameter nothing else reads is
      dropped from its arguments.

    `@f` stays as it was (minus the attribute). Numerics are unchanged: the
    same ops run, once. Quantizations that read more than the weight cannot
    be cached and are refused at the op: delayed scaling (its scale moves
    every step), stochastic rounding (fresh random bits each call) and an
    amax reduced over a process group.

    Before:
    ```mlir
    func.func @fwd(%x: tensor<64x128xbf16>,
                   %w: tensor<256x128xbf16> {teq.name = "fc1.weight", teq.role = "parameter"})
        -> tensor<64x256xbf16> attributes {teq.weight_cache} {
      %xq = teq.quantize %x : ... -> !teq.proto<64x128xbf16, #cs, rowwise>
      %wq = teq.quantize %w : ... -> !teq.proto<256x128xbf16, #cs, rowwise>
      %y = teq.gemm TN %wq, %xq {...} : ...
      return %y : tensor<64x256xbf16>
    }
    ```
    After (and `@fwd` without the attribute):
    ```mlir
    func.func @fwd_weights(%w: tensor<256x128xbf16> {teq.name = "fc1.weight", teq.role = "parameter"})
        -> (!teq.proto<256x128xbf16, #cs, rowwise> {teq.name = "fc1.weight.quantized",
            teq.role = "quantized_weight", teq.role_of = "fc1.weight"}) {
      %wq = teq.quantize %w : ... -> !teq.proto<256x128xbf16, #cs, rowwise>
      return %wq : ...
    }
    func.func @fwd_cached(%x: tensor<64x128xbf16>,
                          %wq: !teq.proto<256x128xbf16, #cs, rowwise> {...}) -> tensor<64x256xbf16> {
      %xq = teq.quantize %x : ... -> !teq.proto<64x128xbf16, #cs, rowwise>
      %y = teq.gemm TN %wq, %xq {...} : ...
      return %y : tensor<64x256xbf16>
    }
    ```
  }];
}

#endif // TEQ_DIALECT_TEQ_TRANSFORMS_PASSES_TD
