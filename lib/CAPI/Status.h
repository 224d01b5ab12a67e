//===- Status.h - TeqStatus and diagnostic capture (internal) ---*- C++ -*-===//
//
// Every C API call that can fail collects the diagnostics it causes into a
// string, located and with the source line where the source is known, and
// returns them as a TeqStatus.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CAPI_STATUS_H
#define TEQ_LIB_CAPI_STATUS_H

#include "teq-c/Support.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::teq::capi {

/// What a failed TeqStatus points to.
struct StatusImpl {
  std::string message;
};

inline TeqStatus makeSuccess() { return TeqStatus{nullptr}; }
/// A failed status with `message` (never empty).
TeqStatus makeError(std::string message);

/// While alive, collects every diagnostic emitted on `context` as text
/// ("loc: error: message", notes after their error, the source line and a
/// caret where `sourceMgr` or the file system has the source).
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(MLIRContext *context,
                             llvm::SourceMgr *sourceMgr = nullptr);
  ~DiagnosticCapture();

  /// Success if `result` succeeded; otherwise an error with the collected
  /// text, or `fallback` if nothing was emitted.
  TeqStatus status(LogicalResult result, StringRef fallback);
  /// An error with the collected text, or `fallback`.
  TeqStatus error(StringRef fallback) { return status(failure(), fallback); }

private:
  std::string text_;
  llvm::raw_string_ostream os_;
  llvm::SourceMgr ownSourceMgr_;
  std::optional<SourceMgrDiagnosticHandler> sourceMgrHandler_;
  /// Registered after (so before) sourceMgrHandler_: prints diagnostics
  /// without a location as "error: ...", the rest through it.
  std::optional<ScopedDiagnosticHandler> handler_;
};

} // namespace mlir::teq::capi

#endif // TEQ_LIB_CAPI_STATUS_H
