//===- JsonTest.cpp - The artifact contract's JSON parser and writer ------===//

#include "teq/Artifact/Json.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

using namespace mlir::teq::artifact;

namespace {

JsonValue parseOk(const std::string &text) {
  auto value = JsonValue::parse(text);
  EXPECT_TRUE(value.ok()) << value.message();
  return value.ok() ? *value : JsonValue();
}

std::string parseError(const std::string &text) {
  auto value = JsonValue::parse(text);
  EXPECT_FALSE(value.ok()) << "parsed: " << text;
  return value.ok() ? std::string() : value.message();
}

TEST(JsonTest, Scalars) {
  EXPECT_TRUE(parseOk("null").isNull());
  EXPECT_TRUE(parseOk(" true ").asBool());
  EXPECT_FALSE(parseOk("false").asBool());
  JsonValue integer = parseOk("-1234567890123");
  ASSERT_TRUE(integer.isInteger());
  EXPECT_EQ(integer.asInteger(), -1234567890123);
  JsonValue real = parseOk("2.5e-3");
  EXPECT_FALSE(real.isInteger());
  EXPECT_DOUBLE_EQ(real.asNumber(), 0.0025);
  EXPECT_TRUE(parseOk("1.0").isInteger());
  EXPECT_TRUE(parseOk("1e3").isInteger());
  EXPECT_EQ(parseOk("1e3").asInteger(), 1000);
  EXPECT_FALSE(parseOk("1.5").isInteger());
  EXPECT_EQ(parseOk("0").asInteger(), 0);
  EXPECT_EQ(parseOk("-0").asInteger(), 0);
}

TEST(JsonTest, StringEscapes) {
  JsonValue value = parseOk(R"("a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00")");
  ASSERT_TRUE(value.isString());
  EXPECT_EQ(value.asString(), "a\"b\\c/d\b\f\n\r\tA\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
}

TEST(JsonTest, ArraysAndObjects) {
  JsonValue value = parseOk(R"({"a": [1, 2, {"b": null}], "c": {}, "d": []})");
  ASSERT_TRUE(value.isObject());
  ASSERT_EQ(value.asObject().size(), 3u);
  EXPECT_EQ(value.asObject()[0].first, "a"); // order kept
  const JsonValue *a = value.find("a");
  ASSERT_TRUE(a && a->isArray());
  ASSERT_EQ(a->asArray().size(), 3u);
  EXPECT_EQ(a->asArray()[1].asInteger(), 2);
  EXPECT_TRUE(a->asArray()[2].find("b")->isNull());
  EXPECT_TRUE(value.find("c")->isObject());
  EXPECT_TRUE(value.find("d")->asArray().empty());
  EXPECT_EQ(value.find("missing"), nullptr);
}

TEST(JsonTest, Errors) {
  EXPECT_EQ(parseError(""),
            "invalid JSON at line 1, column 1: unexpected end of input, "
            "expected a value");
  EXPECT_EQ(parseError("{\n  \"a\": 1,\n  \"b\" 2\n}"),
            "invalid JSON at line 3, column 7: unexpected '2', expected ':'");
  EXPECT_EQ(parseError("[1, 2"),
            "invalid JSON at line 1, column 6: unexpected end of input, "
            "expected ',' or ']'");
  EXPECT_EQ(parseError("{\"a\": 1, \"a\": 2}"),
            "invalid JSON at line 1, column 10: duplicate key \"a\"");
  EXPECT_EQ(parseError("[1] x"),
            "invalid JSON at line 1, column 5: unexpected text after the JSON "
            "value");
  EXPECT_NE(parseError("\"abc").find("unterminated string"), std::string::npos);
  EXPECT_NE(parseError("\"a\nb\"").find("control character"), std::string::npos);
  EXPECT_NE(parseError(R"("\x")").find("invalid escape sequence '\\x'"),
            std::string::npos);
  EXPECT_NE(parseError(R"("\ud800")").find("surrogate"), std::string::npos);
  EXPECT_NE(parseError(R"("\u12g4")").find("invalid hex digit"),
            std::string::npos);
  EXPECT_NE(parseError("01").find("unexpected text"), std::string::npos);
  EXPECT_NE(parseError("1.").find("expected a digit after '.'"),
            std::string::npos);
  EXPECT_NE(parseError("-").find("expected a digit"), std::string::npos);
  EXPECT_NE(parseError("tru").find("expected 'true'"), std::string::npos);
  EXPECT_NE(parseError("{1: 2}").find("expected a key"), std::string::npos);
  EXPECT_NE(parseError(std::string(300, '[') + std::string(300, ']'))
                .find("nesting deeper than 256 levels"),
            std::string::npos);
}

TEST(JsonTest, SerializeRoundTrip) {
  JsonValue object = JsonValue::object();
  object.set("name", "a\"b\n\x01");
  object.set("n", int64_t(-3));
  object.set("x", 0.1);
  object.set("t", true);
  object.set("z", nullptr);
  JsonValue array = JsonValue::array();
  array.push(1);
  array.push("s");
  object.set("list", array);
  object.set("n", int64_t(4)); // replaces
  const std::string text = object.serialize();
  EXPECT_EQ(text, R"({"name":"a\"b\n\u0001","n":4,"x":0.1,"t":true,"z":null,"list":[1,"s"]})");
  auto back = JsonValue::parse(object.serialize(2));
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->serialize(), text);
}

TEST(JsonTest, NonFiniteNumbersBecomeNull) {
  EXPECT_EQ(JsonValue(std::numeric_limits<double>::infinity()).serialize(),
            "null");
}

} // namespace
