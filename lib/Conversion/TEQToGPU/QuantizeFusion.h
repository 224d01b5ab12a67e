//===- QuantizeFusion.h - Work a quantization's kernels do on the way -*- C++ -*-===//
//
// Fusions into per-tensor FP8 quantizations, decided on the IR before the
// buffers are planned (names of te-compile's --disable-fusion):
//   bias-grad   a teq.bias_grad of the tensor a transposing cast reads
//               (a gradient quantized for dgrad and wgrad) sums its
//               columns in that cast, as TE's bgrad + quantize does: the
//               bias gradient's own pass over the tensor is gone, only its
//               ordered final sum remains. The op is moved just after the
//               quantization and marked (kSummedByCastAttr).
//   amax        a current-scaling quantization of a tensor an elementwise
//               kernel stores (an activation, its gradient) or a norm's y
//               takes its amax from that kernel, which folds max|stored
//               value| over its blocks and computes the scale in its last
//               block (TE's activation and norm kernels writing the amax
//               with their output, FUSED_NORM_AMAX_FP8): the
//               amax pass over the tensor is gone, only the cast remains.
//               The amax is of the stored (rounded) values, the tensor the
//               cast reads, so the result is bit for bit the unfused one.
//               Marked on the quantization (kAmaxFromProducerAttr); its
//               scratch, [scale, scale_inv], lives from the producer on.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_QUANTIZEFUSION_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_QUANTIZEFUSION_H

#include "Kernels/PerTensorFP8.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::teq::lowering {

/// Which fusions run (convert-teq-to-gpu's disabled-fusions).
struct FusionOptions {
  bool biasGrad = true;
  bool amax = true;
};

/// The discardable attribute on a teq.bias_grad whose column sums the
/// quantization just before it computes.
constexpr llvm::StringLiteral kSummedByCastAttr = "teq.summed_by_cast";

/// The discardable attribute on a current-scaling teq.quantize whose scale
/// the elementwise kernel producing its input computes.
constexpr llvm::StringLiteral kAmaxFromProducerAttr = "teq.amax_from_producer";

/// Plans the fusions of `entry` (moving and marking ops) that `options`
/// allow.
void planQuantizeFusions(func::FuncOp entry, TargetAttr target,
                         const FusionOptions &options);

/// The teq.bias_grad whose first pass `quantize`'s cast does, or null.
BiasGradOp biasGradSummedBy(QuantizeOp quantize);

/// Whether `quantize`'s scale comes from the kernel producing its input.
inline bool takesProducerAmax(QuantizeOp quantize) {
  return quantize->hasAttr(kAmaxFromProducerAttr);
}

/// The quantization of `v` that takes its amax from `v`'s producer, or null.
QuantizeOp quantizeTakingAmaxOf(Value v);

/// What the producer of `quantize`'s input needs to compute its scale into
/// `scale` (the quantization's scratch).
kernels::ProducerAmax producerAmaxFor(QuantizeOp quantize, Value scale);

/// Whether `op`'s first pass is done by the quantization before it.
inline bool isSummedByCast(BiasGradOp op) {
  return op->hasAttr(kSummedByCastAttr);
}

} // namespace mlir::teq::lowering

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_QUANTIZEFUSION_H
