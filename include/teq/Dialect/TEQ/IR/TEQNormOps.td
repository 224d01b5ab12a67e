//===- TEQNormOps.td - Normalization ops (LayerNorm, RMSNorm) -*- tablegen -*-===//
//
// Included by TEQOps.td (one generated op list for the dialect).
//
// TE's LayerNorm and RMSNorm (te-layer-semantics.md §1): `x` of rank >= 2
// is normalised over its last dimension (N); the leading dimensions are M
// rows. Everything is computed in f32; the forward saves the f32 statistics
// [M] the backward reads. Verifiers and shared checks: TEQNormOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQNORMOPS_TD
#define TEQ_DIALECT_TEQ_IR_TEQNORMOPS_TD

/// bf16, f16 or f32 tensors (x, gamma, beta and their gradients).
def TEQ_NormTensor : RankedTensorOf<[BF16, F16, F32]>;

def TEQ_LayerNormOp : TEQ_Op<"layer_norm", [Pure]> {
  let summary = "LayerNorm forward (TE's layernorm_fwd): y, mean and rstd";
  let description = [{
    Per row of `x` (its last dimension, n elements), in f32:
    `mean = (sum x) * rn` with `rn = fl32(1/n)`, `var = (sum (x - mean)^2) * rn`
    (two passes), `rstd = rsqrt(var + eps)` and
    `y = g * (rstd * (x - mean)) + b`, where `g = gamma` (`gamma + 1` with
    `zero_centered_gamma`, computed in f32) and `b = beta` (0 without one).
    `y` is rounded once to x's dtype; `mean` and `rstd` are f32 [M], M the
    product of x's leading dimensions, as TE saves them for the backward.

    `gamma` and `beta` are [n], of x's dtype or f32 (TE's weight types).

    ```mlir
    %y, %mean, %rstd = teq.layer_norm %x, %gamma, %beta {eps = 1.0e-05 : f32}
        : (tensor<256x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
        -> (tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>)
    ```
  }];
  let arguments = (ins
    TEQ_NormTensor:$x,
    TEQ_NormTensor:$gamma,
    Optional<TEQ_NormTensor>:$beta,
    DefaultValuedAttr<F32Attr, "1e-5f">:$eps,
    UnitAttr:$zero_centered_gamma);
  let results = (outs
    TEQ_NormTensor:$y,
    TEQ_F32Tensor:$mean,
    TEQ_F32Tensor:$rstd);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def TEQ_LayerNormBackwardOp : TEQ_Op<"layer_norm_backward", [Pure]> {
  let summary = "LayerNorm backward (TE's layernorm_bwd): dx, dgamma, dbeta";
  let description = [{
    From the forward's saved `x`, `mean` and `rstd` and the gradient `dy` of
    its output, in f32 per row: `y = rstd * (x - mean)`, `dz = g * dy`,
    `mdy = (sum dz) * rn`, `mdyy = (sum dz * y) * rn` and
    `dx = rstd * (dz - (mdyy * y + mdy))` (x's dtype); over the rows
    `dgamma = sum dy * y` and `dbeta = sum dy` (gamma's dtype, accumulated in
    f32 and rounded once). `g` is gamma, or gamma + 1 with
    `zero_centered_gamma` (as the forward). (TE names the incoming gradient
    dz and g * dz dy; these names follow the op's operands.)

    With `add` (x's shape and dtype: the gradient of a residual branch that
    the norm's dx is summed with), `dx = rstd * (...) + add`, added in f32
    before dx's one rounding, as TE's `rmsnorm_bwd_add`
    (te-layer-semantics.md §1.5); `arith.addf` of dx and `add` rounds twice.
    teq-fuse-norm-backward-add folds that add into the op.

    ```mlir
    %dx, %dgamma, %dbeta = teq.layer_norm_backward %dy, %x, %mean, %rstd, %gamma
        : (tensor<256x1024xbf16>, tensor<256x1024xbf16>, tensor<256xf32>,
           tensor<256xf32>, tensor<1024xbf16>)
        -> (tensor<256x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
    ```
  }];
  let arguments = (ins
    TEQ_NormTensor:$dy,
    TEQ_NormTensor:$x,
    TEQ_F32Tensor:$mean,
    TEQ_F32Tensor:$rstd,
    TEQ_NormTensor:$gamma,
    Optional<TEQ_NormTensor>:$add,
    UnitAttr:$zero_centered_gamma);
  let results = (outs
    TEQ_NormTensor:$dx,
    TEQ_NormTensor:$dgamma,
    TEQ_NormTensor:$dbeta);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def TEQ_RMSNormOp : TEQ_Op<"rms_norm", [Pure]> {
  let summary = "RMSNorm forward (TE's rmsnorm_fwd): y and rstd";
  let description = [{
    Per row of `x`, in f32: `rstd = rsqrt((sum x^2) * rn + eps)` with
    `rn = fl32(1/n)` and `y = g * (rstd * x)` (g as in `teq.layer_norm`),
    rounded once to x's dtype; `rstd` is f32 [M]. `gamma` is [n], of x's
    dtype or f32. This is TE's general-kernel formula (its tuned kernels
    rebuild the mean square as var + mean^2: te-layer-semantics.md §1.3).

    ```mlir
    %y, %rstd = teq.rms_norm %x, %gamma {eps = 1.0e-05 : f32, zero_centered_gamma}
        : (tensor<64x4096xbf16>, tensor<4096xbf16>)
        -> (tensor<64x4096xbf16>, tensor<64xf32>)
    ```
  }];
  let arguments = (ins
    TEQ_NormTensor:$x,
    TEQ_NormTensor:$gamma,
    DefaultValuedAttr<F32Attr, "1e-5f">:$eps,
    UnitAttr:$zero_centered_gamma);
  let results = (outs
    TEQ_NormTensor:$y,
    TEQ_F32Tensor:$rstd);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def TEQ_RMSNormBackwardOp : TEQ_Op<"rms_norm_backward", [Pure]> {
  let summary = "RMSNorm backward (TE's rmsnorm_bwd): dx and dgamma";
  let description = [{
    In f32 per row: `y = rstd * x`, `dz = g * dy`, `mdyy = (sum dz * y) * rn`,
    `dx = rstd * (dz - mdyy * y)` (x's dtype); over the rows
    `dgamma = sum dy * y` (gamma's dtype, rounded once). With `add` (x's
    shape and dtype), `dx = rstd * (dz - mdyy * y) + add` in f32, rounded
    once: TE's `rmsnorm_bwd_add` (as `teq.layer_norm_backward`'s `add`).

    ```mlir
    %dx, %dgamma = teq.rms_norm_backward %dy, %x, %rstd, %gamma, %residual_grad
        : (tensor<64x4096xbf16>, tensor<64x4096xbf16>, tensor<64xf32>,
           tensor<4096xbf16>, tensor<64x4096xbf16>)
        -> (tensor<64x4096xbf16>, tensor<4096xbf16>)
    ```

    ```mlir
    %dx, %dgamma = teq.rms_norm_backward %dy, %x, %rstd, %gamma
        : (tensor<64x4096xbf16>, tensor<64x4096xbf16>, tensor<64xf32>,
           tensor<4096xbf16>)
        -> (tensor<64x4096xbf16>, tensor<4096xbf16>)
    ```
  }];
  let arguments = (ins
    TEQ_NormTensor:$dy,
    TEQ_NormTensor:$x,
    TEQ_F32Tensor:$rstd,
    TEQ_NormTensor:$gamma,
    Optional<TEQ_NormTensor>:$add,
    UnitAttr:$zero_centered_gamma);
  let results = (outs
    TEQ_NormTensor:$dx,
    TEQ_NormTensor:$dgamma);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // TEQ_DIALECT_TEQ_IR_TEQNORMOPS_TD
