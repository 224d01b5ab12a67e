//===- TEQOps.td - Operations of the teq dialect ----------*- tablegen -*-===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQOPS_TD
#define TEQ_DIALECT_TEQ_IR_TEQOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "teq/Dialect/TEQ/IR/TEQBase.td"
include "teq/Dialect/TEQ/IR/TEQAttrs.td"
include "teq/Dialect/TEQ/IR/TEQTypes.td"

def TEQ_F32Tensor : RankedTensorOf<[F32]>;
/// The Philox state of stochastic rounding, (seed, offset); the verifiers
/// require the shape tensor<2xi64> with a message saying so.
def TEQ_RngStateTensor : RankedTensorOf<[I64]>;

//===----------------------------------------------------------------------===//
// Autocast
//===----------------------------------------------------------------------===//

def TEQ_AutocastOp : TEQ_Op<"autocast", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "a region quantized under one recipe (TE's te.autocast)";
  let description = [{
    The ops inside run under `recipe`; without a recipe, under the target's
    default recipe (TE's `get_default_recipe`); with `enabled = false`, in high
    precision. Regions nest and the innermost wins, for forward and backward
    ops alike. The optional process group is TE's `amax_reduction_group`
    (delayed scaling reduces amaxes over it). Values escape through
    `teq.yield`.

    ```mlir
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<>)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %out : tensor<64x256xbf16>
    }
    teq.autocast enabled(false) {
      ...
    }
    ```
  }];
  let arguments = (ins
    OptionalAttr<TEQ_RecipeAttrInterface>:$recipe,
    DefaultValuedAttr<BoolAttr, "true">:$enabled,
    Optional<TEQ_ProcessGroupType>:$amax_reduction_group);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`recipe` `(` $recipe^ `)`)? (`enabled` `(` $enabled^ `)`)?
    (`amax_reduction_group` `(` $amax_reduction_group^ `)`)?
    (`->` type($results)^)? $body attr-dict
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes,
                   "::mlir::teq::RecipeAttrInterface":$recipe,
                   CArg<"bool", "true">:$enabled)>
  ];
}

def TEQ_YieldOp : TEQ_Op<"yield", [
    Pure, Terminator, ReturnLike, HasParent<"AutocastOp">]> {
  let summary = "values leaving a teq.autocast region";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* nothing */ }]>];
}

//===----------------------------------------------------------------------===//
// Quantized tensors
//===----------------------------------------------------------------------===//

def TEQ_QuantizeOp : TEQ_Op<"quantize", [Pure, AttrSizedOperandSegments]> {
  let summary = "quantize a high-precision tensor with the quantizer of its result type";
  let description = [{
    Quantizes `input` into the usages of the result `!teq.proto`. A stateful
    (delayed-scaling) quantizer takes its state explicitly: `state(%scale,
    %amax_history)` with the stored scale (`tensor<1xf32>`) and the amax
    history of its slot (`tensor<Lxf32>`); the op returns the history with
    this input's amax recorded. A quantizer with `with_amax_reduction = true`
    takes the process group to reduce over. A delayed-scaling quantizer
    (`Float8Quantizer`) may take one too: it records only its own amax (TE
    reduces the recorded amaxes at the scale update,
    `teq.delayed_scaling_update ... amax_reduction_group`), and the group
    says that the update keeps its scale equal on every rank of the group,
    which is what lets its data be all-gathered in FP8.

    An NVFP4 quantizer with `stochastic_rounding = true` takes the state of
    its random bits explicitly: `rng_state(%rng : tensor<2xi64>)` holding
    (seed, offset) of the Philox4x32-10 stream (include/teq/Reference/
    Random.h: element `i` of the rowwise copy draws word
    `philox(seed, offset, i)`, the columnwise copy uses `offset ^ 2^63`).
    Other quantizers take none.

    ```mlir
    %q = teq.quantize %x : tensor<128x256xbf16>
        -> !teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    %q2, %hist1 = teq.quantize %x state(%scale, %hist : tensor<1xf32>, tensor<1024xf32>)
        : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise>,
          tensor<1024xf32>
    %q3 = teq.quantize %dy rng_state(%rng : tensor<2xi64>) : tensor<128x256xbf16>
        -> !teq.proto<128x256xbf16, #teq.nvfp4_quantizer<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$input,
    Optional<TEQ_F32Tensor>:$scale,
    Optional<TEQ_F32Tensor>:$amax_history,
    Optional<TEQ_RngStateTensor>:$rng_state,
    Optional<TEQ_ProcessGroupType>:$amax_reduction_group);
  let results = (outs
    TEQ_TensorProtoType:$result,
    Optional<TEQ_F32Tensor>:$updated_amax_history);
  let assemblyFormat = [{
    $input
    (`state` `(` $scale^ `,` $amax_history `:` type($scale) `,` type($amax_history) `)`)?
    (`rng_state` `(` $rng_state^ `:` type($rng_state) `)`)?
    (`amax_reduction_group` `(` $amax_reduction_group^ `)`)?
    attr-dict `:` type($input) `->` qualified(type($result)) (`,` type($updated_amax_history)^)?
  }];
  let hasVerifier = 1;
  // Canonicalization drops usages no user reads (e.g. a forward-only
  // program never reads the columnwise copy saved for backward).
  let hasCanonicalizer = 1;
}

def TEQ_DequantizeOp : TEQ_Op<"dequantize", [Pure]> {
  let summary = "turn a quantized tensor back into high precision";
  let description = [{
    ```mlir
    %x = teq.dequantize %q : !teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
        -> tensor<128x256xf32>
    ```
  }];
  let arguments = (ins TEQ_TensorProtoType:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` type($result)";
  let hasVerifier = 1;
}

def TEQ_CreateTensorOp : TEQ_Op<"create_tensor", [Pure]> {
  let summary = "an empty quantized tensor of a prototype (TE's make_empty)";
  let description = [{
    Allocates the inner buffers the prototype describes, without data.

    ```mlir
    %t = teq.create_tensor : !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
    ```
  }];
  let results = (outs TEQ_TensorProtoType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

def TEQ_UpdateUsageOp : TEQ_Op<"update_usage", [Pure]> {
  let summary = "change which usages a quantized tensor holds";
  let description = [{
    Dropping a usage is always allowed. Adding one is allowed only where it
    can be derived from the usage held without the high-precision tensor:
    per-tensor FP8 (the transposed copy is the same bytes transposed) and 2D
    block FP8 (data and scales transpose exactly). 1D block, MXFP8 and NVFP4
    scale rows and columns differently, so their other usage must be
    quantized from the high-precision tensor.

    ```mlir
    %c = teq.update_usage %q : !teq.proto<64x128xbf16, #q, rowwise|columnwise>
        -> !teq.proto<64x128xbf16, #q, columnwise>
    ```
  }];
  let arguments = (ins TEQ_TensorProtoType:$input);
  let results = (outs TEQ_TensorProtoType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TEQ_SwizzleScalesOp : TEQ_Op<"swizzle_scales", [Pure]> {
  let summary = "reorder MXFP8/NVFP4 block scales into the layout GEMMs read";
  let description = [{
    cuBLASLt reads MXFP8 and NVFP4 block scales in 128x4 tiles
    (te-semantics.md §4.2, the "GEMM swizzle"). A tensor quantized with
    compact scales (kept for communication or given by the caller) gets this
    op just before its GEMM, as TE's `swizzle_scales_for_gemm` does. The
    result holds the same data (and amaxes) and the same scales, each moved to
    its swizzled byte; only the scale layout differs, so the result is
    bit-identical to quantizing with `gemm_swizzled` in the first place.

    ```mlir
    %s = teq.swizzle_scales %q
        : !teq.proto<256x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>
        -> !teq.proto<256x512xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled>
    ```
  }];
  let arguments = (ins TEQ_TensorProtoType:$input);
  let results = (outs TEQ_TensorProtoType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def TEQ_DelayedScalingUpdateOp : TEQ_Op<"delayed_scaling_update", [
    Pure, AllTypesMatch<["scale", "updated_scale"]>,
    AllTypesMatch<["amax_history", "updated_amax_history"]>]> {
  let summary = "the delayed-scaling update step: roll the history, new scales";
  let description = [{
    TE's fused `amax_and_scale_update_after_reduction` (te-semantics.md
    §5.2) for S quantizer slots: `scale` is `tensor<S x f32>` and
    `amax_history` `tensor<L x S x f32>` (`tensor<L x f32>` for one slot).
    Per slot, with `last = history[0]`: if `last != 0` the history rolls
    (`new[i] = old[i+1]`, `new[L-1] = last`, `new[0] = 0`); the amax is the
    max of that window (`max`) or `last` (`most_recent`); the scale becomes
    `fp8_max * 2^-margin / amax` where the amax is finite and positive (else
    it stays), `FLT_MAX` if that overflows. `fp8_dtype` gives fp8_max (448
    or 57344).

    With an `amax_reduction_group` (DelayedScaling's `reduce_amax` under an
    autocast `amax_reduction_group`, te-semantics.md §5.2) row 0, the amaxes
    each rank recorded, is first all-reduced (max) over the group, all slots
    in one all-reduce, and `last` is the reduced value where it is non-zero
    (else `history[0]`), as TE's `amax_and_scale_update_after_reduction`:
    every rank then computes the same scales. The caller's history is not
    changed; the updated history holds the reduced amax.

    ```mlir
    %s1, %h1 = teq.delayed_scaling_update %s0, %h0 {fp8_dtype = f8E4M3FN, margin = 0 : i64}
        : tensor<3xf32>, tensor<1024x3xf32>
    %s2, %h2 = teq.delayed_scaling_update %s0, %h0 amax_reduction_group(%g)
        {fp8_dtype = f8E4M3FN} : tensor<3xf32>, tensor<1024x3xf32>
    ```
  }];
  let arguments = (ins
    TEQ_F32Tensor:$scale,
    TEQ_F32Tensor:$amax_history,
    Optional<TEQ_ProcessGroupType>:$amax_reduction_group,
    TypeAttr:$fp8_dtype,
    DefaultValuedAttr<I64Attr, "0">:$margin,
    DefaultValuedAttr<TEQ_AmaxComputeAlgoAttr,
                      "::mlir::teq::AmaxComputeAlgo::max">:$amax_compute_algo);
  let results = (outs TEQ_F32Tensor:$updated_scale,
                      TEQ_F32Tensor:$updated_amax_history);
  let assemblyFormat = [{
    $scale `,` $amax_history
    (`amax_reduction_group` `(` $amax_reduction_group^ `)`)?
    attr-dict `:` type($scale) `,` type($amax_history)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear
//===----------------------------------------------------------------------===//

def TEQ_LinearForwardOp : TEQ_Op<"linear_forward", [
    AttrSizedOperandSegments, AttrSizedResultSegments]> {
  let summary = "TE Linear forward: y = x * w^T (+ bias), with saved tensors";
  let description = [{
    `input` is `[*, in]` (sequence-first), `weight` `[out, in]`, `bias`
    `[out]` (local shards under tensor parallelism, te-semantics.md §7).
    Operands may already be quantized. The tensors backward needs are
    explicit results: `saved_input` (the input in the usage wgrad reads,
    or the high-precision input under `save_original_input`) and
    `saved_weight` (the weight in the usage dgrad reads). Before prototype
    inference they have the high-precision types; a saved slot removed by
    dedupe is rebuilt in backward from the original value.

    `quantization` is set by `teq-resolve-autocast`: the quantizers and GEMM
    flags this Linear runs with.

    Under delayed scaling the op takes the recipe state of its three forward
    slots (input, weight, output): `state(%scale, %amax_history)` with
    `tensor<3xf32>` and `tensor<Lx3xf32>`, and returns the updated history.
    A Linear whose input or weight quantizer rounds stochastically (NVFP4
    `stochastic_rounding`, only through a CustomRecipe) takes the Philox
    state of that quantization: `rng_state(%rng : tensor<2xi64>)`, (seed,
    offset); `teq-decompose-linear` passes it to the `teq.quantize`.
    A tensor-parallel Linear (`tp_size > 1`) takes its process group.

    ```mlir
    %y, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<256xbf16>)
        config(#teq.linear<bias = true>)
        : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
          saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
    ```
  }];
  let arguments = (ins
    TEQ_AnyTensorOrProto:$input,
    TEQ_AnyTensorOrProto:$weight,
    Optional<AnyRankedTensor>:$bias,
    Optional<TEQ_F32Tensor>:$scale,
    Optional<TEQ_F32Tensor>:$amax_history,
    Optional<TEQ_RngStateTensor>:$rng_state,
    Optional<TEQ_ProcessGroupType>:$tp_group,
    TEQ_LinearConfigAttr:$config,
    OptionalAttr<TEQ_LinearQuantizationAttr>:$quantization);
  let results = (outs
    AnyRankedTensor:$output,
    Optional<TEQ_AnyTensorOrProto>:$saved_input,
    Optional<TEQ_AnyTensorOrProto>:$saved_weight,
    Optional<TEQ_F32Tensor>:$updated_amax_history);
  let assemblyFormat = [{
    $input `,` $weight (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`state` `(` $scale^ `,` $amax_history `:` type($scale) `,` type($amax_history) `)`)?
    (`rng_state` `(` $rng_state^ `:` type($rng_state) `)`)?
    (`tp_group` `(` $tp_group^ `)`)?
    `config` `(` qualified($config) `)` attr-dict
    `:` type($input) `,` type($weight) `->` type($output)
    (`saved_input` `(` type($saved_input)^ `)`)?
    (`saved_weight` `(` type($saved_weight)^ `)`)?
    (`updated_amax_history` `(` type($updated_amax_history)^ `)`)?
  }];
  let hasVerifier = 1;
}

def TEQ_LinearBackwardOp : TEQ_Op<"linear_backward", [
    AttrSizedOperandSegments, AttrSizedResultSegments]> {
  let summary = "TE Linear backward: dgrad, wgrad and dbias from the saved tensors";
  let description = [{
    `grad_output` has the forward output's shape; `input` and `weight` are
    the saved tensors of the matching `teq.linear_forward` (or, after dedupe,
    the original values). Results follow the config: `dgrad` (the input's
    shape) iff `requires_dgrad`, `wgrad` (the weight's shape) iff
    `requires_wgrad`, `dbias` iff the Linear has a bias and `requires_wgrad`.
    With `fuse_wgrad_accumulation` the fp32 `main_grad` is an operand and
    `wgrad` is `main_grad + dw`. Delayed scaling passes the state of the two
    backward slots (grad_output, grad_input): `tensor<2xf32>`,
    `tensor<Lx2xf32>`. NVFP4BlockScaling rounds grad_output stochastically
    by default (te-semantics.md §1.6): such a Linear takes the Philox state
    of that quantization, `rng_state(%rng : tensor<2xi64>)` = (seed,
    offset), which `teq-decompose-linear` passes to its `teq.quantize`.
    Advance the offset (or change the seed) every step, as TE's generator
    does, or every step rounds with the same bits.

    ```mlir
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<>)
        : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
          dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$grad_output,
    TEQ_AnyTensorOrProto:$input,
    TEQ_AnyTensorOrProto:$weight,
    Optional<TEQ_F32Tensor>:$main_grad,
    Optional<TEQ_F32Tensor>:$scale,
    Optional<TEQ_F32Tensor>:$amax_history,
    Optional<TEQ_RngStateTensor>:$rng_state,
    Optional<TEQ_ProcessGroupType>:$tp_group,
    TEQ_LinearConfigAttr:$config,
    OptionalAttr<TEQ_LinearQuantizationAttr>:$quantization);
  let results = (outs
    Optional<AnyRankedTensor>:$dgrad,
    Optional<AnyRankedTensor>:$wgrad,
    Optional<AnyRankedTensor>:$dbias,
    Optional<TEQ_F32Tensor>:$updated_amax_history);
  let assemblyFormat = [{
    $grad_output `,` $input `,` $weight
    (`main_grad` `(` $main_grad^ `:` type($main_grad) `)`)?
    (`state` `(` $scale^ `,` $amax_history `:` type($scale) `,` type($amax_history) `)`)?
    (`rng_state` `(` $rng_state^ `:` type($rng_state) `)`)?
    (`tp_group` `(` $tp_group^ `)`)?
    `config` `(` qualified($config) `)` attr-dict
    `:` type($grad_output) `,` type($input) `,` type($weight)
    (`dgrad` `(` type($dgrad)^ `)`)?
    (`wgrad` `(` type($wgrad)^ `)`)?
    (`dbias` `(` type($dbias)^ `)`)?
    (`updated_amax_history` `(` type($updated_amax_history)^ `)`)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

def TEQ_GemmOp : TEQ_Op<"gemm", [Pure, AttrSizedOperandSegments]> {
  let summary = "TE's general_gemm: D = op_B(B) * op_A(A) (+ bias) (+ C)";
  let description = [{
    Row-major semantics of TE's `general_gemm(A, B, layout)`: `layout[0]`
    transposes A, `layout[1]` transposes B; `D = op_B(B) . op_A(A)`. With
    A `[A0, A1]` and B flattened to `[B0, B1]`: `m = transa ? A0 : A1`,
    `k = transa ? A1 : A0`, `n = transb ? B1 : B0`, and D is B's leading
    dims (or `[B1]` if transb) followed by `[m]`. A quantized A is read
    rowwise if transa, else columnwise; a quantized B columnwise if transb,
    else rowwise.

    `bias` (`[m]`) is the BIAS epilogue; `accumulate(%c)` adds C (beta = 1,
    e.g. an fp32 main_grad); a second result is the BGRADB epilogue's bias
    gradient (`[n]`, summed over B). `use_split_accumulator = false` enables
    FP8 fast accumulation. `kind` records which Linear GEMM this is.
    `physical_layout` is the layout cuBLASLt runs on the target's buffers
    (te-semantics.md §6.3): Hopper per-tensor FP8, NVFP4 and block FP8 run
    everything TN by reading the transposed (columnwise) copies.

    ```mlir
    %y = teq.gemm TN %wq, %xq bias(%b : tensor<256xbf16>) {use_split_accumulator = false}
        : !teq.proto<256x128xbf16, #q, rowwise>, !teq.proto<64x128xbf16, #q, rowwise>
          -> tensor<64x256xbf16>
    ```
  }];
  let arguments = (ins
    TEQ_AnyTensorOrProto:$a,
    TEQ_AnyTensorOrProto:$b,
    Optional<AnyRankedTensor>:$bias,
    Optional<AnyRankedTensor>:$accumulate,
    TEQ_GemmLayoutAttr:$layout,
    DefaultValuedAttr<BoolAttr, "true">:$use_split_accumulator,
    OptionalAttr<TEQ_GemmKindAttr>:$kind,
    OptionalAttr<TEQ_GemmLayoutAttr>:$physical_layout);
  let results = (outs
    AnyRankedTensor:$result,
    Optional<AnyRankedTensor>:$dbias);
  let assemblyFormat = [{
    custom<GemmLayout>($layout) $a `,` $b (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`accumulate` `(` $accumulate^ `:` type($accumulate) `)`)?
    attr-dict `:` type($a) `,` type($b) `->` type($result) (`,` type($dbias)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool isTransA() { return getLayout() == GemmLayout::TN || getLayout() == GemmLayout::TT; }
    bool isTransB() { return getLayout() == GemmLayout::NT || getLayout() == GemmLayout::TT; }
  }];
}

//===----------------------------------------------------------------------===//
// Pieces of a decomposed Linear
//===----------------------------------------------------------------------===//

def TEQ_BiasGradOp : TEQ_Op<"bias_grad", [Pure]> {
  let summary = "dbias: the sum of a gradient over all but its last dimension";
  let description = [{
    TE fuses this with the grad_output quantization in FP8 mode (bgrad +
    quantize); the lowering fuses it with the `teq.quantize` of the same
    tensor.

    ```mlir
    %db = teq.bias_grad %dy : tensor<64x256xbf16> -> tensor<256xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def TEQ_BiasAddOp : TEQ_Op<"bias_add", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "y + bias, broadcast over all but the last dimension";
  let description = [{
    Row-parallel Linears add their bias after the output reduction instead
    of in the GEMM epilogue (TE's gemm_bias_unfused_add).

    ```mlir
    %z = teq.bias_add %y, %b : tensor<64x256xbf16>, tensor<256xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$bias);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $bias attr-dict `:` type($input) `,` type($bias)
  }];
  let hasVerifier = 1;
}

class TEQ_CollectiveOp<string mnemonic> : TEQ_Op<mnemonic, []> {
  let arguments = (ins TEQ_AnyTensorOrProto:$input,
                       TEQ_ProcessGroupType:$group,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$tp_size);
  let results = (outs TEQ_AnyTensorOrProto:$result);
  let assemblyFormat = [{
    $input `,` $group attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TEQ_AllGatherOp : TEQ_CollectiveOp<"all_gather"> {
  let summary = "all-gather along dim 0 over the TP group (NCCL)";
  let description = [{
    Sequence-parallel Linears gather their (possibly quantized) activations
    along the leading, sequence dimension: `[S/tp, ...] -> [S, ...]`. A
    quantized tensor keeps its quantizer and usage (per-tensor FP8 gathers
    only rowwise data; block formats gather compact scales).

    ```mlir
    %full = teq.all_gather %x, %tp {tp_size = 2 : i64} : tensor<32x128xbf16> -> tensor<64x128xbf16>
    ```
  }];
}

def TEQ_ReduceScatterOp : TEQ_CollectiveOp<"reduce_scatter"> {
  let summary = "sum over the TP group, scattered along dim 0 (NCCL)";
  let description = [{
    `[S, ...] -> [S/tp, ...]`: row-parallel SP outputs and column-parallel SP
    dgrads.

    ```mlir
    %part = teq.reduce_scatter %y, %tp {tp_size = 2 : i64} : tensor<64x256xbf16> -> tensor<32x256xbf16>
    ```
  }];
}

def TEQ_AllReduceOp : TEQ_CollectiveOp<"all_reduce"> {
  let summary = "sum over the TP group (NCCL)";
  let description = [{
    Row-parallel outputs and column-parallel dgrads without sequence
    parallelism.

    ```mlir
    %sum = teq.all_reduce %y, %tp {tp_size = 2 : i64} : tensor<64x256xbf16> -> tensor<64x256xbf16>
    ```
  }];
}

// Op families with a file of their own.
include "teq/Dialect/TEQ/IR/TEQNormOps.td"
include "teq/Dialect/TEQ/IR/TEQActivationOps.td"

#endif // TEQ_DIALECT_TEQ_IR_TEQOPS_TD
