// The architecture presets and the generic rounding helpers.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "expected_schedule.hpp"
#include "fprev/backends/tcsim/fused_sum.hpp"
#include "fprev/format.hpp"

namespace {

using fprev::Format;
using namespace fprev::tcsim;

// Xie et al., USENIX ATC 2025 Sec. 7: 5-, 9- and 17-way nodes on V100, A100, H100 (4+1, 8+1, 16+1 terms);
// Valpey et al., NFM 2025: 0 extra bits on Volta/Turing, 1 on Ampere, 3 carry bits for 5 terms;
// Hopper: 2, measured on an H200 (float16, bfloat16, tf32 through cuBLAS 13.1).
TEST(ArchModel, Presets) {
  const ArchModel v = arch_model(Arch::volta), t = arch_model(Arch::turing),
                  a = arch_model(Arch::ampere), h = arch_model(Arch::hopper);
  EXPECT_EQ(v.fused_width(), 5);
  EXPECT_EQ(t.fused_width(), 5);
  EXPECT_EQ(a.fused_width(), 9);
  EXPECT_EQ(h.fused_width(), 17);
  EXPECT_EQ(v.extra_bits, 0);
  EXPECT_EQ(t.extra_bits, 0);
  EXPECT_EQ(a.extra_bits, 1);
  EXPECT_EQ(h.extra_bits, kDefaultHopperExtraBits);
  EXPECT_EQ(kDefaultHopperExtraBits, 2);
  EXPECT_EQ(arch_model(Arch::hopper, 3).extra_bits, 3);
  EXPECT_EQ(arch_model(Arch::ampere, 3).extra_bits, 1);  // the parameter is Hopper's only
  // ceil(log2(terms)) carry bits.
  EXPECT_EQ(v.carry_bits, 3);
  EXPECT_EQ(a.carry_bits, 4);
  EXPECT_EQ(h.carry_bits, 5);
  for (const ArchModel* m : {&v, &t, &a, &h}) EXPECT_EQ(m->significand_bits, 24);
}

// Issue 5: float16 and bfloat16 everywhere, tf32 from Ampere, fp8 on Hopper; float64 (FMA chain)
// where there are float64 Tensor Cores (Ampere on).
TEST(ArchModel, InputFormats) {
  const ArchModel v = arch_model(Arch::volta), a = arch_model(Arch::ampere),
                  h = arch_model(Arch::hopper);
  for (Format f : {Format::float16, Format::bfloat16}) {
    EXPECT_TRUE(v.supports(f));
    EXPECT_TRUE(a.supports(f));
    EXPECT_TRUE(h.supports(f));
  }
  EXPECT_FALSE(v.supports(Format::tf32));
  EXPECT_TRUE(a.supports(Format::tf32));
  EXPECT_TRUE(h.supports(Format::tf32));
  for (Format f : {Format::fp8_e4m3, Format::fp8_e5m2}) {
    EXPECT_FALSE(v.supports(f));
    EXPECT_FALSE(a.supports(f));
    EXPECT_TRUE(h.supports(f));
  }
  EXPECT_FALSE(v.supports(Format::float64));
  EXPECT_FALSE(arch_model(Arch::turing).supports(Format::float64));
  EXPECT_TRUE(a.supports(Format::float64));
  EXPECT_TRUE(h.supports(Format::float64));
  EXPECT_FALSE(h.supports(Format::float32));
}

// Hopper's step depends on the input format, as wgmma's k does (16 for the 16-bit formats, 8 for
// tf32, 32 for fp8): an H200 through cuBLAS 13.1 fuses 16+1, 8+1 and 32 terms (backends/cublas/
// README.md). Carry bits grow with the terms; other architectures have one step for all formats.
TEST(ArchModel, HopperStepPerInputFormat) {
  const ArchModel h = arch_model(Arch::hopper);
  EXPECT_EQ(h.for_input(Format::float16).fused_width(), 17);
  EXPECT_EQ(h.for_input(Format::bfloat16).fused_width(), 17);
  EXPECT_EQ(h.for_input(Format::tf32).fused_width(), 9);
  EXPECT_EQ(h.for_input(Format::fp8_e4m3).fused_width(), 33);
  EXPECT_EQ(h.for_input(Format::fp8_e5m2).fused_width(), 33);
  EXPECT_EQ(h.for_input(Format::tf32).carry_bits, 5);  // never fewer than the architecture's
  EXPECT_EQ(h.for_input(Format::fp8_e4m3).carry_bits, 6);
  EXPECT_EQ(h.for_input(Format::tf32).extra_bits, h.extra_bits);
  const ArchModel a = arch_model(Arch::ampere);
  EXPECT_EQ(a.for_input(Format::tf32).fused_width(), 9);
  EXPECT_EQ(a.for_input(Format::float16).fused_width(), 9);
}

TEST(ArchModel, Names) {
  for (Arch arch : {Arch::volta, Arch::turing, Arch::ampere, Arch::hopper}) {
    EXPECT_EQ(parse_arch(to_string(arch)), arch);
    EXPECT_EQ(arch_model(arch).name, to_string(arch));
  }
  EXPECT_FALSE(parse_arch("blackwell").has_value());
  EXPECT_EQ(arch_names(), "volta, turing, ampere, hopper");
}

// Round to nearest into float16/bfloat16 agrees with the framework's independent conversion.
TEST(ConvertOutput, AgreesWithFrameworkRounding) {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 20000; ++trial) {
    const double x = tcsim_test::random_value(rng, Format::float32, -30, 20);
    for (Format f : {Format::float16, Format::bfloat16}) {
      ASSERT_EQ(convert_output(x, f), fprev::round_to_format(x, f)) << x;
    }
  }
  // Overflow and the subnormal range of float16.
  EXPECT_TRUE(std::isinf(convert_output(70000.0, Format::float16)));
  EXPECT_EQ(convert_output(65504.0, Format::float16), 65504.0);
  EXPECT_EQ(convert_output(std::ldexp(3.0, -26), Format::float16), std::ldexp(1.0, -24));
  EXPECT_EQ(convert_output(std::ldexp(1.0, -26), Format::float16), 0.0);
  EXPECT_THROW(convert_output(1.0, Format::fp8_e4m3), std::invalid_argument);
}

TEST(RoundBinary, TruncateAndNearest) {
  const double x = 1.0 + std::ldexp(3.0, -24);  // 1 + 1.5 float32 ulps (2^-23)
  EXPECT_EQ(round_binary(x, 24, -149, 127, Rounding::truncate), 1.0 + std::ldexp(1.0, -23));
  EXPECT_EQ(round_binary(x, 24, -149, 127, Rounding::nearest_even), 1.0 + std::ldexp(1.0, -22));
  EXPECT_EQ(round_binary(-x, 24, -149, 127, Rounding::truncate), -(1.0 + std::ldexp(1.0, -23)));
  // Ties to even.
  EXPECT_EQ(round_binary(1.0 + std::ldexp(1.0, -24), 24, -149, 127, Rounding::nearest_even), 1.0);
  // Gradual underflow: the quantum never drops below 2^-149.
  EXPECT_EQ(round_binary(std::ldexp(1.5, -149), 24, -149, 127, Rounding::truncate),
            std::ldexp(1.0, -149));
  EXPECT_TRUE(std::isinf(round_binary(std::ldexp(1.0, 128), 24, -149, 127, Rounding::truncate)));
}

// The fused sum's own edge cases.
TEST(FusedSum, EdgeCases) {
  const FusedSumParams p{24, 0, 3};
  EXPECT_EQ(fused_sum(std::vector<double>{}, p), 0.0);
  EXPECT_TRUE(std::signbit(fused_sum(std::vector<double>{-0.0, -0.0}, p)));
  EXPECT_FALSE(std::signbit(fused_sum(std::vector<double>{-0.0, 0.0}, p)));
  EXPECT_EQ(fused_sum(std::vector<double>{1.0, -1.0}, p), 0.0);
  // Cancellation keeps the low bits that survived alignment (no renormalisation before adding).
  EXPECT_EQ(fused_sum(std::vector<double>{1.0, -(1.0 - std::ldexp(1.0, -23))}, p),
            std::ldexp(1.0, -23));
  // Truncation is of the magnitude: a negative term shrinks towards zero.
  // (3 * 2^-22 is 1.5 units of 2^-21: 1 unit, where rounding down would take 2).
  EXPECT_EQ(fused_sum(std::vector<double>{4.0, -std::ldexp(3.0, -22)}, p),
            4.0 - std::ldexp(1.0, -21));
  // float32 overflow.
  EXPECT_TRUE(std::isinf(fused_sum(std::vector<double>{std::ldexp(1.0, 127), std::ldexp(1.0, 127)}, p)));
  // Subnormal results are truncated to multiples of 2^-149.
  EXPECT_EQ(fused_sum(std::vector<double>{std::ldexp(3.0, -150)}, p), std::ldexp(1.0, -149));
  EXPECT_THROW(fused_sum(std::vector<double>{1.0}, {24, 30, 3}), std::invalid_argument);
}

TEST(FusedStep, RejectsTooManyProducts) {
  const ArchModel v = arch_model(Arch::volta);
  const std::vector<double> five(5, 1.0);
  EXPECT_THROW(fused_step(v, 0.0, five, five), std::invalid_argument);
  const std::vector<double> two(2, 1.0), three(3, 1.0);
  EXPECT_THROW(fused_step(v, 0.0, two, three), std::invalid_argument);
  // float64 factors whose product is not exact are refused (the model needs exact products).
  const std::vector<double> inexact{1.0 + std::ldexp(1.0, -40)};
  EXPECT_THROW(fused_step(v, 0.0, inexact, inexact), std::invalid_argument);
}

}  // namespace
