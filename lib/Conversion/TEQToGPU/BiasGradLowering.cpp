//===- BiasGradLowering.cpp - teq.bias_grad -------------------------------===//
//
// A bias gradient (TE's dbias: the column sums of grad_output, where no
// GEMM epilogue computes it) is two kernels through the op's scratch: row
// chunks' partial sums, then their sum in a fixed order (the same bits
// every run). Where the transposing cast of the same tensor sums its tiles
// (QuantizeFusion.h), only the second.
//
//===----------------------------------------------------------------------===//

#include "OpLowering.h"
#include "QuantizeFusion.h"

#include "Kernels/BiasGrad.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

namespace {

LogicalResult lowerBiasGrad(LoweringContext &ctx, Operation &operation) {
  auto op = cast<BiasGradOp>(operation);
  kernels::BiasGradSpec spec = biasGradSpec(op);
  if (isSummedByCast(op)) {
    // The quantization just before summed the tiles (QuantizeFusion.h).
    int64_t chunks = biasGradPartialChunks(op);
    Value partials = ctx.scratch(op), bias = ctx.buffer(op.getResult());
    ctx.launchKernels(op.getLoc(), KernelKind::BiasGrad,
                      [&](const kernels::EmitContext &ec) {
                        return kernels::KernelGroup{kernels::emitBiasGradFinal(
                            ec, spec, chunks, partials, bias)};
                      });
    return success();
  }
  kernels::BiasGradBuffers buffers{ctx.buffer(op.getInput()), ctx.scratch(op),
                                   ctx.buffer(op.getResult())};
  ctx.launchKernels(op.getLoc(), KernelKind::BiasGrad,
                    [&](const kernels::EmitContext &ec) {
                      return kernels::emitBiasGrad(ec, spec, buffers);
                    });
  return success();
}

} // namespace

const OpLowering lowering::biasGradLowering = {
    "teq.bias_grad",
    [](Operation &op) { return isa<BiasGradOp>(op); },
    [](Operation &) { return success(); },
    lowerBiasGrad,
};
