//===- MemoryPlan.h - Offsets of an entry's temporaries ---------*- C++ -*-===//
//
// An entry's temporaries (values it computes but does not return) live in
// one device workspace the runtime owns (docs/Artifact.md, "workspace") or
// inside a result buffer that nothing has written yet: until the op that
// writes a result, its bytes hold nothing the caller will see, so a
// temporary that dies before that op can use them (a "host"). Each buffer
// is live from the op that defines it to its last use, inclusive (so an op
// never writes over its own inputs); buffers whose lifetimes do not overlap
// share bytes. Everything runs in order on one stream, so reusing a range
// after its last reader was enqueued is safe.
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
  /// Set by planWorkspace: -1 in the workspace, else the index of the host
  /// (HostBuffer) whose bytes it uses.
  int64_t host = -1;
};

/// A result buffer whose bytes temporaries may use before it is written.
struct HostBuffer {
  int64_t bytes = 0;
  /// Index of the first op that writes it: a temporary can live in it only
  /// if its last use comes strictly before (an op never writes over its own
  /// inputs).
  int64_t firstWrite = 0;
};

/// Every buffer is 256-byte aligned (cuBLASLt's and vector loads' need);
/// hosts must be too (the runtime checks result buffers' alignment).
constexpr int64_t kWorkspaceAlignment = 256;

/// Assigns each buffer a place, largest first (then in definition order):
/// the host with the earliest firstWrite after the buffer's last use that
/// has room for it at that time (first fit inside it), else the workspace
/// (first fit). Returns the workspace size.
int64_t planWorkspace(std::vector<TemporaryBuffer> &buffers,
                      const std::vector<HostBuffer> &hosts = {});

} // namespace mlir::teq

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_MEMORYPLAN_H
