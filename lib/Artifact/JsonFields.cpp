//===- JsonFields.cpp - Reading the manifest's JSON fields ----------------===//
//
// The field-reading layer of the manifest reader (JsonFields.h).
//
//===----------------------------------------------------------------------===//

#include "JsonFields.h"

#include <cmath>
#include <cstdio>

namespace mlir::teq::artifact::detail {

std::string child(const std::string &path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string element(const std::string &path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

Status errorAt(const std::string &path, const std::string &message) {
  return Status::error(path.empty() ? message : path + ": " + message);
}

Status typeError(const std::string &path, const char *expected,
                 const JsonValue &value) {
  return errorAt(path, std::string("expected ") + expected + ", got " +
                           describeJsonKind(value.kind()));
}

StatusOr<const JsonValue *> member(const JsonValue &object,
                                   const std::string &path,
                                   std::string_view key) {
  const JsonValue *value = object.find(key);
  if (!value)
    return errorAt(path, "missing \"" + std::string(key) + "\"");
  return value;
}

StatusOr<std::string> readString(const JsonValue &object,
                                 const std::string &path, std::string_view key,
                                 bool nonEmpty) {
  auto value = member(object, path, key);
  if (!value.ok())
    return value.status();
  if (!(*value)->isString())
    return typeError(child(path, key), "a string", **value);
  if (nonEmpty && (*value)->asString().empty())
    return errorAt(child(path, key), "must not be empty");
  return (*value)->asString();
}

Status checkName(const std::string &name, const std::string &path) {
  for (char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return errorAt(path, "contains a control character");
  return Status::success();
}

StatusOr<std::string> readName(const JsonValue &object, const std::string &path,
                               std::string_view key) {
  auto name = readString(object, path, key);
  if (!name.ok())
    return name.status();
  TEQ_RETURN_IF_ERROR(checkName(*name, child(path, key)));
  return name;
}

StatusOr<std::string> readOptionalString(const JsonValue &object,
                                         const std::string &path,
                                         std::string_view key) {
  const JsonValue *value = object.find(key);
  if (!value)
    return std::string();
  if (!value->isString())
    return typeError(child(path, key), "a string", *value);
  return value->asString();
}

StatusOr<bool> readOptionalBool(const JsonValue &object,
                                const std::string &path, std::string_view key,
                                bool defaultValue) {
  const JsonValue *value = object.find(key);
  if (!value)
    return defaultValue;
  if (!value->isBool())
    return typeError(child(path, key), "a boolean", *value);
  return value->asBool();
}

StatusOr<int64_t> readInteger(const JsonValue &value, const std::string &path) {
  if (value.isInteger())
    return value.asInteger();
  // Integral but past int64 (or past 2^53 written as a float): say so rather
  // than "got a number".
  if (value.isNumber() && std::isfinite(value.asNumber()) &&
      std::floor(value.asNumber()) == value.asNumber()) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.0f", value.asNumber());
    return errorAt(path, std::string("integer out of range: ") + text);
  }
  return typeError(path, "an integer", value);
}

StatusOr<bool> readBool(const JsonValue &object, const std::string &path,
                        std::string_view key) {
  auto value = member(object, path, key);
  if (!value.ok())
    return value.status();
  if (!(*value)->isBool())
    return typeError(child(path, key), "a boolean", **value);
  return (*value)->asBool();
}

StatusOr<int64_t> readIntegerMember(const JsonValue &object,
                                    const std::string &path,
                                    std::string_view key) {
  auto value = member(object, path, key);
  if (!value.ok())
    return value.status();
  return readInteger(**value, child(path, key));
}

StatusOr<std::vector<int64_t>> readShapeValue(const JsonValue &value,
                                              const std::string &path) {
  if (!value.isArray())
    return typeError(path, "an array of dimensions", value);
  std::vector<int64_t> shape;
  for (size_t i = 0; i < value.asArray().size(); ++i) {
    auto dim = readInteger(value.asArray()[i], element(path, i));
    if (!dim.ok())
      return dim.status();
    if (*dim < 0)
      return errorAt(element(path, i),
                     "negative dimension " + std::to_string(*dim));
    shape.push_back(*dim);
  }
  return shape;
}

StatusOr<std::vector<int64_t>> readShape(const JsonValue &object,
                                         const std::string &path,
                                         std::string_view key) {
  auto value = member(object, path, key);
  if (!value.ok())
    return value.status();
  return readShapeValue(**value, child(path, key));
}

int64_t numElements(const std::vector<int64_t> &shape) {
  constexpr int64_t limit = int64_t(1) << 62;
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim != 0 && count > limit / dim)
      return -1;
    count *= dim;
  }
  return count;
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

StatusOr<int64_t> bytesOf(const std::vector<int64_t> &shape,
                          int64_t elementBytes, const std::string &path) {
  int64_t elements = numElements(shape);
  if (elements < 0 || elements > kMaxBytes / elementBytes)
    return errorAt(path, formatShape(shape) +
                             " is too large: more than 2^48 bytes");
  return elements * elementBytes;
}

} // namespace mlir::teq::artifact::detail
