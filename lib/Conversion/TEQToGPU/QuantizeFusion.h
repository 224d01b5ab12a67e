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
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_QUANTIZEFUSION_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_QUANTIZEFUSION_H

#include "teq/Dialect/TEQ/IR/TEQOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::teq::lowering {

/// Which fusions run (convert-teq-to-gpu's disabled-fusions).
struct FusionOptions {
  bool biasGrad = true;
};

/// The discardable attribute on a teq.bias_grad whose column sums the
/// quantization just before it computes.
constexpr llvm::StringLiteral kSummedByCastAttr = "teq.summed_by_cast";

/// Plans the fusions of `entry` (moving and marking ops) that `options`
/// allow.
void planQuantizeFusions(func::FuncOp entry, TargetAttr target,
                         const FusionOptions &options);

/// The teq.bias_grad whose first pass `quantize`'s cast does, or null.
BiasGradOp biasGradSummedBy(QuantizeOp quantize);

/// Whether `op`'s first pass is done by the quantization before it.
inline bool isSummedByCast(BiasGradOp op) {
  return op->hasAttr(kSummedByCastAttr);
}

} // namespace mlir::teq::lowering

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_QUANTIZEFUSION_H
