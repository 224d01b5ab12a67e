//===- Status.h - Errors of the artifact contract and the runtime ---*- C++ -*-===//
//
// Every call of the artifact contract (teq/Artifact) and of the runtime that
// can fail returns a Status (or a StatusOr<T>) that carries a message naming
// what went wrong (docs/Artifact.md, "Runtime errors"). Nothing throws,
// prints or aborts on bad input.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_ARTIFACT_STATUS_H
#define TEQ_ARTIFACT_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace mlir::teq::artifact {

/// Success, or an error with a message. Messages start lowercase, have no
/// trailing period and name the object they are about, e.g.
/// "entry 'quantize_current': expected 4 buffers, got 3".
class [[nodiscard]] Status {
public:
  /// Success.
  Status() = default;
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status status;
    status.failed_ = true;
    status.message_ = std::move(message);
    return status;
  }

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  /// The error message; empty on success.
  const std::string &message() const { return message_; }

  /// The same error with "<prefix>: " in front; success stays success.
  Status withPrefix(const std::string &prefix) const {
    if (ok())
      return *this;
    return error(prefix + ": " + message_);
  }

private:
  bool failed_ = false;
  std::string message_;
};

/// A value or an error Status.
template <typename T>
class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : value_(std::move(value)) {}
  /// An error. `status` must not be success.
  StatusOr(Status status) : status_(std::move(status)) {
    assert(!status_.ok() && "StatusOr built from a success Status");
    if (status_.ok())
      status_ = Status::error("internal error: StatusOr without a value");
  }

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  /// Success if ok(), else the error.
  const Status &status() const { return status_; }
  const std::string &message() const { return status_.message(); }

  T &value() & { return *value_; }
  const T &value() const & { return *value_; }
  T &&value() && { return std::move(*value_); }
  T &operator*() & { return *value_; }
  const T &operator*() const & { return *value_; }
  T &&operator*() && { return std::move(*value_); }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace mlir::teq::artifact

/// Returns the Status of `expr` from the enclosing function if it failed.
#define TEQ_RETURN_IF_ERROR(expr)                                              \
  do {                                                                         \
    ::mlir::teq::artifact::Status teqStatus_ = (expr);                          \
    if (!teqStatus_.ok())                                                      \
      return teqStatus_;                                                       \
  } while (false)

#endif // TEQ_ARTIFACT_STATUS_H
