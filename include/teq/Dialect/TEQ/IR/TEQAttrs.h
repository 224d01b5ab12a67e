//===- TEQAttrs.h - Targets, recipes, quantizers ----------------*- C++ -*-===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQATTRS_H
#define TEQ_DIALECT_TEQ_IR_TEQATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "teq/Artifact/Quantizer.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Layout/BufferLayout.h"

#include <optional>
#include <string>

#include "teq/Dialect/TEQ/IR/TEQEnums.h.inc"

namespace mlir::teq {
class TargetAttr;
class QuantizerRoleAttr;

namespace detail {
/// `true` / `false` in attribute parameter lists.
FailureOr<bool> parseBoolParameter(AsmParser &parser);
/// A float literal (or integer) in attribute parameter lists.
FailureOr<llvm::APFloat> parseFloatParameter(AsmParser &parser);
} // namespace detail
class QuantizerAttrInterface;
namespace detail {
/// A quantizer attribute (any #teq.*_quantizer).
FailureOr<QuantizerAttrInterface> parseQuantizerParameter(AsmParser &parser);
} // namespace detail
} // namespace mlir::teq

#include "teq/Dialect/TEQ/IR/TEQAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "teq/Dialect/TEQ/IR/TEQAttrs.h.inc"

namespace mlir::teq {
/// 448 for E4M3 types, 57344 for E5M2, 6 for E2M1 (TE's max_norm).
double getFormatMax(Type dtype);
/// FP8/FP4 dtype of a recipe tensor: E4M3 for E4M3, or HYBRID forward
/// tensors; E5M2 otherwise (te-semantics.md §1.1).
Type getRecipeFP8Type(MLIRContext *ctx, Format format, bool forward);
} // namespace mlir::teq

#endif // TEQ_DIALECT_TEQ_IR_TEQATTRS_H
