//===- TEQNormOps.cpp - Verifiers of the normalization ops ----------------===//
//
// teq.layer_norm, teq.rms_norm and their backwards (TEQNormOps.td) share
// one set of checks: x of rank >= 2 and static last dimension n, gamma (and
// beta) [n] of x's dtype or f32, the f32 statistics [M] (M the product of
// x's leading dimensions), results of the operands' types.
//
//===----------------------------------------------------------------------===//

#include "teq/Dialect/TEQ/IR/TEQOps.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::teq;

namespace {

std::string typeStr(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// Checks shared by every norm op. `weights` are gamma (and beta, dgamma,
/// dbeta) with their names; `stats` the f32 [M] values (mean, rstd).
LogicalResult
verifyNorm(Operation *op, RankedTensorType x,
           ArrayRef<std::pair<StringRef, RankedTensorType>> weights,
           ArrayRef<std::pair<StringRef, RankedTensorType>> stats) {
  if (x.getRank() < 2)
    return op->emitOpError("x must have rank >= 2 (rows, then the normalised "
                           "last dimension), got ")
           << x;
  int64_t n = x.getShape().back();
  if (ShapedType::isDynamic(n) || n < 1)
    return op->emitOpError("the normalised (last) dimension of x must be "
                           "static and >= 1, got ")
           << x;
  Type gammaType = weights.front().second.getElementType();
  for (auto [name, type] : weights) {
    if (type.getRank() != 1 || type.getShape()[0] != n)
      return op->emitOpError()
             << name << " must be [" << n
             << "] (x's last dimension), got " << type;
    Type element = type.getElementType();
    if (element != x.getElementType() && !element.isF32())
      return op->emitOpError()
             << name << " must be of x's dtype (" << x.getElementType()
             << ") or f32, got " << element;
    if (element != gammaType)
      return op->emitOpError() << name << " must have gamma's dtype ("
                               << gammaType << "), got " << element;
  }
  // M: the product of the leading dimensions (dynamic if any is).
  int64_t m = 1;
  for (int64_t d : x.getShape().drop_back())
    m = ShapedType::isDynamic(d) || ShapedType::isDynamic(m)
            ? ShapedType::kDynamic
            : m * d;
  for (auto [name, type] : stats) {
    bool ok = type.getRank() == 1 &&
              (ShapedType::isDynamic(m) || ShapedType::isDynamic(type.getShape()[0]) ||
               type.getShape()[0] == m);
    if (!ok)
      return op->emitOpError()
             << name << " must be f32 [M], M = " << m
             << " (the product of x's leading dimensions), got " << type;
  }
  return success();
}

LogicalResult verifySameType(Operation *op, StringRef name, Type got,
                             StringRef asName, Type expected) {
  if (got != expected)
    return op->emitOpError() << name << " must have " << asName << "'s type "
                             << typeStr(expected) << ", got " << typeStr(got);
  return success();
}

LogicalResult verifyEps(Operation *op, APFloat eps) {
  if (!eps.isFinite() || eps.isNegative() || eps.isZero())
    return op->emitOpError("eps must be a finite number > 0, got ")
           << eps.convertToFloat();
  return success();
}

} // namespace

LogicalResult LayerNormOp::verify() {
  if (failed(verifyEps(*this, getEpsAttr().getValue())))
    return failure();
  SmallVector<std::pair<StringRef, RankedTensorType>> weights = {
      {"gamma", getGamma().getType()}};
  if (Value beta = getBeta())
    weights.push_back({"beta", cast<RankedTensorType>(beta.getType())});
  if (failed(verifyNorm(*this, getX().getType(), weights,
                        {{"mean", getMean().getType()},
                         {"rstd", getRstd().getType()}})))
    return failure();
  return verifySameType(*this, "y", getY().getType(), "x", getX().getType());
}

/// A backward's dy and dx have x's type; `add` (TE's rmsnorm_bwd_add,
/// added to dx element for element), where given, dx's.
static LogicalResult verifyBackwardTensors(Operation *op, Value x, Value dy,
                                           Value dx, Value add) {
  if (failed(verifySameType(op, "dy", dy.getType(), "x", x.getType())) ||
      failed(verifySameType(op, "dx", dx.getType(), "x", x.getType())))
    return failure();
  if (add)
    return verifySameType(op, "add", add.getType(), "dx", dx.getType());
  return success();
}

LogicalResult LayerNormBackwardOp::verify() {
  RankedTensorType gamma = getGamma().getType();
  if (failed(verifyNorm(*this, getX().getType(),
                        {{"gamma", gamma},
                         {"dgamma", getDgamma().getType()},
                         {"dbeta", getDbeta().getType()}},
                        {{"mean", getMean().getType()},
                         {"rstd", getRstd().getType()}})))
    return failure();
  return verifyBackwardTensors(*this, getX(), getDy(), getDx(), getAdd());
}

LogicalResult RMSNormOp::verify() {
  if (failed(verifyEps(*this, getEpsAttr().getValue())))
    return failure();
  if (failed(verifyNorm(*this, getX().getType(),
                        {{"gamma", getGamma().getType()}},
                        {{"rstd", getRstd().getType()}})))
    return failure();
  return verifySameType(*this, "y", getY().getType(), "x", getX().getType());
}

LogicalResult RMSNormBackwardOp::verify() {
  if (failed(verifyNorm(*this, getX().getType(),
                        {{"gamma", getGamma().getType()},
                         {"dgamma", getDgamma().getType()}},
                        {{"rstd", getRstd().getType()}})))
    return failure();
  return verifyBackwardTensors(*this, getX(), getDy(), getDx(), getAdd());
}
