//===- Json.h - A small JSON value, parser and writer ---------------*- C++ -*-===//
//
// The JSON of the artifact contract: enough for the manifest (docs/Artifact.md),
// which the compiler writes and the runtime reads with it, and for te-run's
// --json output: objects (key order kept), arrays, strings with every escape
// (\uXXXX and surrogate pairs become UTF-8), numbers, true, false, null.
// Parsing never throws; errors give the line and column.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_ARTIFACT_JSON_H
#define TEQ_ARTIFACT_JSON_H

#include "teq/Artifact/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mlir::teq::artifact {

class JsonValue {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };
  using Array = std::vector<JsonValue>;
  using Object = std::vector<std::pair<std::string, JsonValue>>;

  JsonValue() = default; ///< null
  JsonValue(std::nullptr_t) {}
  JsonValue(bool value) : kind_(Kind::Bool), bool_(value) {}
  JsonValue(int value) : JsonValue(static_cast<int64_t>(value)) {}
  JsonValue(int64_t value)
      : kind_(Kind::Number), isInt_(true), int_(value),
        number_(static_cast<double>(value)) {}
  JsonValue(uint64_t value) : JsonValue(static_cast<int64_t>(value)) {}
  JsonValue(double value) : kind_(Kind::Number), number_(value) {}
  JsonValue(std::string value) : kind_(Kind::String), string_(std::move(value)) {}
  JsonValue(const char *value) : JsonValue(std::string(value)) {}
  static JsonValue array(Array items = {});
  static JsonValue object(Object members = {});

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isNumber() const { return kind_ == Kind::Number; }
  bool isString() const { return kind_ == Kind::String; }
  bool isArray() const { return kind_ == Kind::Array; }
  bool isObject() const { return kind_ == Kind::Object; }
  /// A number with an integral value that fits in int64_t (written as an
  /// integer, or as a float such as 1.0 or 1e3 that is exactly integral and
  /// below 2^53 in magnitude).
  bool isInteger() const;

  bool asBool() const { return bool_; }
  double asNumber() const { return number_; }
  /// Only meaningful if isInteger().
  int64_t asInteger() const;
  const std::string &asString() const { return string_; }
  const Array &asArray() const { return array_; }
  Array &asArray() { return array_; }
  const Object &asObject() const { return object_; }
  Object &asObject() { return object_; }

  /// The member `key` of an object, or nullptr (also for non-objects).
  const JsonValue *find(std::string_view key) const;
  /// Adds `value` to an array.
  void push(JsonValue value) { array_.push_back(std::move(value)); }
  /// Sets member `key` of an object (replacing an existing one).
  void set(const std::string &key, JsonValue value);

  /// Compact JSON text. NaN and infinities, which JSON cannot spell, are
  /// written as null. With `indent` > 0, pretty-printed.
  std::string serialize(int indent = 0) const;

  /// Parses one JSON document (surrounding whitespace allowed). Errors read
  /// "invalid JSON at line L, column C: ...". Duplicate object keys and
  /// nesting deeper than 256 levels are errors.
  static StatusOr<JsonValue> parse(std::string_view text);

private:
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  bool isInt_ = false;
  int64_t int_ = 0;
  double number_ = 0.0;
  std::string string_;
  Array array_;
  Object object_;

  void serializeTo(std::string &out, int indent, int depth) const;
  friend class JsonParser;
};

/// "null", "a boolean", "a number", "a string", "an array", "an object".
const char *describeJsonKind(JsonValue::Kind kind);

/// `text` as a JSON string literal, quotes included.
std::string quoteJsonString(std::string_view text);

} // namespace mlir::teq::artifact

#endif // TEQ_ARTIFACT_JSON_H
