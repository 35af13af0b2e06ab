// Mask schemes checked by simulation: for every input / accumulator / output format, summand kind,
// fused extra bits and several n, the guarantees of mask_scheme.hpp are verified with arithmetic
// simulated through round_to_format (exact_arithmetic.hpp), not by re-deriving the formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "exact_arithmetic.hpp"
#include "fprev/format.hpp"
#include "fprev/mask_scheme.hpp"

namespace {

using fprev::DecodeStatus;
using fprev::Format;
using fprev::MaskScheme;
using fprev::NumericTraits;
using fprev::SummandKind;
using fprev_test::add_in;
using fprev_test::fused_sum;

constexpr Format kInputs[] = {Format::float64,  Format::float32,  Format::tf32,    Format::float16,
                              Format::bfloat16, Format::fp8_e4m3, Format::fp8_e5m2};
constexpr Format kAccumulators[] = {Format::float16, Format::bfloat16, Format::float32, Format::float64};
constexpr SummandKind kKinds[] = {SummandKind::plain, SummandKind::product,
                                  SummandKind::product_shared_rhs};
constexpr int kExtraBits[] = {0, 3};
constexpr std::size_t kSizes[] = {1, 2, 3, 16, 100, 1000, 2049, 4097, 1u << 20, 1000000,
                                  std::size_t{1} << 40};

// Significand bits of each format, from its definition.
int significand_bits(Format f) {
  switch (f) {
    case Format::float16: return 11;
    case Format::bfloat16: return 8;
    case Format::float32: return 24;
    case Format::float64: return 53;
    case Format::tf32: return 11;
    case Format::fp8_e4m3: return 4;
    case Format::fp8_e5m2: return 3;
  }
  return 0;
}

std::string label(const NumericTraits& t) {
  const char* kinds[] = {"plain", "product", "product_shared_rhs"};
  return std::string(fprev::to_string(t.input)) + " -> " + std::string(fprev::to_string(t.accumulator)) +
         " -> " + std::string(fprev::to_string(t.output)) + ", " + kinds[static_cast<int>(t.summand)] +
         ", extra bits " + std::to_string(t.fused_extra_bits);
}

NumericTraits traits_of(Format input, Format accumulator, Format output, SummandKind kind, int extra) {
  NumericTraits t;
  t.input = input;
  t.accumulator = accumulator;
  t.output = output;
  t.summand = kind;
  t.fused_extra_bits = extra;
  return t;
}

double smallest_normal(Format f) { return std::ldexp(1.0, fprev::format_info(f).min_exponent); }

// The guarantees that n asks for: n is covered, and the sum of all n units decodes.
void check_scheme_covers(std::size_t n, const NumericTraits& t, const MaskScheme& s) {
  ASSERT_LE(static_cast<std::uint64_t>(std::max<std::size_t>(n, 2)), s.max_summands);
  const double all_units = fprev::round_to_format(
      fprev::round_to_format(std::ldexp(static_cast<double>(n), s.unit_exponent), t.accumulator),
      t.output);
  const fprev::DecodedOutput all = fprev::decode_output(s, all_units);
  if (n < s.exact_count_limit) {
    ASSERT_EQ(all.status, DecodeStatus::exact);
    ASSERT_EQ(all.count, n);
  } else {
    ASSERT_EQ(all.status, DecodeStatus::saturated) << all_units;
  }
}

// All guarantees of one scheme that do not depend on n, by simulation. Fatal failures stop at the
// first broken guarantee.
void check_scheme_values(const NumericTraits& t, const MaskScheme& s) {
  const Format fi = t.input;
  const Format fa = t.accumulator;
  const Format fo = t.output;
  const fprev::ProbeValues& v = s.values;

  // Factors exact in the input format; plain summands have b == 1; a shared rhs is one constant.
  for (const fprev::SummandValue& f : {v.unit, v.plus, v.minus, v.zero()}) {
    ASSERT_TRUE(fprev::is_representable(f.a, fi)) << f.a;
    ASSERT_TRUE(fprev::is_representable(f.b, fi)) << f.b;
  }
  ASSERT_EQ(v.zero().a, 0.0);
  bool subnormal = false;
  for (double factor : {v.unit.a, v.unit.b, v.plus.a, v.plus.b}) {
    subnormal = subnormal || std::fabs(factor) < smallest_normal(fi);
  }
  ASSERT_EQ(s.subnormal_factors, subnormal);
  if (t.summand == SummandKind::plain) {
    ASSERT_EQ(v.unit.b, 1.0);
    ASSERT_EQ(v.plus.b, 1.0);
    ASSERT_EQ(v.minus.b, 1.0);
  }
  if (t.summand == SummandKind::product_shared_rhs) {
    ASSERT_EQ(v.plus.b, v.unit.b);
    ASSERT_EQ(v.minus.b, v.unit.b);
  }

  // The products, and their consistency with the reported exponents.
  const double mask = v.plus.value();
  const double unit = v.unit.value();
  ASSERT_EQ(v.minus.value(), -mask);
  ASSERT_EQ(unit, s.output_unit);
  ASSERT_EQ(mask, std::ldexp(1.0, s.mask_exponent));
  ASSERT_EQ(unit, std::ldexp(1.0, s.unit_exponent));
  ASSERT_GT(mask, unit);

  // M exact in the accumulator with headroom (M + M stays finite); the unit normal in fa and fo.
  ASSERT_TRUE(fprev::is_representable(mask, fa));
  ASSERT_TRUE(std::isfinite(add_in(mask, mask, fa)));
  ASSERT_GE(unit, smallest_normal(fa));
  ASSERT_GE(unit, smallest_normal(fo));

  // M - M == 0.
  ASSERT_EQ(add_in(mask, -mask, fa), 0.0);
  ASSERT_EQ(add_in(-mask, mask, fa), 0.0);

  ASSERT_GE(s.max_summands, 2u);
  ASSERT_EQ(s.max_summands, std::uint64_t{1} << std::min(s.max_summands_log2, 63));

  // Absorption: every partial sum of at most max_summands units (a value of fa, at most
  // max_summands * unit since that is a power of two) vanishes next to +-M, in an IEEE addition
  // and in a fused sum keeping fused_extra_bits extra bits.
  std::set<std::uint64_t> counts = {1, 2, 3, 5, 7};
  for (int j = 1; j <= std::min(s.max_summands_log2, 63); ++j) {
    const std::uint64_t p = std::uint64_t{1} << j;
    counts.insert({p - 1, p, p + 1});
  }
  for (std::uint64_t k : counts) {
    if (k > s.max_summands) continue;
    const double partial = fprev::round_to_format(std::ldexp(static_cast<double>(k), s.unit_exponent), fa);
    ASSERT_EQ(add_in(mask, partial, fa), mask) << "k = " << k;
    ASSERT_EQ(add_in(partial, mask, fa), mask) << "k = " << k;
    ASSERT_EQ(add_in(-mask, partial, fa), -mask) << "k = " << k;
    ASSERT_EQ(add_in(partial, -mask, fa), -mask) << "k = " << k;
    for (double m : {mask, -mask}) {
      const fprev_test::FusedSum fused = fused_sum({m, partial, unit, partial, unit}, fa, t.fused_extra_bits);
      ASSERT_TRUE(fused.every_small_term_vanished) << "k = " << k << ", M = " << m;
      ASSERT_EQ(fused.result, m) << "k = " << k;
    }
  }
  // Not vacuous: one ulp of M in fa is not absorbed.
  const double ulp = std::ldexp(1.0, s.mask_exponent - fprev::format_info(fa).precision + 1);
  ASSERT_NE(add_in(mask, ulp, fa), mask);

  // Exact counts.
  const int exact_bits = std::min(significand_bits(fa), significand_bits(fo));
  ASSERT_EQ(s.exact_count_limit, std::uint64_t{1} << exact_bits);
  const std::uint64_t limit = s.exact_count_limit;
  std::set<std::uint64_t> exact;
  for (std::uint64_t k = 0; k < std::min<std::uint64_t>(limit, 3000); ++k) exact.insert(k);
  for (int j = 1; j < exact_bits; ++j) exact.insert({(std::uint64_t{1} << j) - 1, (std::uint64_t{1} << j) + 1});
  exact.insert(limit - 1);
  std::mt19937_64 rng(static_cast<std::uint64_t>(s.unit_exponent) * 31u + limit);
  for (int i = 0; i < 200; ++i) exact.insert(rng() % limit);
  for (std::uint64_t k : exact) {
    if (k >= limit) continue;
    const double value = std::ldexp(static_cast<double>(k), s.unit_exponent);  // k < 2^53: exact
    ASSERT_TRUE(fprev::is_representable(value, fa)) << "k = " << k;
    ASSERT_TRUE(fprev::is_representable(value, fo)) << "k = " << k;
    const fprev::DecodedOutput decoded = fprev::decode_output(s, value);
    ASSERT_EQ(decoded.status, DecodeStatus::exact) << "k = " << k;
    ASSERT_EQ(decoded.count, k);
  }
  // Adding units one at a time in fa counts exactly.
  double running = 0.0;
  for (std::uint64_t k = 1; k < std::min<std::uint64_t>(limit, 2100); ++k) {
    running = add_in(running, unit, fa);
    ASSERT_EQ(running, std::ldexp(static_cast<double>(k), s.unit_exponent)) << "k = " << k;
  }
  // The sum of max_summands units stays finite in fa and fo (decodes, possibly saturated).
  check_scheme_covers(static_cast<std::size_t>(s.max_summands), t, s);
  if (::testing::Test::HasFatalFailure()) return;

  // Decoding of outputs that are not exact counts.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(fprev::decode_output(s, nan).status, DecodeStatus::non_finite);
  EXPECT_EQ(fprev::decode_output(s, inf).status, DecodeStatus::non_finite);
  EXPECT_EQ(fprev::decode_output(s, -inf).status, DecodeStatus::non_finite);
  EXPECT_EQ(fprev::decode_output(s, -unit).status, DecodeStatus::negative);
  EXPECT_EQ(fprev::decode_output(s, -mask).status, DecodeStatus::negative);
  EXPECT_EQ(fprev::decode_output(s, 0.5 * unit).status, DecodeStatus::not_whole);
  EXPECT_EQ(fprev::decode_output(s, 1.5 * unit).status, DecodeStatus::not_whole);
  EXPECT_EQ(fprev::decode_output(s, std::nextafter(unit, 0.0)).status, DecodeStatus::not_whole);
  EXPECT_EQ(fprev::decode_output(s, -0.0).status, DecodeStatus::exact);
  EXPECT_EQ(fprev::decode_output(s, -0.0).count, 0u);
  const double at_limit = std::ldexp(static_cast<double>(limit), s.unit_exponent);
  EXPECT_EQ(fprev::decode_output(s, at_limit).status, DecodeStatus::saturated);
  EXPECT_EQ(fprev::decode_output(s, at_limit).count, limit);
  const fprev::DecodedOutput beyond = fprev::decode_output(s, at_limit + 2 * unit);
  EXPECT_EQ(beyond.status, DecodeStatus::saturated);
  EXPECT_EQ(beyond.count, limit + 2);
}

TEST(MaskScheme, GuaranteesHoldForEveryFormatCombination) {
  int checked = 0;
  int impossible = 0;
  for (Format input : kInputs) {
    for (Format accumulator : kAccumulators) {
      for (Format output : kAccumulators) {
        for (SummandKind kind : kKinds) {
          for (int extra : kExtraBits) {
            const NumericTraits t = traits_of(input, accumulator, output, kind, extra);
            SCOPED_TRACE(label(t));
            const std::uint64_t largest = fprev::largest_maskable_n(t);
            std::tuple<double, double, double, double> last_checked{};
            for (std::size_t n : kSizes) {
              SCOPED_TRACE("n = " + std::to_string(n));
              const bool expected_possible = largest >= 2 && std::max<std::size_t>(n, 2) <= largest;
              if (!expected_possible) {
                EXPECT_THROW(fprev::choose_mask_scheme(t, n), fprev::MaskSchemeError);
                ++impossible;
                continue;
              }
              const MaskScheme s = fprev::choose_mask_scheme(t, n);
              // The simulation of the n-independent guarantees runs once per distinct scheme.
              const auto key = std::make_tuple(s.values.plus.a, s.values.plus.b, s.values.unit.a,
                                               s.values.unit.b);
              if (key != last_checked) check_scheme_values(t, s);
              last_checked = key;
              check_scheme_covers(n, t, s);
              if (::testing::Test::HasFatalFailure()) return;
              ++checked;
            }
          }
        }
      }
    }
  }
  // The realistic combinations are mostly possible; a few narrow-input ones are not.
  EXPECT_GT(checked, 5000);
  EXPECT_GT(impossible, 100);
}

// The crossed scheme of the pair grid (row r of op(A) holds the large factor at one leaf, column c
// of op(B) the negative one at another): every guarantee of a scheme, by the same simulation, for
// every format combination where it exists, and each mask a large factor times the other side's
// unit factor, every factor a normal number of the input format.
TEST(MaskScheme, CrossedSchemesOfThePairGridKeepEveryGuarantee) {
  int checked = 0;
  for (Format input : kInputs)
    for (Format accumulator : kAccumulators)
      for (Format output : kAccumulators)
        for (int extra : kExtraBits)
          for (std::size_t n : {std::size_t{3}, std::size_t{100}, std::size_t{1000}}) {
            const NumericTraits t = traits_of(input, accumulator, output, SummandKind::product, extra);
            SCOPED_TRACE(label(t) + ", n = " + std::to_string(n));
            const std::optional<MaskScheme> s = fprev::choose_crossed_mask_scheme(t, n);
            if (!s) continue;
            const fprev::ProbeValues& v = s->values;
            EXPECT_EQ(v.plus.b, v.unit.b);   // +M: row r's large factor times column c's unit factor
            EXPECT_EQ(v.minus.a, v.unit.a);  // -M: row r's unit factor times column c's large one
            for (double factor : {v.unit.a, v.unit.b, v.plus.a, v.minus.b}) {
              EXPECT_TRUE(fprev::is_representable(factor, input)) << factor;
              EXPECT_GE(std::fabs(factor), smallest_normal(input)) << factor;
            }
            EXPECT_FALSE(s->subnormal_factors);
            // Where a row's and a column's large factors meet, the product and a sum of units
            // with it stay finite in the accumulator and the output: no call overflows.
            const double meeting = v.plus.a * v.minus.b;
            EXPECT_TRUE(fprev::is_representable(meeting, accumulator)) << meeting;
            EXPECT_TRUE(std::isfinite(add_in(meeting, meeting, accumulator))) << meeting;
            EXPECT_TRUE(std::isfinite(fprev::round_to_format(meeting, output))) << meeting;
            check_scheme_values(t, *s);
            check_scheme_covers(n, t, *s);
            if (::testing::Test::HasFatalFailure()) return;
            ++checked;
          }
  EXPECT_GT(checked, 100);
  // float32 GEMM inputs: M = 1 (2^63 x 2^-63), unit 2^-126 (2^-63 x 2^-63); where the large factors
  // meet, 2^63 x -2^63 = -2^126, finite.
  const NumericTraits sgemm = traits_of(Format::float32, Format::float32, Format::float32,
                                        SummandKind::product_shared_rhs, 0);
  const std::optional<MaskScheme> s = fprev::choose_crossed_mask_scheme(sgemm, 512);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->values.plus.a, std::ldexp(1.0, 63));
  EXPECT_EQ(s->values.minus.b, -std::ldexp(1.0, 63));
  EXPECT_EQ(s->values.unit.a, std::ldexp(1.0, -63));
  EXPECT_EQ(s->mask_exponent, 0);
  EXPECT_EQ(s->unit_exponent, -126);
  // float16 factors cannot hold a crossed mask for 1000 float32 summands.
  EXPECT_FALSE(fprev::choose_crossed_mask_scheme(
      traits_of(Format::float16, Format::float32, Format::float32, SummandKind::product, 0), 1000));
}

// largest_maskable_n is the exact boundary: it is accepted, one more is not. Every format as
// accumulator and output here, the unrealistic ones (tf32, fp8) included.
TEST(MaskScheme, LargestMaskableNIsTheBoundary) {
  for (Format input : kInputs) {
    for (Format accumulator : kInputs) {
      for (Format output : kInputs) {
        for (SummandKind kind : kKinds) {
          for (int extra : kExtraBits) {
            const NumericTraits t = traits_of(input, accumulator, output, kind, extra);
            SCOPED_TRACE(label(t));
            const std::uint64_t largest = fprev::largest_maskable_n(t);
            if (largest == 0) {
              EXPECT_THROW(fprev::choose_mask_scheme(t, 2), fprev::MaskSchemeError);
              EXPECT_THROW(fprev::choose_mask_scheme(t, 1), fprev::MaskSchemeError);
              continue;
            }
            ASSERT_GE(largest, 2u);
            ASSERT_EQ(largest & (largest - 1), 0u);  // a power of two
            const MaskScheme s = fprev::choose_mask_scheme(t, largest);
            check_scheme_values(t, s);
            check_scheme_covers(static_cast<std::size_t>(largest), t, s);
            if (::testing::Test::HasFatalFailure()) return;
            if (largest < (std::uint64_t{1} << 63)) {
              EXPECT_THROW(fprev::choose_mask_scheme(t, largest + 1), fprev::MaskSchemeError);
            }
          }
        }
      }
    }
  }
}

// Schemes worked out by hand from the rules (M = 2^em as large as the accumulator allows with two
// bits of headroom, unit as small as the input / accumulator / output allow; absorbs
// 2^(em - eu - p_a - guard)).
TEST(MaskScheme, HandDerivedSchemes) {
  // float32 dot into float32: em = 125 (= 62 + 63), eu = -126 (= -63 - 63), 251 - 24 - 2 = 225.
  MaskScheme s = fprev::choose_mask_scheme(
      traits_of(Format::float32, Format::float32, Format::float32, SummandKind::product, 0), 1000);
  EXPECT_EQ(s.describe(), "M = 2^62 x 2^63, unit = 2^-63 x 2^-63, exact counts < 2^24, absorbs up to 2^225 summands");
  EXPECT_EQ(s.max_summands, std::uint64_t{1} << 63);

  // float16 dot into float32: both factors span the normal float16 range [-14, 15].
  s = fprev::choose_mask_scheme(
      traits_of(Format::float16, Format::float32, Format::float32, SummandKind::product, 0), 1000);
  EXPECT_EQ(s.values.plus.a, 0x1p15);
  EXPECT_EQ(s.values.plus.b, 0x1p15);
  EXPECT_EQ(s.values.unit.a, 0x1p-14);
  EXPECT_EQ(s.values.unit.b, 0x1p-14);
  EXPECT_EQ(s.max_summands, std::uint64_t{1} << 32);  // 30 + 28 - 24 - 2
  EXPECT_FALSE(s.subnormal_factors);

  // float16 sum in float16: M = 2^13 (emax 15 - 2), unit = 2^-14, 27 - 11 - 2 = 14; 2048 exact.
  s = fprev::choose_mask_scheme(
      traits_of(Format::float16, Format::float16, Format::float16, SummandKind::plain, 0), 1000);
  EXPECT_EQ(s.describe(), "M = 2^13, unit = 2^-14, exact counts < 2^11, absorbs up to 2^14 summands");
  EXPECT_EQ(s.exact_count_limit, 2048u);

  // bfloat16 output: exact counts < 256.
  s = fprev::choose_mask_scheme(
      traits_of(Format::bfloat16, Format::float32, Format::bfloat16, SummandKind::product, 0), 1000);
  EXPECT_EQ(s.exact_count_limit, 256u);

  // fp8 e4m3 dot into float32 needs subnormal factors: 2^-9 x 2^-9 (Xie et al., USENIX ATC 2025 Sec. 8.1.1) with
  // M = 2^8 x 2^8; span 34 - 24 - 2 = 8: up to 256 summands, with 3 extra bits only 32.
  const NumericTraits e4m3_dot = traits_of(Format::fp8_e4m3, Format::float32, Format::float32,
                                           SummandKind::product, 0);
  s = fprev::choose_mask_scheme(e4m3_dot, 256);
  EXPECT_EQ(s.describe(),
            "M = 2^8 x 2^8, unit = 2^-9 x 2^-9, exact counts < 2^24, absorbs up to 2^8 summands, "
            "subnormal factors");
  EXPECT_THROW(fprev::choose_mask_scheme(e4m3_dot, 257), fprev::MaskSchemeError);
  NumericTraits e4m3_tensor_core = e4m3_dot;
  e4m3_tensor_core.fused_extra_bits = 3;
  EXPECT_EQ(fprev::largest_maskable_n(e4m3_tensor_core), 32u);

  // Normal factors are preferred while they suffice: float16 GEMM (shared rhs) into float32 spans
  // [-14, 15] with normal numbers, enough for 2^(29 - 26) = 8 summands; beyond that the unit moves
  // into the subnormals (2^-24: 2^(39 - 26) = 2^13 summands). b stays 1.
  const NumericTraits f16_gemm = traits_of(Format::float16, Format::float32, Format::float32,
                                           SummandKind::product_shared_rhs, 0);
  s = fprev::choose_mask_scheme(f16_gemm, 8);
  EXPECT_EQ(s.values.unit.a, 0x1p-14);
  EXPECT_EQ(s.values.unit.b, 1.0);
  EXPECT_EQ(s.values.plus.a, 0x1p15);
  EXPECT_FALSE(s.subnormal_factors);
  s = fprev::choose_mask_scheme(f16_gemm, 9);
  EXPECT_TRUE(s.subnormal_factors);
  EXPECT_EQ(s.values.unit.a, 0x1p-24);
  EXPECT_EQ(s.values.plus.a, 0x1p15);
  EXPECT_EQ(s.values.plus.b, 1.0);
  EXPECT_EQ(fprev::largest_maskable_n(f16_gemm), std::uint64_t{1} << 13);

  // float32 sum with float16 output: the unit must be normal in float16 (2^-14).
  s = fprev::choose_mask_scheme(
      traits_of(Format::float32, Format::float32, Format::float16, SummandKind::plain, 0), 1000000);
  EXPECT_EQ(s.unit_exponent, -14);
  EXPECT_EQ(s.mask_exponent, 125);
  EXPECT_EQ(s.exact_count_limit, 2048u);
}

TEST(MaskScheme, ImpossibleRequestsNameTheFormatsAndTheLimit) {
  const NumericTraits t = traits_of(Format::fp8_e4m3, Format::float32, Format::float32,
                                    SummandKind::plain, 0);
  try {
    fprev::choose_mask_scheme(t, 1000000);
    FAIL() << "fp8_e4m3 plain summands cannot be masked in a float32 accumulator";
  } catch (const fprev::MaskSchemeError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("fp8_e4m3"), std::string::npos) << message;
    EXPECT_NE(message.find("float32"), std::string::npos) << message;
    EXPECT_NE(message.find("1000000"), std::string::npos) << message;
    EXPECT_NE(message.find("any n"), std::string::npos) << message;
  }
  // fp8 e5m2 plain into float32: span 15 - (-16) = 31, 31 - 26 = 5: at most 32.
  const NumericTraits e5m2 = traits_of(Format::fp8_e5m2, Format::float32, Format::float32,
                                       SummandKind::plain, 0);
  try {
    fprev::choose_mask_scheme(e5m2, 33);
    FAIL() << "33 summands exceed the fp8_e5m2 range";
  } catch (const fprev::MaskSchemeError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("fp8_e5m2"), std::string::npos) << message;
    EXPECT_NE(message.find("n = 33"), std::string::npos) << message;
    EXPECT_NE(message.find("largest n supported is 32"), std::string::npos) << message;
  }
}

// The decoder on a hand-made scheme, independent of choose_mask_scheme.
TEST(DecodeOutput, ClassifiesOutputs) {
  MaskScheme s;
  s.output_unit = 0x1p-3;
  s.unit_exponent = -3;
  s.exact_count_limit = 16;
  const auto decode = [&](double x) { return fprev::decode_output(s, x); };
  EXPECT_EQ(decode(0.0).status, DecodeStatus::exact);
  EXPECT_EQ(decode(0x1p-3).count, 1u);
  EXPECT_EQ(decode(15 * 0x1p-3).status, DecodeStatus::exact);
  EXPECT_EQ(decode(15 * 0x1p-3).count, 15u);
  EXPECT_EQ(decode(2.0).status, DecodeStatus::saturated);
  EXPECT_EQ(decode(2.0).count, 16u);
  EXPECT_EQ(decode(0x1p80).status, DecodeStatus::saturated);
  EXPECT_EQ(decode(0x1p80).count, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(decode(0x1p-4).status, DecodeStatus::not_whole);
  EXPECT_EQ(decode(0x1p-1074).status, DecodeStatus::not_whole);
  EXPECT_EQ(decode(-0x1p-3).status, DecodeStatus::negative);
  EXPECT_EQ(decode(-0x1p-4).status, DecodeStatus::negative);
  EXPECT_EQ(decode(std::nan("")).status, DecodeStatus::non_finite);
  // A unit so large that a tiny output would underflow when divided by it: not a whole count.
  MaskScheme big;
  big.output_unit = 0x1p100;
  big.exact_count_limit = 16;
  EXPECT_EQ(fprev::decode_output(big, 0x1p-1074).status, DecodeStatus::not_whole);
  EXPECT_EQ(fprev::decode_output(big, 0x1p103).count, 8u);
}

}  // namespace
