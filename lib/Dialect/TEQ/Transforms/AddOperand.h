//===- AddOperand.h - The operand of an add another op folds in -*- C++ -*-===//
//
// The fusions of an add into the op that produces one of its operands
// (teq-fuse-residual-adds, teq-fuse-norm-backward-adds) look at both
// operands the same way; the op decides what it accepts.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_DIALECT_TEQ_TRANSFORMS_ADDOPERAND_H
#define TEQ_LIB_DIALECT_TEQ_TRANSFORMS_ADDOPERAND_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <utility>

namespace mlir::teq {

/// The first operand of the tensor add `add` that an `OpT` defines and
/// `accept(op, operand, other)` takes, as (op, the other operand); none
/// where neither is.
template <typename OpT, typename Accept>
std::optional<std::pair<OpT, Value>> addOperandFrom(arith::AddFOp add,
                                                    Accept accept) {
  if (!isa<RankedTensorType>(add.getType()))
    return std::nullopt;
  for (unsigned i = 0; i < 2; ++i) {
    Value operand = add->getOperand(i), other = add->getOperand(1 - i);
    if (auto op = operand.getDefiningOp<OpT>(); op && accept(op, operand, other))
      return std::make_pair(op, other);
  }
  return std::nullopt;
}

} // namespace mlir::teq

#endif // TEQ_LIB_DIALECT_TEQ_TRANSFORMS_ADDOPERAND_H
