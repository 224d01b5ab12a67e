//===- TEQActivationOps.td - Activation ops (GELU, SiLU, gated GLUs) -*- tablegen -*-===//
//
// Included by TEQOps.td (one generated op list for the dialect).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQACTIVATIONOPS_TD
#define TEQ_DIALECT_TEQ_IR_TEQACTIVATIONOPS_TD

def TEQ_HighPrecisionTensor : RankedTensorOf<[BF16, F16, F32]>;

def TEQ_ActivationOp : TEQ_Op<"activation", [Pure]> {
  let summary = "an activation function, TE's formulas (GELU, SiLU, SwiGLU, ...)";
  let description = [{
    Applies the activation `kind` elementwise with TransformerEngine's
    formulas (te-layer-semantics.md §2.1, `common/util/math.h`), computed in
    f32 from the upcast input and rounded once to the result's dtype, as
    TE's kernels do (§2.3).

    | kind | y = f(x) |
    |---|---|
    | `gelu` | TE's tanh form: `x * (0.5 + 0.5 * tanh(x * (0.79788456 + 0.03567741 * x * x)))` |
    | `gelu_erf` | PyTorch's exact GELU (`approximate='none'`): `x * 0.5 * (1 + erf(x * sqrt(1/2)))`; TE has no kernel for it |
    | `qgelu` | `x * sigmoid(1.702 * x)` |
    | `silu` | `x * sigmoid(x)` |
    | `relu` | `max(x, 0)` (NaN gives 0) |
    | `srelu` | `x > 0 ? x * x : 0` |
    | `tanh` | `tanh(x)` |
    | `sigmoid` | `1 / (1 + exp(-x))` |

    The gated kinds take `[..., 2n]` and give `[..., n]`: the first half
    `a = x[..., :n]` is activated, the second `b = x[..., n:]` is linear,
    `y = f(a) * b` (TE's half order, §2.2): `geglu` (gelu), `qgeglu`
    (qgelu), `reglu` (relu), `sreglu` (srelu), `swiglu` (silu), `glu`
    (sigmoid). Otherwise the result has the input's shape. The result has
    the input's dtype (bf16, f16 or f32).

    `teq-decompose-activations` rewrites the op into arith/math ops on f32
    tensors, which the GPU lowering fuses into one elementwise kernel.

    ```mlir
    %y = teq.activation gelu %h : tensor<64x256xbf16> -> tensor<64x256xbf16>
    %s = teq.activation swiglu %g : tensor<64x512xbf16> -> tensor<64x256xbf16>
    ```
  }];
  let arguments = (ins TEQ_ActivationKind:$kind,
                       TEQ_HighPrecisionTensor:$input);
  let results = (outs TEQ_HighPrecisionTensor:$result);
  let assemblyFormat = [{
    $kind $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether `kind` is a gated (GLU-family) activation: [..., 2n] -> [..., n].
    static bool isGated(ActivationKind kind);
  }];
}

def TEQ_ActivationBackwardOp : TEQ_Op<"activation_backward", [
    Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "the gradient of teq.activation: dx from dy and the input x";
  let description = [{
    `dx = f'(x) * dy` with TE's derivative formulas (te-layer-semantics.md
    §2.1; GELU's tanh argument is written `0.79788456 * x * (1 + 0.044715 *
    x * x)` here, not as in the forward), computed in f32 from the upcast
    operands and rounded once to `x`'s dtype. `dy` has the forward result's
    shape; `dx` has `x`'s type.

    For the gated kinds (`x = [a | b]`, `[..., 2n]`; `dy` `[..., n]`) the
    result is `[da | db]` with `da = (f'(a) * dy) * b` and `db = dy * f(a)`
    (TE's `dgated_act_kernel`, §2.2). `gelu_erf` follows PyTorch's exact
    GELU backward: `dy * (0.5 * (1 + erf(x * sqrt(1/2))) + x * exp(-0.5 * x * x) * (2/sqrt(pi)) * sqrt(1/2) * 0.5)`.

    ```mlir
    %dh = teq.activation_backward gelu %dy, %h : tensor<64x256xbf16>, tensor<64x256xbf16>
    %dg = teq.activation_backward swiglu %dy, %g : tensor<64x256xbf16>, tensor<64x512xbf16>
    ```
  }];
  let arguments = (ins TEQ_ActivationKind:$kind,
                       TEQ_HighPrecisionTensor:$grad,
                       TEQ_HighPrecisionTensor:$input);
  let results = (outs TEQ_HighPrecisionTensor:$result);
  let assemblyFormat = [{
    $kind $grad `,` $input attr-dict `:` type($grad) `,` type($input)
  }];
  let hasVerifier = 1;
}

#endif // TEQ_DIALECT_TEQ_IR_TEQACTIVATIONOPS_TD
