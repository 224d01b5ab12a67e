//===- Status.h - Errors of the TEQ runtime -------------------------*- C++ -*-===//
//
// Every runtime call that can fail returns a Status (or a StatusOr<T>) that
// carries a message naming what went wrong (docs/Artifact.md, "Runtime
// errors"). Nothing in the runtime throws, prints or aborts on user input.
// The runtime shares the type with the artifact contract it reads
// (teq/Artifact/Status.h).
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_STATUS_H
#define TEQ_RUNTIME_STATUS_H

#include "teq/Artifact/Status.h"

namespace mlir::teq::runtime {
using artifact::Status;
using artifact::StatusOr;
} // namespace mlir::teq::runtime

#endif // TEQ_RUNTIME_STATUS_H
