//===- NormLowering.cpp - teq.layer_norm, teq.rms_norm and backwards ------===//
//
// Each norm op is one kernel group (Kernels/Norm.h): the forward one
// kernel, the backward dx (plus its optional `add`) with per-CTA
// dgamma/dbeta partials in the op's scratch (EntryBuffers.cpp plans it) and
// a finalize kernel.
//
//===----------------------------------------------------------------------===//

#include "OpLowering.h"
#include "QuantizeFusion.h"

#include "Kernels/Norm.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

namespace {

bool isNorm(Operation &op) {
  return isa<LayerNormOp, LayerNormBackwardOp, RMSNormOp, RMSNormBackwardOp>(
      op);
}

LogicalResult checkNorm(Operation &op) {
  kernels::NormSpec spec = normSpec(&op);
  if (spec.rows < 1)
    return op.emitOpError("has no rows (x has a zero leading dimension); "
                          "the GPU lowering needs at least one");
  if (spec.cols > kernels::kMaxNormCols)
    return op.emitOpError("normalises ")
           << spec.cols << " elements per row; the GPU kernels take at most "
           << kernels::kMaxNormCols
           << " (each thread keeps its share of a row in registers)";
  return success();
}

LogicalResult lowerNorm(LoweringContext &ctx, Operation &op) {
  kernels::NormSpec spec = normSpec(&op);
  kernels::NormBuffers buffers;
  auto buffer = [&](Value v) { return v ? ctx.buffer(v) : Value(); };
  if (auto ln = dyn_cast<LayerNormOp>(op)) {
    buffers = {buffer(ln.getX()),    buffer(ln.getGamma()),
               buffer(ln.getBeta()), buffer(ln.getY()),
               buffer(ln.getMean()), buffer(ln.getRstd())};
  } else if (auto rms = dyn_cast<RMSNormOp>(op)) {
    buffers.x = buffer(rms.getX());
    buffers.gamma = buffer(rms.getGamma());
    buffers.y = buffer(rms.getY());
    buffers.rstd = buffer(rms.getRstd());
  } else if (auto lnb = dyn_cast<LayerNormBackwardOp>(op)) {
    buffers.dy = buffer(lnb.getDy());
    buffers.x = buffer(lnb.getX());
    buffers.mean = buffer(lnb.getMean());
    buffers.rstd = buffer(lnb.getRstd());
    buffers.gamma = buffer(lnb.getGamma());
    buffers.add = buffer(lnb.getAdd());
    buffers.dx = buffer(lnb.getDx());
    buffers.dgamma = buffer(lnb.getDgamma());
    buffers.dbeta = buffer(lnb.getDbeta());
    buffers.partials = ctx.scratch(&op);
  } else {
    auto rmsb = cast<RMSNormBackwardOp>(op);
    buffers.dy = buffer(rmsb.getDy());
    buffers.x = buffer(rmsb.getX());
    buffers.rstd = buffer(rmsb.getRstd());
    buffers.gamma = buffer(rmsb.getGamma());
    buffers.add = buffer(rmsb.getAdd());
    buffers.dx = buffer(rmsb.getDx());
    buffers.dgamma = buffer(rmsb.getDgamma());
    buffers.partials = ctx.scratch(&op);
  }
  // A backward's `add` (TE's rmsnorm_bwd_add) goes into dx's one rounding.
  spec.hasAdd = static_cast<bool>(buffers.add);
  // A forward whose y a current-scaling quantization reads next computes
  // its scale (QuantizeFusion.h; TE's FUSED_NORM_AMAX_FP8).
  Value y = isa<LayerNormOp>(op)  ? cast<LayerNormOp>(op).getY()
            : isa<RMSNormOp>(op) ? cast<RMSNormOp>(op).getY()
                                 : Value();
  if (QuantizeOp quantize = y ? quantizeTakingAmaxOf(y) : QuantizeOp()) {
    spec.amaxOfY = true;
    buffers.scale = ctx.scratch(quantize);
    spec.amax = producerAmaxFor(quantize, buffers.scale);
  }
  ctx.launchKernels(op.getLoc(), KernelKind::Norm,
                    [&](const kernels::EmitContext &ec) {
                      return kernels::emitNorm(ec, spec, buffers);
                    });
  return success();
}

} // namespace

const OpLowering lowering::normLowering = {
    "teq.layer_norm, teq.rms_norm and their backwards",
    isNorm,
    checkNorm,
    lowerNorm,
};
