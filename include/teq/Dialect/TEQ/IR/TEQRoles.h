//===- TEQRoles.h - Roles of entry arguments and results -------*- C++ -*-===//
//
// `teq.role` and `teq.role_of` on a function's arguments and results: what
// each is to a training step (an input, a parameter, delayed-scaling state,
// the gradient of another value, ...), written into the artifact manifest's
// "role" and "of" (docs/Artifact.md) so that callers need not infer roles
// from names. The vocabulary is the manifest's (artifact::isArgRole).
//
// Kept out of TEQBase.td: the names are read by the verifier, the builder
// and the manifest writer only, and the generated dialect header is
// included everywhere.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_DIALECT_TEQ_IR_TEQROLES_H
#define TEQ_DIALECT_TEQ_IR_TEQROLES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::teq {

/// A string: one of artifact::argRoleList().
inline constexpr llvm::StringLiteral getRoleAttrName() {
  return llvm::StringLiteral("teq.role");
}
/// A string: the name of the value the role refers to
/// (artifact::argRoleTakesOf).
inline constexpr llvm::StringLiteral getRoleOfAttrName() {
  return llvm::StringLiteral("teq.role_of");
}

} // namespace mlir::teq

#endif // TEQ_DIALECT_TEQ_IR_TEQROLES_H
