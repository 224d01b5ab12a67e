//===- Json.cpp - A small JSON value, parser and writer -------------------===//

#include "teq/Artifact/Json.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace mlir::teq::artifact {

//===----------------------------------------------------------------------===//
// JsonValue
//===----------------------------------------------------------------------===//

JsonValue JsonValue::array(Array items) {
  JsonValue value;
  value.kind_ = Kind::Array;
  value.array_ = std::move(items);
  return value;
}

JsonValue JsonValue::object(Object members) {
  JsonValue value;
  value.kind_ = Kind::Object;
  value.object_ = std::move(members);
  return value;
}

bool JsonValue::isInteger() const {
  if (kind_ != Kind::Number)
    return false;
  if (isInt_)
    return true;
  constexpr double limit = 9007199254740992.0; // 2^53
  return std::isfinite(number_) && std::floor(number_) == number_ &&
         std::fabs(number_) <= limit;
}

int64_t JsonValue::asInteger() const {
  if (isInt_)
    return int_;
  return static_cast<int64_t>(number_);
}

const JsonValue *JsonValue::find(std::string_view key) const {
  if (kind_ != Kind::Object)
    return nullptr;
  for (const auto &member : object_)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

void JsonValue::set(const std::string &key, JsonValue value) {
  for (auto &member : object_) {
    if (member.first == key) {
      member.second = std::move(value);
      return;
    }
  }
  object_.emplace_back(key, std::move(value));
}

const char *describeJsonKind(JsonValue::Kind kind) {
  switch (kind) {
  case JsonValue::Kind::Null:
    return "null";
  case JsonValue::Kind::Bool:
    return "a boolean";
  case JsonValue::Kind::Number:
    return "a number";
  case JsonValue::Kind::String:
    return "a string";
  case JsonValue::Kind::Array:
    return "an array";
  case JsonValue::Kind::Object:
    return "an object";
  }
  return "a value";
}

std::string quoteJsonString(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('"');
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (u < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\u%04x", u);
        out += buffer;
      } else {
        out.push_back(c);
      }
    }
  }
  out.push_back('"');
  return out;
}

static void formatNumber(std::string &out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[32];
  // Shortest of %.15g / %.17g that reads back exactly.
  std::snprintf(buffer, sizeof(buffer), "%.15g", value);
  if (std::strtod(buffer, nullptr) != value)
    std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  out += buffer;
}

void JsonValue::serializeTo(std::string &out, int indent, int depth) const {
  auto newline = [&](int level) {
    if (indent <= 0)
      return;
    out.push_back('\n');
    out.append(static_cast<size_t>(indent) * level, ' ');
  };
  switch (kind_) {
  case Kind::Null:
    out += "null";
    return;
  case Kind::Bool:
    out += bool_ ? "true" : "false";
    return;
  case Kind::Number:
    if (isInt_)
      out += std::to_string(int_);
    else
      formatNumber(out, number_);
    return;
  case Kind::String:
    out += quoteJsonString(string_);
    return;
  case Kind::Array:
    out.push_back('[');
    for (size_t i = 0; i < array_.size(); ++i) {
      if (i)
        out.push_back(',');
      newline(depth + 1);
      array_[i].serializeTo(out, indent, depth + 1);
    }
    if (!array_.empty())
      newline(depth);
    out.push_back(']');
    return;
  case Kind::Object:
    out.push_back('{');
    for (size_t i = 0; i < object_.size(); ++i) {
      if (i)
        out.push_back(',');
      newline(depth + 1);
      out += quoteJsonString(object_[i].first);
      out += indent > 0 ? ": " : ":";
      object_[i].second.serializeTo(out, indent, depth + 1);
    }
    if (!object_.empty())
      newline(depth);
    out.push_back('}');
    return;
  }
}

std::string JsonValue::serialize(int indent) const {
  std::string out;
  serializeTo(out, indent, 0);
  return out;
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

class JsonParser {
public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  StatusOr<JsonValue> parseDocument() {
    JsonValue value;
    skipWhitespace();
    if (!parseValue(value, 0))
      return Status::error(error_);
    skipWhitespace();
    if (pos_ != text_.size()) {
      fail("unexpected text after the JSON value");
      return Status::error(error_);
    }
    return value;
  }

private:
  static constexpr int kMaxDepth = 256;

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;

  bool fail(const std::string &message) {
    if (!error_.empty())
      return false;
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    error_ = "invalid JSON at line " + std::to_string(line) + ", column " +
             std::to_string(column) + ": " + message;
    return false;
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  void skipWhitespace() {
    while (!atEnd()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
        return;
      ++pos_;
    }
  }

  static std::string describeChar(char c) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
      return std::string("'") + c + "'";
    char buffer[16];
    std::snprintf(buffer, sizeof(buffer), "byte 0x%02x", u);
    return buffer;
  }

  bool parseValue(JsonValue &out, int depth) {
    if (depth > kMaxDepth)
      return fail("nesting deeper than " + std::to_string(kMaxDepth) +
                  " levels");
    if (atEnd())
      return fail("unexpected end of input, expected a value");
    char c = peek();
    switch (c) {
    case '{':
      return parseObject(out, depth);
    case '[':
      return parseArray(out, depth);
    case '"':
      out.kind_ = JsonValue::Kind::String;
      return parseString(out.string_);
    case 't':
      return parseKeyword("true", out, JsonValue(true));
    case 'f':
      return parseKeyword("false", out, JsonValue(false));
    case 'n':
      return parseKeyword("null", out, JsonValue());
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return parseNumber(out);
      return fail("unexpected " + describeChar(c) + ", expected a value");
    }
  }

  bool parseKeyword(std::string_view word, JsonValue &out, JsonValue value) {
    if (text_.substr(pos_, word.size()) != word)
      return fail("invalid literal, expected '" + std::string(word) + "'");
    pos_ += word.size();
    out = std::move(value);
    return true;
  }

  bool parseNumber(JsonValue &out) {
    size_t start = pos_;
    bool integral = true;
    if (peek() == '-')
      ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    } else {
      return fail("invalid number: expected a digit");
    }
    if (peek() == '.') {
      integral = false;
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("invalid number: expected a digit after '.'");
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      ++pos_;
      if (peek() == '+' || peek() == '-')
        ++pos_;
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("invalid number: expected a digit in the exponent");
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    }
    std::string literal(text_.substr(start, pos_ - start));
    out.kind_ = JsonValue::Kind::Number;
    out.number_ = std::strtod(literal.c_str(), nullptr);
    out.isInt_ = false;
    if (integral) {
      errno = 0;
      char *end = nullptr;
      long long parsed = std::strtoll(literal.c_str(), &end, 10);
      if (errno == 0 && end && *end == '\0') {
        out.isInt_ = true;
        out.int_ = static_cast<int64_t>(parsed);
      }
    }
    return true;
  }

  bool parseHex4(uint32_t &value) {
    if (pos_ + 4 > text_.size())
      return fail("unexpected end of input in a \\u escape");
    value = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      value <<= 4;
      if (c >= '0' && c <= '9')
        value |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        value |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        value |= static_cast<uint32_t>(c - 'A' + 10);
      else {
        --pos_;
        return fail("invalid hex digit " + describeChar(c) +
                    " in a \\u escape");
      }
    }
    return true;
  }

  static void appendUtf8(std::string &out, uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  bool parseString(std::string &out) {
    ++pos_; // opening quote
    out.clear();
    while (true) {
      if (atEnd())
        return fail("unterminated string");
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character " + describeChar(c) +
                    " in a string (must be escaped)");
      if (c != '\\') {
        out.push_back(c);
        ++pos_;
        continue;
      }
      ++pos_;
      if (atEnd())
        return fail("unterminated escape sequence");
      char e = text_[pos_++];
      switch (e) {
      case '"':
        out.push_back('"');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case '/':
        out.push_back('/');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        uint32_t cp = 0;
        if (!parseHex4(cp))
          return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (text_.substr(pos_, 2) != "\\u")
            return fail("high surrogate \\u escape without a low surrogate");
          pos_ += 2;
          uint32_t low = 0;
          if (!parseHex4(low))
            return false;
          if (low < 0xDC00 || low > 0xDFFF)
            return fail("invalid low surrogate in a \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return fail("low surrogate \\u escape without a high surrogate");
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        --pos_;
        return fail("invalid escape sequence '\\" + std::string(1, e) + "'");
      }
    }
  }

  bool parseArray(JsonValue &out, int depth) {
    ++pos_; // '['
    out = JsonValue::array();
    skipWhitespace();
    if (peek() == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      skipWhitespace();
      JsonValue item;
      if (!parseValue(item, depth + 1))
        return false;
      out.array_.push_back(std::move(item));
      skipWhitespace();
      if (atEnd())
        return fail("unexpected end of input, expected ',' or ']'");
      char c = text_[pos_];
      if (c == ',') {
        ++pos_;
        continue;
      }
      if (c == ']') {
        ++pos_;
        return true;
      }
      return fail("unexpected " + describeChar(c) + ", expected ',' or ']'");
    }
  }

  bool parseObject(JsonValue &out, int depth) {
    ++pos_; // '{'
    out = JsonValue::object();
    skipWhitespace();
    if (peek() == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      skipWhitespace();
      if (atEnd())
        return fail("unexpected end of input, expected a key");
      if (peek() != '"')
        return fail("unexpected " + describeChar(peek()) +
                    ", expected a key (a string)");
      size_t keyPos = pos_;
      std::string key;
      if (!parseString(key))
        return false;
      if (out.find(key)) {
        pos_ = keyPos;
        return fail("duplicate key " + quoteJsonString(key));
      }
      skipWhitespace();
      if (peek() != ':')
        return fail(atEnd() ? std::string("unexpected end of input, expected ':'")
                            : "unexpected " + describeChar(peek()) +
                                  ", expected ':'");
      ++pos_;
      skipWhitespace();
      JsonValue value;
      if (!parseValue(value, depth + 1))
        return false;
      out.object_.emplace_back(std::move(key), std::move(value));
      skipWhitespace();
      if (atEnd())
        return fail("unexpected end of input, expected ',' or '}'");
      char c = text_[pos_];
      if (c == ',') {
        ++pos_;
        continue;
      }
      if (c == '}') {
        ++pos_;
        return true;
      }
      return fail("unexpected " + describeChar(c) + ", expected ',' or '}'");
    }
  }
};

StatusOr<JsonValue> JsonValue::parse(std::string_view text) {
  return JsonParser(text).parseDocument();
}

} // namespace mlir::teq::artifact
