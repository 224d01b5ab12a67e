//===- Json.h - The runtime's JSON ----------------------------------*- C++ -*-===//
//
// The runtime reads manifests and te-run writes its --json report with the
// artifact contract's JSON value (teq/Artifact/Json.h).
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_JSON_H
#define TEQ_RUNTIME_JSON_H

#include "teq/Artifact/Json.h"
#include "teq/Runtime/Status.h"

namespace mlir::teq::runtime {
using artifact::describeJsonKind;
using artifact::JsonValue;
using artifact::quoteJsonString;
} // namespace mlir::teq::runtime

#endif // TEQ_RUNTIME_JSON_H
