//===- JsonFields.h - Reading the manifest's JSON fields --------*- C++ -*-===//
//
// The field-reading layer every part of the manifest reader shares (an
// internal header of TEQArtifact, not installed): typed members with errors
// that name the JSON path of the offending value, e.g.
//   entries[0].args[1]: missing "shape"
//   entries[0].args[1].proto.shape[0]: expected an integer, got a string
// Paths are built with child() and element(); errors are made with errorAt()
// and typeError().
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_ARTIFACT_JSONFIELDS_H
#define TEQ_LIB_ARTIFACT_JSONFIELDS_H

#include "teq/Artifact/Json.h"
#include "teq/Artifact/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::teq::artifact::detail {

/// The most bytes a buffer, an entry's buffers together or a workspace may
/// have: 256 TiB, more than any GPU has, and far enough below 2^63 that sums
/// and products of sizes (bytesMoved(), te-run's allocations) cannot
/// overflow.
constexpr int64_t kMaxBytes = int64_t(1) << 48;

//===----------------------------------------------------------------------===//
// Paths and errors
//===----------------------------------------------------------------------===//

/// "path.key" ("key" at the root).
std::string child(const std::string &path, std::string_view key);
/// "path[index]".
std::string element(const std::string &path, size_t index);
/// "path: message" ("message" at the root).
Status errorAt(const std::string &path, const std::string &message);
/// "path: expected <expected>, got <value's kind>".
Status typeError(const std::string &path, const char *expected,
                 const JsonValue &value);

//===----------------------------------------------------------------------===//
// Members
//===----------------------------------------------------------------------===//

/// The member `key` of `object` (at `path`), or an error if it is missing.
StatusOr<const JsonValue *> member(const JsonValue &object,
                                   const std::string &path,
                                   std::string_view key);

StatusOr<std::string> readString(const JsonValue &object,
                                 const std::string &path, std::string_view key,
                                 bool nonEmpty = true);

/// Names reach messages, dlsym and file names (te-run --outputs): no NUL or
/// other control characters.
Status checkName(const std::string &name, const std::string &path);

/// A required, non-empty name.
StatusOr<std::string> readName(const JsonValue &object, const std::string &path,
                               std::string_view key);

/// "" if absent.
StatusOr<std::string> readOptionalString(const JsonValue &object,
                                         const std::string &path,
                                         std::string_view key);

StatusOr<bool> readOptionalBool(const JsonValue &object,
                                const std::string &path, std::string_view key,
                                bool defaultValue);

/// `value` as an int64 (an integral value past int64 is "integer out of
/// range", anything else "expected an integer").
StatusOr<int64_t> readInteger(const JsonValue &value, const std::string &path);

StatusOr<bool> readBool(const JsonValue &object, const std::string &path,
                        std::string_view key);

StatusOr<int64_t> readIntegerMember(const JsonValue &object,
                                    const std::string &path,
                                    std::string_view key);

//===----------------------------------------------------------------------===//
// Choices and known keys
//===----------------------------------------------------------------------===//

template <typename T>
struct Choice {
  const char *name;
  T value;
};

/// "a, b or c".
template <typename T, size_t N>
std::string listChoices(const Choice<T> (&choices)[N]) {
  std::string text;
  for (size_t i = 0; i < N; ++i)
    text += std::string(i == 0 ? "" : (i + 1 == N ? " or " : ", ")) +
            choices[i].name;
  return text;
}

/// The required string member `key`, one of `choices`; the error reads
/// "<path>.<key>: unknown <what> "x" (expected a, b or c)".
template <typename T, size_t N>
StatusOr<T> readChoice(const JsonValue &object, const std::string &path,
                       std::string_view key, const char *what,
                       const Choice<T> (&choices)[N]) {
  auto text = readString(object, path, key, /*nonEmpty=*/false);
  if (!text.ok())
    return text.status();
  for (const Choice<T> &choice : choices)
    if (*text == choice.name)
      return choice.value;
  return errorAt(child(path, key), std::string("unknown ") + what + " \"" +
                                       *text + "\" (expected " +
                                       listChoices(choices) + ")");
}

/// An error for the first key of `object` not in `known`.
template <size_t N>
Status checkKnownKeys(const JsonValue &object, const std::string &path,
                      const char *const (&known)[N], const char *where) {
  for (const auto &[key, value] : object.asObject()) {
    (void)value;
    bool found = false;
    for (const char *name : known)
      found = found || key == name;
    if (!found)
      return errorAt(path, "unknown key \"" + key + "\" in " + where);
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Shapes and sizes
//===----------------------------------------------------------------------===//

/// An array of non-negative dimensions.
StatusOr<std::vector<int64_t>> readShapeValue(const JsonValue &value,
                                              const std::string &path);

StatusOr<std::vector<int64_t>> readShape(const JsonValue &object,
                                         const std::string &path,
                                         std::string_view key);

/// Product of `shape` (1 for rank 0, a scalar), or -1 past 2^62.
int64_t numElements(const std::vector<int64_t> &shape);

/// "[128, 256]".
std::string formatShape(const std::vector<int64_t> &shape);

/// The bytes of `shape` in elements of `elementBytes`, or an error at
/// `path` past kMaxBytes.
StatusOr<int64_t> bytesOf(const std::vector<int64_t> &shape,
                          int64_t elementBytes, const std::string &path);

} // namespace mlir::teq::artifact::detail

#endif // TEQ_LIB_ARTIFACT_JSONFIELDS_H
