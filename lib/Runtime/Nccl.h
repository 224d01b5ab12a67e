//===- Nccl.h - NCCL, loaded at run time -------------------------*- C++ -*-===//
//
// The runtime calls NCCL through this table, as it calls the driver and
// cuBLASLt (Driver.h, CublasLt.h): libnccl.so.2 is opened with dlopen the
// first time a communicator or a unique id is made, and every function is
// resolved with dlsym. libteq_runtime.so therefore loads, and runs artifacts
// without collectives, on machines without NCCL. nccl.h is included for its
// types and enums only.
//
// Where the library comes from, in order:
//   1. $TEQ_NCCL_LIBRARY: the library file, or a directory holding
//      libnccl.so.2 (e.g. the nvidia-nccl-cu13 Python package's
//      nvidia/nccl/lib, the NCCL PyTorch uses). When set, nothing else is
//      tried: a wrong path is an error, never a silent fallback.
//   2. libnccl.so.2 through the library search path; this also finds a copy
//      the process has loaded already (e.g. through PyTorch), so both use
//      one NCCL.
//   3. $CUDA_HOME / $CUDA_PATH and /usr/local/cuda (lib64/, lib/).
//
// Internal to lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_RUNTIME_NCCL_H
#define TEQ_LIB_RUNTIME_NCCL_H

#include "teq/Runtime/Status.h"

#include <nccl.h>

#include <string>

namespace mlir::teq::runtime::detail {

#define TEQ_NCCL_FUNCTIONS(X)                                                  \
  X(ncclGetVersion)                                                            \
  X(ncclGetUniqueId)                                                           \
  X(ncclCommInitRank)                                                          \
  X(ncclCommInitRankConfig)                                                    \
  X(ncclCommDestroy)                                                           \
  X(ncclCommAbort)                                                             \
  X(ncclCommCount)                                                             \
  X(ncclCommUserRank)                                                          \
  X(ncclCommCuDevice)                                                          \
  X(ncclCommGetAsyncError)                                                     \
  X(ncclGetErrorString)                                                        \
  X(ncclGetLastError)                                                          \
  X(ncclAllGather)                                                             \
  X(ncclReduceScatter)                                                         \
  X(ncclAllReduce)

struct Nccl {
#define TEQ_DECLARE_NCCL_MEMBER(name) decltype(&::name) name = nullptr;
  TEQ_NCCL_FUNCTIONS(TEQ_DECLARE_NCCL_MEMBER)
#undef TEQ_DECLARE_NCCL_MEMBER
  /// ncclGetVersion(), e.g. 22809 for 2.28.9.
  int version = 0;
  /// The file that was opened.
  std::string library;
};

/// The oldest NCCL the runtime runs with: 2.14 brought
/// ncclCommInitRankConfig and non-blocking communicators (ncclInProgress),
/// which the runtime's communicators are (Communicator.h), and 2.13
/// ncclGetLastError.
constexpr int kMinNcclVersion = 21400;

/// The NCCL table, loading it on first call (thread-safe). Fails with
/// "NCCL not available: ..." if the library cannot be opened, is older than
/// kMinNcclVersion ("... is NCCL 2.12.12; the runtime needs NCCL 2.14 or
/// later (non-blocking communicators, ncclCommInitRankConfig)"), a function
/// is missing ("... has no ncclCommInitRankConfig ...") or its major version
/// is not the nccl.h the runtime was built with.
StatusOr<const Nccl *> getNccl();

/// "2.28.9" for an ncclGetVersion() value.
std::string formatNcclVersion(int version);

/// "ncclInvalidArgument (invalid argument)" for `result` (the name and, if
/// NCCL is loaded, ncclGetErrorString), followed by "; NCCL: <last error>"
/// when NCCL recorded a message for `comm` (ncclGetLastError; comm may be
/// null).
std::string describeNcclResult(ncclResult_t result, ncclComm_t comm);

} // namespace mlir::teq::runtime::detail

#endif // TEQ_LIB_RUNTIME_NCCL_H
