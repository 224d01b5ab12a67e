//===- MemoryPlan.h - Offsets of an entry's temporaries ---------*- C++ -*-===//
//
// An entry's temporaries (values it computes but does not return) live in
// one device workspace the runtime owns (docs/Artifact.md, "workspace").
// Each buffer is live from the op that defines it to its last use, inclusive
// (so an op never writes over its own inputs); buffers whose lifetimes do not
// overlap share bytes. Everything runs in order on one stream, so reusing a
// range after its last reader was enqueued is safe.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_MEMORYPLAN_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_MEMORYPLAN_H

#include <cstdint>
#include <vector>

namespace mlir::teq {

struct TemporaryBuffer {
  int64_t bytes = 0;
  int64_t firstOp = 0; ///< Index of the defining op.
  int64_t lastOp = 0;  ///< Index of the last op reading it (>= firstOp).
  int64_t offset = -1; ///< Set by planWorkspace.
};

/// Every buffer is 256-byte aligned (cuBLASLt's and vector loads' need).
constexpr int64_t kWorkspaceAlignment = 256;

/// Assigns offsets first-fit in definition order; returns the workspace size.
int64_t planWorkspace(std::vector<TemporaryBuffer> &buffers);

} // namespace mlir::teq

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_MEMORYPLAN_H
