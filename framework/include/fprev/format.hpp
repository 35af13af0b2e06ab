// Floating-point formats the engine reasons about, and exact software conversions to and from the
// narrow ones (no hardware support needed). Every value the engine hands to a target is exactly
// representable in the target's input format, so conversions of probe values never round.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fprev {

enum class Format : std::uint8_t { float64, float32, tf32, float16, bfloat16, fp8_e4m3, fp8_e5m2 };

struct FormatInfo {
  std::string_view name;   // "float32", "fp8_e4m3", ...
  int precision;           // significand bits including the implicit bit (float32: 24)
  int max_exponent;        // exponent of the largest finite binade (float32: 127)
  int min_exponent;        // exponent of the smallest normal number (float32: -126)
  bool has_infinity;       // fp8 e4m3 (the "fn" variant) has none: overflow gives NaN
  double max_finite;       // largest finite value
};

const FormatInfo& format_info(Format format);
std::string_view to_string(Format format);
std::optional<Format> parse_format(std::string_view name);
// All formats, in declaration order (for "allowed values" messages and exhaustive tests).
const std::vector<Format>& all_formats();
// "float64, float32, tf32, float16, bfloat16, fp8_e4m3, fp8_e5m2"
std::string format_names();

// Rounds x to the nearest value of `format` (ties to even), with gradual underflow.
// Overflow gives +-infinity, or NaN for formats without infinity (fp8_e4m3).
// Exact for every double input (no double rounding, independent of the current rounding mode):
// NaN stays NaN, +-0 and the sign of an underflow to zero are kept, +-infinity stays (NaN for
// fp8_e4m3). For fp8_e4m3, 464 (halfway between 448 and the NaN-encoded 480) ties to the even 448;
// anything above 464 gives NaN (we never saturate).
double round_to_format(double x, Format format);
// True when x is a finite or infinite value of the format. NaN is never "representable", so a probe
// value check cannot pass a NaN by accident.
bool is_representable(double x, Format format);

// Bit-level encodings of the narrow formats (IEEE-style layouts; fp8 per the OCP FP8 spec,
// e4m3 being the "fn" variant without infinities). Encoding rounds to nearest even.
std::uint16_t encode_float16(double x);
double decode_float16(std::uint16_t bits);
std::uint16_t encode_bfloat16(double x);
double decode_bfloat16(std::uint16_t bits);
std::uint8_t encode_fp8_e4m3(double x);
double decode_fp8_e4m3(std::uint8_t bits);
std::uint8_t encode_fp8_e5m2(double x);
double decode_fp8_e5m2(std::uint8_t bits);

}  // namespace fprev
