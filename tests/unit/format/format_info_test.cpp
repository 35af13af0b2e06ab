// Format parameters (checked against the formats' published definitions) and name parsing.
#include <gtest/gtest.h>

#include <string>

#include "fprev/format.hpp"

namespace {

using fprev::Format;

struct Expected {
  Format format;
  const char* name;
  int precision;
  int max_exponent;
  int min_exponent;
  bool has_infinity;
  double max_finite;
};

// IEEE 754 binary64/32/16; tf32 = 1 + 8 + 10 bits; bfloat16 = 1 + 8 + 7 bits; OCP FP8 e4m3 (fn,
// max 448) and e5m2 (max 57344).
constexpr Expected kExpected[] = {
    {Format::float64, "float64", 53, 1023, -1022, true, 1.7976931348623157e308},
    {Format::float32, "float32", 24, 127, -126, true, 3.4028234663852886e38},
    {Format::tf32, "tf32", 11, 127, -126, true, 3.4011621342146535e38},  // (2 - 2^-10) 2^127
    {Format::float16, "float16", 11, 15, -14, true, 65504.0},
    {Format::bfloat16, "bfloat16", 8, 127, -126, true, 3.3895313892515355e38},  // (2 - 2^-7) 2^127
    {Format::fp8_e4m3, "fp8_e4m3", 4, 8, -6, false, 448.0},
    {Format::fp8_e5m2, "fp8_e5m2", 3, 15, -14, true, 57344.0},
};

TEST(FormatInfo, MatchesThePublishedParameters) {
  ASSERT_EQ(fprev::all_formats().size(), std::size(kExpected));
  for (std::size_t i = 0; i < std::size(kExpected); ++i) {
    const Expected& e = kExpected[i];
    SCOPED_TRACE(e.name);
    EXPECT_EQ(fprev::all_formats()[i], e.format);
    const fprev::FormatInfo& info = fprev::format_info(e.format);
    EXPECT_EQ(info.name, e.name);
    EXPECT_EQ(fprev::to_string(e.format), e.name);
    EXPECT_EQ(info.precision, e.precision);
    EXPECT_EQ(info.max_exponent, e.max_exponent);
    EXPECT_EQ(info.min_exponent, e.min_exponent);
    EXPECT_EQ(info.has_infinity, e.has_infinity);
    EXPECT_EQ(info.max_finite, e.max_finite);
  }
}

TEST(FormatInfo, NamesListAndParsing) {
  EXPECT_EQ(fprev::format_names(), "float64, float32, tf32, float16, bfloat16, fp8_e4m3, fp8_e5m2");
  for (const Expected& e : kExpected) EXPECT_EQ(fprev::parse_format(e.name), e.format) << e.name;
  EXPECT_EQ(fprev::parse_format("fp64"), Format::float64);
  EXPECT_EQ(fprev::parse_format("fp32"), Format::float32);
  EXPECT_EQ(fprev::parse_format("fp16"), Format::float16);
  EXPECT_EQ(fprev::parse_format("bf16"), Format::bfloat16);
  EXPECT_EQ(fprev::parse_format("e4m3"), Format::fp8_e4m3);
  EXPECT_EQ(fprev::parse_format("e5m2"), Format::fp8_e5m2);
  for (const char* bad : {"", "half", "FP16", "float", "fp8", "float16 ", "e4m3fn"}) {
    EXPECT_FALSE(fprev::parse_format(bad).has_value()) << '"' << bad << '"';
  }
}

}  // namespace
