//===- Passes.h - Passes over the teq dialect -------------------*- C++ -*-===//

#ifndef TEQ_DIALECT_TEQ_TRANSFORMS_PASSES_H
#define TEQ_DIALECT_TEQ_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::teq {

#define GEN_PASS_DECL
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"

} // namespace mlir::teq

#endif // TEQ_DIALECT_TEQ_TRANSFORMS_PASSES_H
