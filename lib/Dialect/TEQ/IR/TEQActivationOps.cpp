//===- TEQActivationOps.cpp - Activation op verifiers ---------------------===//

#include "teq/Dialect/TEQ/IR/TEQOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::teq;

namespace {

std::string shapeText(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      ", ");
  os << "]";
  return text;
}

/// The forward result shape of `kind` on `input`, or an error at `op`.
FailureOr<SmallVector<int64_t>> forwardShape(Operation *op,
                                             ActivationKind kind,
                                             RankedTensorType input) {
  SmallVector<int64_t> shape(input.getShape());
  if (!ActivationOp::isGated(kind))
    return shape;
  if (shape.empty() || ShapedType::isDynamic(shape.back()) ||
      shape.back() % 2 != 0)
    return op->emitOpError("gated activation ")
           << stringifyActivationKind(kind)
           << " needs an input whose last dimension is static and even ([..., "
              "2n]: the activated half, then the linear half), got "
           << shapeText(input.getShape());
  shape.back() /= 2;
  return shape;
}

} // namespace

bool ActivationOp::isGated(ActivationKind kind) {
  switch (kind) {
  case ActivationKind::geglu:
  case ActivationKind::qgeglu:
  case ActivationKind::reglu:
  case ActivationKind::sreglu:
  case ActivationKind::swiglu:
  case ActivationKind::glu:
    return true;
  default:
    return false;
  }
}

LogicalResult ActivationOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType result = getResult().getType();
  FailureOr<SmallVector<int64_t>> shape =
      forwardShape(*this, getKind(), input);
  if (failed(shape))
    return failure();
  if (result.getShape() != ArrayRef<int64_t>(*shape))
    return emitOpError("result must be ")
           << shapeText(*shape) << " for " << stringifyActivationKind(getKind())
           << " of " << shapeText(input.getShape()) << ", got "
           << shapeText(result.getShape());
  if (result.getElementType() != input.getElementType())
    return emitOpError("result element type ")
           << result.getElementType() << " must be the input's ("
           << input.getElementType() << ")";
  return success();
}

LogicalResult ActivationBackwardOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType grad = getGrad().getType();
  FailureOr<SmallVector<int64_t>> shape =
      forwardShape(*this, getKind(), input);
  if (failed(shape))
    return failure();
  if (grad.getShape() != ArrayRef<int64_t>(*shape))
    return emitOpError("the incoming gradient must have the forward result's "
                       "shape ")
           << shapeText(*shape) << " (" << stringifyActivationKind(getKind())
           << " of " << shapeText(input.getShape()) << "), got "
           << shapeText(grad.getShape());
  return success();
}
