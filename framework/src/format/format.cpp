// Floating-point formats: their parameters, exact rounding of doubles into them, and the bit
// encodings of the narrow ones. Everything is derived from (precision, min_exponent, max_exponent,
// max_finite), so one rounding routine serves every format; it uses only exact double operations
// (frexp, ldexp, floor, and a subtraction whose result is representable), so it never double-rounds
// and does not depend on the current floating-point rounding mode.
#include "fprev/format.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

namespace fprev {

namespace {

// Largest finite values as hexadecimal literals: (2 - 2^(1-precision)) * 2^max_exponent, except
// fp8_e4m3 whose top significand (1.875 * 2^8) encodes NaN, leaving 1.75 * 2^8 = 448.
constexpr std::array<FormatInfo, 7> kFormatInfos = {{
    {"float64", 53, 1023, -1022, true, 0x1.fffffffffffffp+1023},
    {"float32", 24, 127, -126, true, 0x1.fffffep+127},
    {"tf32", 11, 127, -126, true, 0x1.ffcp+127},
    {"float16", 11, 15, -14, true, 0x1.ffcp+15},     // 65504
    {"bfloat16", 8, 127, -126, true, 0x1.fep+127},
    {"fp8_e4m3", 4, 8, -6, false, 0x1.cp+8},         // 448
    {"fp8_e5m2", 3, 15, -14, true, 0x1.cp+15},       // 57344
}};

struct Alias {
  std::string_view name;
  Format format;
};
constexpr std::array<Alias, 13> kNames = {{
    {"float64", Format::float64},
    {"float32", Format::float32},
    {"tf32", Format::tf32},
    {"float16", Format::float16},
    {"bfloat16", Format::bfloat16},
    {"fp8_e4m3", Format::fp8_e4m3},
    {"fp8_e5m2", Format::fp8_e5m2},
    {"fp64", Format::float64},
    {"fp32", Format::float32},
    {"fp16", Format::float16},
    {"bf16", Format::bfloat16},
    {"e4m3", Format::fp8_e4m3},
    {"e5m2", Format::fp8_e5m2},
}};

// Rounds a non-negative integer-or-fraction value to the nearest integer, ties to even, using
// only exact operations: floor is exact, and scaled - floor(scaled) is the fractional part, which
// is representable, so the subtraction is exact in every rounding mode.
double round_half_even(double scaled) {
  const double low = std::floor(scaled);
  const double fraction = scaled - low;
  if (fraction > 0.5) return low + 1.0;
  if (fraction < 0.5) return low;
  return std::fmod(low, 2.0) == 0.0 ? low : low + 1.0;
}

double overflow_value(double x, const FormatInfo& info) {
  const double result =
      info.has_infinity ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  return std::copysign(result, x);
}

// Bit layout of an encoded narrow format.
struct Layout {
  Format format;
  int exponent_bits;
  int mantissa_bits;
  int bias;
  // IEEE-style specials: the all-ones exponent holds infinity (mantissa 0) and NaNs. Otherwise
  // (OCP e4m3 "fn") the all-ones exponent holds normal numbers and only all-ones mantissa is NaN.
  bool ieee_specials;
};

constexpr Layout kFloat16Layout{Format::float16, 5, 10, 15, true};
constexpr Layout kBfloat16Layout{Format::bfloat16, 8, 7, 127, true};
constexpr Layout kE4m3Layout{Format::fp8_e4m3, 4, 3, 7, false};
constexpr Layout kE5m2Layout{Format::fp8_e5m2, 5, 2, 15, true};

std::uint32_t encode(double x, const Layout& layout) {
  const int width = layout.exponent_bits + layout.mantissa_bits;
  const std::uint32_t sign = std::signbit(x) ? (1u << width) : 0u;
  const std::uint32_t exponent_ones = (1u << layout.exponent_bits) - 1u;
  const std::uint32_t mantissa_ones = (1u << layout.mantissa_bits) - 1u;
  const double rounded = round_to_format(x, layout.format);
  if (std::isnan(rounded)) {
    // Quiet NaN: IEEE layouts set the top mantissa bit; e4m3 has only the all-ones pattern.
    const std::uint32_t mantissa =
        layout.ieee_specials ? (1u << (layout.mantissa_bits - 1)) : mantissa_ones;
    return sign | (exponent_ones << layout.mantissa_bits) | mantissa;
  }
  if (std::isinf(rounded)) return sign | (exponent_ones << layout.mantissa_bits);
  const double magnitude = std::fabs(rounded);
  if (magnitude == 0.0) return sign;
  const int min_exponent = 1 - layout.bias;
  int frexp_exponent = 0;
  std::frexp(magnitude, &frexp_exponent);
  const int exponent = frexp_exponent - 1;  // magnitude in [2^exponent, 2^(exponent+1))
  if (exponent < min_exponent) {
    // Subnormal: magnitude = mantissa * 2^(min_exponent - mantissa_bits), exactly.
    const auto mantissa = static_cast<std::uint32_t>(
        std::ldexp(magnitude, layout.mantissa_bits - min_exponent));
    return sign | mantissa;
  }
  const auto significand =
      static_cast<std::uint32_t>(std::ldexp(magnitude, layout.mantissa_bits - exponent));
  const auto biased = static_cast<std::uint32_t>(exponent + layout.bias);
  return sign | (biased << layout.mantissa_bits) | (significand & mantissa_ones);
}

double decode(std::uint32_t bits, const Layout& layout) {
  const int width = layout.exponent_bits + layout.mantissa_bits;
  const bool negative = ((bits >> width) & 1u) != 0;
  const std::uint32_t exponent_ones = (1u << layout.exponent_bits) - 1u;
  const std::uint32_t mantissa_ones = (1u << layout.mantissa_bits) - 1u;
  const std::uint32_t biased = (bits >> layout.mantissa_bits) & exponent_ones;
  const std::uint32_t mantissa = bits & mantissa_ones;
  double magnitude = 0.0;
  if (layout.ieee_specials && biased == exponent_ones) {
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
  } else if (!layout.ieee_specials && biased == exponent_ones && mantissa == mantissa_ones) {
    magnitude = std::numeric_limits<double>::quiet_NaN();
  } else if (biased == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - layout.bias - layout.mantissa_bits);
  } else {
    const std::uint32_t significand = mantissa | (1u << layout.mantissa_bits);
    magnitude = std::ldexp(static_cast<double>(significand),
                           static_cast<int>(biased) - layout.bias - layout.mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

}  // namespace

const FormatInfo& format_info(Format format) {
  return kFormatInfos.at(static_cast<std::size_t>(format));
}

std::string_view to_string(Format format) { return format_info(format).name; }

std::optional<Format> parse_format(std::string_view name) {
  for (const Alias& alias : kNames) {
    if (alias.name == name) return alias.format;
  }
  return std::nullopt;
}

const std::vector<Format>& all_formats() {
  static const std::vector<Format> formats = {Format::float64,  Format::float32,  Format::tf32,
                                              Format::float16,  Format::bfloat16, Format::fp8_e4m3,
                                              Format::fp8_e5m2};
  return formats;
}

std::string format_names() {
  std::string names;
  for (Format format : all_formats()) {
    if (!names.empty()) names += ", ";
    names += to_string(format);
  }
  return names;
}

double round_to_format(double x, Format format) {
  const FormatInfo& info = format_info(format);
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return info.has_infinity ? x : overflow_value(x, info);
  if (x == 0.0 || format == Format::float64) return x;  // keeps the sign of zero
  const double magnitude = std::fabs(x);
  int frexp_exponent = 0;
  std::frexp(magnitude, &frexp_exponent);
  const int exponent = frexp_exponent - 1;  // magnitude in [2^exponent, 2^(exponent+1))
  // The spacing of the format around x is 2^quantum; below the normal range it stays fixed at the
  // subnormal spacing (gradual underflow).
  const int quantum = std::max(exponent, info.min_exponent) - (info.precision - 1);
  // Exact: the scaled value is below 2^precision and (formats other than float64 have quantum
  // >= -149) far above the double subnormal range.
  const double scaled = std::ldexp(magnitude, -quantum);
  const double rounded = std::ldexp(round_half_even(scaled), quantum);
  // Rounding on the unbounded-exponent grid, then overflow: for IEEE formats max + half an ulp
  // ties to the (even) next power of two and overflows; for e4m3 the tie at 464 goes to the even
  // 448, and anything above gives NaN.
  if (rounded > info.max_finite) return overflow_value(x, info);
  return std::copysign(rounded, x);  // an underflow to zero keeps the sign
}

bool is_representable(double x, Format format) {
  if (std::isnan(x)) return false;
  const double rounded = round_to_format(x, format);
  return rounded == x;  // NaN (e4m3 infinity) compares unequal
}

std::uint16_t encode_float16(double x) { return static_cast<std::uint16_t>(encode(x, kFloat16Layout)); }
double decode_float16(std::uint16_t bits) { return decode(bits, kFloat16Layout); }
std::uint16_t encode_bfloat16(double x) {
  return static_cast<std::uint16_t>(encode(x, kBfloat16Layout));
}
double decode_bfloat16(std::uint16_t bits) { return decode(bits, kBfloat16Layout); }
std::uint8_t encode_fp8_e4m3(double x) { return static_cast<std::uint8_t>(encode(x, kE4m3Layout)); }
double decode_fp8_e4m3(std::uint8_t bits) { return decode(bits, kE4m3Layout); }
std::uint8_t encode_fp8_e5m2(double x) { return static_cast<std::uint8_t>(encode(x, kE5m2Layout)); }
double decode_fp8_e5m2(std::uint8_t bits) { return decode(bits, kE5m2Layout); }

}  // namespace fprev
