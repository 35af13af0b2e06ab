#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fprev/json.hpp"

namespace fprev {
namespace {

TEST(Json, ScalarsAndEscaping) {
  EXPECT_EQ(Json().dump(), "null");
  EXPECT_EQ(Json(true).dump(), "true");
  EXPECT_EQ(Json(-3).dump(), "-3");
  EXPECT_EQ(Json(std::uint64_t{18446744073709551615u}).dump(), "18446744073709551615");
  EXPECT_EQ(Json(0.5).dump(), "0.5");
  EXPECT_EQ(Json(std::numeric_limits<double>::quiet_NaN()).dump(), "null");
  EXPECT_EQ(Json(std::numeric_limits<double>::infinity()).dump(), "null");
  EXPECT_EQ(Json("a\"b\\c\n\t\x01").dump(), "\"a\\\"b\\\\c\\n\\t\\u0001\"");
}

TEST(Json, Utf8IsKeptAndInvalidBytesAreReplaced) {
  EXPECT_EQ(json_quote("\xc3\xa9"), "\"\xc3\xa9\"");  // e with acute accent, valid 2-byte UTF-8
  EXPECT_EQ(json_quote("a\xff" "b"), "\"a\\ufffdb\"");
  EXPECT_EQ(json_quote("\xc3"), "\"\\ufffd\"");           // truncated sequence
  EXPECT_EQ(json_quote("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");  // UTF-16 surrogate
}

TEST(Json, ObjectsKeepInsertionOrderAndReplaceKeys) {
  Json object = Json::object();
  object.set("b", 1).set("a", Json::array()).set("b", "x");
  EXPECT_EQ(object.dump(), "{\"b\":\"x\",\"a\":[]}");
  ASSERT_NE(object.find("a"), nullptr);
  EXPECT_EQ(object.find("c"), nullptr);
  EXPECT_EQ(object.size(), 2u);
}

TEST(Json, PrettyPrinting) {
  Json inner = Json::array();
  inner.push_back(1).push_back(Json::object());
  Json object = Json::object();
  object.set("list", std::move(inner)).set("name", "t");
  EXPECT_EQ(object.dump(2), "{\n  \"list\": [\n    1,\n    {}\n  ],\n  \"name\": \"t\"\n}");
}

}  // namespace
}  // namespace fprev
