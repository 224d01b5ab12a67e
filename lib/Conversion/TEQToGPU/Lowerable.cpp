//===- Lowerable.cpp - Op and type classes of the lowering ----------------===//

#include "Lowerable.h"

#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Layout/BufferLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::teq;
namespace layout = ::mlir::teq::layout;

bool lowering::isElementwiseOnTensors(Operation &op) {
  if (!op.hasTrait<OpTrait::Elementwise>() || op.getNumResults() != 1 ||
      op.getNumRegions() != 0 ||
      !isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
    return false;
  auto resultType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  if (!resultType)
    return false;
  auto highPrecision = [](Type t) {
    return t.isBF16() || t.isF16() || t.isF32();
  };
  if (!highPrecision(resultType.getElementType()))
    return false;
  for (Type t : op.getOperandTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || tensor.getShape() != resultType.getShape() ||
        !highPrecision(tensor.getElementType()))
      return false;
  }
  return true;
}

static bool isHighPrecisionTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || tensor.getRank() == 0)
    return false;
  Type element = tensor.getElementType();
  return element.isBF16() || element.isF16() || element.isF32();
}

bool lowering::isFusedColumnSlice(Operation &op) {
  auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
  if (!slice || !isHighPrecisionTensor(slice.getSourceType()) ||
      !slice.getOffsets().empty() || !slice.getSizes().empty() ||
      !slice.getStrides().empty())
    return false;
  ArrayRef<int64_t> full = slice.getSourceType().getShape();
  // The result keeps every dimension (no rank reduction).
  if (slice.getResultType().getRank() != static_cast<int64_t>(full.size()))
    return false;
  for (auto [d, size] : llvm::enumerate(slice.getStaticSizes())) {
    bool last = d + 1 == full.size();
    if (slice.getStaticStrides()[d] != 1 ||
        (!last && (slice.getStaticOffsets()[d] != 0 || size != full[d])))
      return false;
  }
  return !op.use_empty() && llvm::all_of(op.getUsers(), [](Operation *user) {
    return isElementwiseOnTensors(*user);
  });
}

bool lowering::isFusedLastDimConcat(Operation &op) {
  auto concat = dyn_cast<tensor::ConcatOp>(op);
  if (!concat || concat.getNumOperands() != 2 ||
      concat.getDim() + 1 != concat.getResultType().getRank())
    return false;
  Type first = concat.getOperand(0).getType();
  return isHighPrecisionTensor(first) &&
         concat.getOperand(1).getType() == first;
}

bool lowering::isSplatTensorConstant(Operation &op) {
  auto constant = dyn_cast<arith::ConstantOp>(op);
  if (!constant)
    return false;
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!type || !value || !value.isSplat())
    return false;
  Type element = type.getElementType();
  return element.isBF16() || element.isF16() || element.isF32();
}

LogicalResult lowering::checkBufferShape(Type type, Location loc) {
  ArrayRef<int64_t> shape;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    shape = tensor.getShape();
  else if (auto proto = dyn_cast<TensorProtoType>(type))
    shape = proto.getShape();
  else
    return success();
  if (ShapedType::isDynamicShape(shape))
    return emitError(loc) << "entry values need static shapes (buffers are "
                             "planned at compile time), got "
                          << type;
  constexpr int64_t kMaxBytes = int64_t(1) << 48;
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d == 0)
      return emitError(loc) << "empty tensors have no GPU lowering, got "
                            << type;
    // 4 bytes an element at most: the f32 tensors and their copies.
    if (llvm::MulOverflow(elements, d, elements) || elements > kMaxBytes / 4)
      return emitError(loc) << type << " is too large: entry buffers are "
                               "limited to 2^48 bytes";
  }
  return success();
}

bool lowering::derivesBuffers(UpdateUsageOp view, TargetAttr target) {
  llvm::StringSet<> held;
  for (const layout::BufferDesc &d :
       view.getInput().getType().getBuffers(target))
    held.insert(d.name);
  for (const layout::BufferDesc &d :
       view.getResult().getType().getBuffers(target))
    if (!held.contains(d.name))
      return true;
  return false;
}
