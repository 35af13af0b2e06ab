// Bit encodings of float16, bfloat16, fp8 e4m3 and e5m2: hand-checked patterns, and exhaustive
// round trips over every bit pattern, compared with the formats' values enumerated from their
// definition.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fprev/format.hpp"
#include "reference_grid.hpp"

namespace {

using fprev::Format;

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Codec {
  std::string name;
  Format format;
  int width;  // total bits
  std::function<std::uint32_t(double)> encode;
  std::function<double(std::uint32_t)> decode;
  std::function<bool(std::uint32_t)> is_nan_pattern;  // from the format's specification
  fprev_test::ReferenceGrid grid;
};

std::vector<Codec> codecs() {
  return {
      {"float16", Format::float16, 16, [](double x) { return std::uint32_t{fprev::encode_float16(x)}; },
       [](std::uint32_t b) { return fprev::decode_float16(static_cast<std::uint16_t>(b)); },
       [](std::uint32_t b) { return (b & 0x7c00u) == 0x7c00u && (b & 0x03ffu) != 0; },
       fprev_test::ReferenceGrid(11, -14, 15, true)},
      {"bfloat16", Format::bfloat16, 16,
       [](double x) { return std::uint32_t{fprev::encode_bfloat16(x)}; },
       [](std::uint32_t b) { return fprev::decode_bfloat16(static_cast<std::uint16_t>(b)); },
       [](std::uint32_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x007fu) != 0; },
       fprev_test::ReferenceGrid(8, -126, 127, true)},
      {"fp8_e4m3", Format::fp8_e4m3, 8, [](double x) { return std::uint32_t{fprev::encode_fp8_e4m3(x)}; },
       [](std::uint32_t b) { return fprev::decode_fp8_e4m3(static_cast<std::uint8_t>(b)); },
       [](std::uint32_t b) { return (b & 0x7fu) == 0x7fu; },
       fprev_test::ReferenceGrid(4, -6, 8, false, 1)},
      {"fp8_e5m2", Format::fp8_e5m2, 8, [](double x) { return std::uint32_t{fprev::encode_fp8_e5m2(x)}; },
       [](std::uint32_t b) { return fprev::decode_fp8_e5m2(static_cast<std::uint8_t>(b)); },
       [](std::uint32_t b) { return (b & 0x7cu) == 0x7cu && (b & 0x03u) != 0; },
       fprev_test::ReferenceGrid(3, -14, 15, true)},
  };
}

TEST(Encoding, Float16HandCheckedPatterns) {
  EXPECT_EQ(fprev::decode_float16(0x3c00), 1.0);
  EXPECT_EQ(fprev::decode_float16(0xc000), -2.0);
  EXPECT_EQ(fprev::decode_float16(0x7bff), 65504.0);
  EXPECT_EQ(fprev::decode_float16(0x0400), 0x1p-14);
  EXPECT_EQ(fprev::decode_float16(0x03ff), 1023 * 0x1p-24);
  EXPECT_EQ(fprev::decode_float16(0x0001), 0x1p-24);
  EXPECT_EQ(fprev::decode_float16(0x3555), 0x1.554p-2);
  EXPECT_EQ(fprev::decode_float16(0x7c00), kInf);
  EXPECT_EQ(fprev::decode_float16(0xfc00), -kInf);
  EXPECT_TRUE(std::signbit(fprev::decode_float16(0x8000)));
  EXPECT_TRUE(std::isnan(fprev::decode_float16(0x7e00)));
  EXPECT_TRUE(std::isnan(fprev::decode_float16(0x7c01)));
  EXPECT_EQ(fprev::encode_float16(1.0), 0x3c00);
  EXPECT_EQ(fprev::encode_float16(-0.0), 0x8000);
  EXPECT_EQ(fprev::encode_float16(65504.0), 0x7bff);
  EXPECT_EQ(fprev::encode_float16(65520.0), 0x7c00);  // rounds to infinity
  EXPECT_EQ(fprev::encode_float16(-1e10), 0xfc00);
  EXPECT_EQ(fprev::encode_float16(0x1p-25), 0x0000);   // tie to even zero
  EXPECT_EQ(fprev::encode_float16(0x3p-26), 0x0001);   // 0.75 x 2^-24 rounds up
  EXPECT_EQ(fprev::encode_float16(1.0 + 0x3p-11), 0x3c02);
  EXPECT_EQ(fprev::encode_float16(0x1p-14 - 0x1p-26), 0x0400);  // rounds up into the normals
  EXPECT_EQ(fprev::encode_float16(std::nan("")) & 0x7e00, 0x7e00);
}

TEST(Encoding, Bfloat16HandCheckedPatterns) {
  EXPECT_EQ(fprev::decode_bfloat16(0x3f80), 1.0);
  EXPECT_EQ(fprev::decode_bfloat16(0x4049), 3.140625);
  EXPECT_EQ(fprev::decode_bfloat16(0x7f7f), 0x1.fep127);
  EXPECT_EQ(fprev::decode_bfloat16(0x0080), 0x1p-126);
  EXPECT_EQ(fprev::decode_bfloat16(0x0001), 0x1p-133);
  EXPECT_EQ(fprev::decode_bfloat16(0xff80), -kInf);
  EXPECT_TRUE(std::isnan(fprev::decode_bfloat16(0x7fc0)));
  EXPECT_EQ(fprev::encode_bfloat16(3.14159265358979), 0x4049);
  EXPECT_EQ(fprev::encode_bfloat16(1.0 + 0x1p-8), 0x3f80);  // tie to even
  EXPECT_EQ(fprev::encode_bfloat16(1.0 + 0x3p-8), 0x3f82);
  EXPECT_EQ(fprev::encode_bfloat16(0x1.ffp127), 0x7f80);
}

TEST(Encoding, Fp8HandCheckedPatterns) {
  EXPECT_EQ(fprev::decode_fp8_e4m3(0x38), 1.0);
  EXPECT_EQ(fprev::decode_fp8_e4m3(0x7e), 448.0);
  EXPECT_EQ(fprev::decode_fp8_e4m3(0xfe), -448.0);
  EXPECT_EQ(fprev::decode_fp8_e4m3(0x78), 256.0);  // exponent field 1111 is an ordinary binade
  EXPECT_EQ(fprev::decode_fp8_e4m3(0x77), 240.0);
  EXPECT_EQ(fprev::decode_fp8_e4m3(0x08), 0x1p-6);
  EXPECT_EQ(fprev::decode_fp8_e4m3(0x07), 0x7p-9);
  EXPECT_EQ(fprev::decode_fp8_e4m3(0x01), 0x1p-9);
  EXPECT_TRUE(std::signbit(fprev::decode_fp8_e4m3(0x80)));
  EXPECT_TRUE(std::isnan(fprev::decode_fp8_e4m3(0x7f)));
  EXPECT_TRUE(std::isnan(fprev::decode_fp8_e4m3(0xff)));
  EXPECT_EQ(fprev::encode_fp8_e4m3(464.0), 0x7e);  // ties to the even 448
  EXPECT_EQ(fprev::encode_fp8_e4m3(465.0) & 0x7f, 0x7f);
  EXPECT_EQ(fprev::encode_fp8_e4m3(kInf), 0x7f);  // no infinity: NaN
  EXPECT_EQ(fprev::encode_fp8_e4m3(-kInf), 0xff);
  EXPECT_EQ(fprev::encode_fp8_e4m3(-1.0), 0xb8);

  EXPECT_EQ(fprev::decode_fp8_e5m2(0x3c), 1.0);
  EXPECT_EQ(fprev::decode_fp8_e5m2(0x7b), 57344.0);
  EXPECT_EQ(fprev::decode_fp8_e5m2(0x04), 0x1p-14);
  EXPECT_EQ(fprev::decode_fp8_e5m2(0x01), 0x1p-16);
  EXPECT_EQ(fprev::decode_fp8_e5m2(0x7c), kInf);
  EXPECT_EQ(fprev::decode_fp8_e5m2(0xfc), -kInf);
  EXPECT_TRUE(std::isnan(fprev::decode_fp8_e5m2(0x7d)));
  EXPECT_TRUE(std::isnan(fprev::decode_fp8_e5m2(0xff)));
  EXPECT_EQ(fprev::encode_fp8_e5m2(61439.0), 0x7b);
  EXPECT_EQ(fprev::encode_fp8_e5m2(61440.0), 0x7c);
  EXPECT_EQ(fprev::encode_fp8_e5m2(-1.5), 0xbe);
}

// Every pattern: NaN patterns decode to NaN (and only they), every other pattern survives
// decode -> encode unchanged (signed zeros and infinities included), the non-negative finite
// patterns decode in increasing order to exactly the values enumerated from the definition.
TEST(Encoding, ExhaustiveRoundTrips) {
  for (const Codec& c : codecs()) {
    SCOPED_TRACE(c.name);
    const std::uint32_t count = 1u << c.width;
    const std::uint32_t sign_bit = count >> 1;
    std::vector<double> positives;
    for (std::uint32_t bits = 0; bits < count; ++bits) {
      const double value = c.decode(bits);
      ASSERT_EQ(std::isnan(value), c.is_nan_pattern(bits)) << std::hex << bits;
      if (std::isnan(value)) {
        ASSERT_TRUE(c.is_nan_pattern(c.encode(value))) << std::hex << bits;
        continue;
      }
      ASSERT_EQ(c.encode(value), bits) << std::hex << bits << " decodes to " << std::hexfloat << value;
      ASSERT_EQ(std::signbit(value), (bits & sign_bit) != 0) << std::hex << bits;
      ASSERT_TRUE(std::isinf(value) || fprev::is_representable(value, c.format));
      if (bits < sign_bit && std::isfinite(value)) positives.push_back(value);
      if (bits >= sign_bit) {
        ASSERT_EQ(value, -c.decode(bits - sign_bit));
      }
    }
    EXPECT_EQ(positives, c.grid.finite_values());
  }
}

// Encoding rounds like round_to_format: decode(encode(x)) is the rounded x.
TEST(Encoding, EncodeRoundsToNearestEven) {
  std::mt19937_64 rng(5);
  for (const Codec& c : codecs()) {
    SCOPED_TRACE(c.name);
    const int emin = fprev::format_info(c.format).min_exponent;
    const int emax = fprev::format_info(c.format).max_exponent;
    for (int i = 0; i < 50000; ++i) {
      const double significand = 1.0 + static_cast<double>(rng() >> 12) * 0x1p-52;
      const int exponent = emin - 12 + static_cast<int>(rng() % static_cast<std::uint64_t>(emax - emin + 15));
      const double x = std::ldexp(rng() % 2 ? -significand : significand, exponent);
      const double expected = c.grid.round(x);
      const double actual = c.decode(c.encode(x));
      if (std::isnan(expected)) {
        ASSERT_TRUE(std::isnan(actual)) << std::hexfloat << x;
      } else {
        ASSERT_EQ(actual, expected) << std::hexfloat << x;
        ASSERT_EQ(std::signbit(actual), std::signbit(x)) << std::hexfloat << x;
      }
    }
  }
}

}  // namespace
