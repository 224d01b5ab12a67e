//===- DequantizeLowering.cpp - teq.dequantize ----------------------------===//
//
// A quantized tensor back in high precision (TE's QuantizedTensor.dequantize;
// what a Linear's backward reads under backward_override = dequantized):
// one kernel over the rowwise codes. Per-tensor FP8 only in this version.
//
//===----------------------------------------------------------------------===//

#include "OpLowering.h"

#include "Kernels/Dequantize.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

namespace {

LogicalResult checkDequantize(Operation &operation) {
  auto op = cast<DequantizeOp>(operation);
  TensorProtoType in = op.getInput().getType();
  QuantizerAttrInterface q = in.getQuantizer();
  if (!isa<Float8CurrentScalingQuantizerAttr, Float8QuantizerAttr>(q))
    return op.emitOpError("of a ")
           << q.getQuantizerName()
           << " tensor has no GPU lowering yet (per-tensor FP8 only: "
              "Float8CurrentScalingQuantizer, Float8Quantizer)";
  if ((in.getUsage() & Usage::rowwise) != Usage::rowwise)
    return op.emitOpError("reads the rowwise copy, which the input lacks "
                          "(usage ")
           << stringifyUsage(in.getUsage()) << ")";
  if (op.getResult().getType().getShape() != in.getShape())
    return op.emitOpError("result shape must be the input's logical shape");
  return success();
}

LogicalResult lowerDequantize(LoweringContext &ctx, Operation &operation) {
  auto op = cast<DequantizeOp>(operation);
  TensorProtoType in = op.getInput().getType();
  RankedTensorType out = op.getResult().getType();
  kernels::DequantizeSpec spec;
  spec.elements = out.getNumElements();
  spec.e5m2 = isa<Float8E5M2Type>(in.getQuantizer().getDataType());
  spec.output = kernels::inputTypeOf(out.getElementType());
  kernels::DequantizeBuffers buffers{ctx.namedBuffer(op.getInput(), "data"),
                                     ctx.namedBuffer(op.getInput(), "scale_inv"),
                                     ctx.buffer(op.getResult())};
  ctx.launchKernels(op.getLoc(), KernelKind::Dequantize,
                    [&](const kernels::EmitContext &ec) {
                      return kernels::emitDequantize(ec, spec, buffers);
                    });
  return success();
}

} // namespace

const OpLowering lowering::dequantizeLowering = {
    "teq.dequantize (per-tensor FP8)",
    [](Operation &op) { return isa<DequantizeOp>(op); },
    checkDequantize,
    lowerDequantize,
};
