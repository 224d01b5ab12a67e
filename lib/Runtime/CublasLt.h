//===- CublasLt.h - cuBLASLt, loaded at run time -------------------*- C++ -*-===//
//
// The runtime calls cuBLASLt through this table, like it calls the driver
// through Driver.h: libcublasLt.so.13 is opened with dlopen the first time an
// artifact with GEMMs is opened, and every function is resolved with dlsym.
// libteq_runtime.so therefore loads (and runs quantize-only artifacts) on a
// machine without cuBLASLt; opening an artifact that has GEMMs there fails
// with "cuBLASLt not available: ...". cublasLt.h is included for its types
// and enums only.
//
// Internal to lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_RUNTIME_CUBLASLT_H
#define TEQ_LIB_RUNTIME_CUBLASLT_H

#include "teq/Runtime/Status.h"

#include <cublasLt.h>

#include <string>

namespace mlir::teq::runtime::detail {

#define TEQ_CUBLASLT_FUNCTIONS(X)                                              \
  X(cublasLtCreate)                                                            \
  X(cublasLtDestroy)                                                           \
  X(cublasLtGetStatusName)                                                     \
  X(cublasLtGetStatusString)                                                   \
  X(cublasLtGetVersion)                                                        \
  X(cublasLtMatmul)                                                            \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmulAlgoInit)                                                    \
  X(cublasLtMatmulAlgoCheck)                                                   \
  X(cublasLtMatmulAlgoConfigGetAttribute)                                      \
  X(cublasLtMatmulAlgoConfigSetAttribute)                                      \
  X(cublasLtLoggerSetCallback)                                                 \
  X(cublasLtLoggerSetLevel)

struct CublasLt {
#define TEQ_DECLARE_CUBLASLT_MEMBER(name) decltype(&::name) name = nullptr;
  TEQ_CUBLASLT_FUNCTIONS(TEQ_DECLARE_CUBLASLT_MEMBER)
#undef TEQ_DECLARE_CUBLASLT_MEMBER
  /// cublasLtGetVersion(), e.g. 130100 for 13.1.0.
  size_t version = 0;
  /// The file that was opened ("libcublasLt.so.13").
  std::string library;
};

/// The cuBLASLt table, loading it on first call (thread-safe). Fails with
/// "cuBLASLt not available: ..." if the library cannot be opened, a function
/// is missing or its major version differs from the cublasLt.h the runtime
/// was built with.
StatusOr<const CublasLt *> getCublasLt();

/// "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not
/// supported)" for `status`: from cuBLASLt if it is loaded, else the name.
std::string describeCublasStatus(cublasStatus_t status);

/// Runs `call` (a cuBLASLt call that just failed) again with cuBLASLt's
/// error log captured, and returns what cuBLASLt logged ("" if nothing):
/// its messages say why (e.g. "The scaling mode for A scale (VEC128_32F)
/// requires a custom pointer for A scale") where the status only says
/// CUBLAS_STATUS_INVALID_VALUE. cuBLASLt's logger is process-wide: it is
/// switched on only for this call and switched off after, and left alone if
/// the user asked for cuBLASLt logging (CUBLASLT_LOG_LEVEL, CUBLASLT_LOG_MASK).
/// Only for failure paths, and only for calls that enqueue no work.
template <typename Call>
std::string captureCublasLtLog(const CublasLt &lt, Call &&call);

/// "13.1.0" for a cublasLtGetVersion() value.
std::string formatCublasVersion(size_t version);

/// The non-template part of captureCublasLtLog: starts (returns false if
/// logging must be left alone) and ends a capture.
bool beginCublasLtLogCapture(const CublasLt &lt);
std::string endCublasLtLogCapture(const CublasLt &lt);

template <typename Call>
std::string captureCublasLtLog(const CublasLt &lt, Call &&call) {
  if (!beginCublasLtLogCapture(lt))
    return std::string();
  (void)call();
  return endCublasLtLogCapture(lt);
}

} // namespace mlir::teq::runtime::detail

#endif // TEQ_LIB_RUNTIME_CUBLASLT_H
