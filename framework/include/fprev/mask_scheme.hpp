// Mask schemes: the values of M and of the unit for given input / accumulator / output formats and
// summand kind, and how an output decodes back to a count of unmasked units (Xie et al., USENIX ATC 2025 Sec. 4.1
// and 8.1). Schemes are computed from the formats' ranges, not tabulated, and guarantee:
//   * M + s == M for every partial sum s of at most `max_summands` units, in the accumulator format,
//     also inside a fused multi-term sum keeping `fused_extra_bits` extra alignment bits;
//   * M - M == 0; every factor is exact in the input format; M (the product) and the unit are
//     finite and exact in the accumulator format; the unit and every count below exact_count_limit
//     are normal and exact in the accumulator and output formats, and a sum of up to max_summands
//     units stays finite in both (M itself need not fit the output format: it never reaches it);
//   * products are split over both factors when the target allows it (SummandKind::product), so the
//     range of both factors is used (fp16 into float32: mask 2^15 x 2^15, unit 2^-14 x 2^-14);
//   * factors are normal numbers of the input format unless that cannot mask n summands; then the
//     unit moves down into the input's subnormals (fp8 e4m3 dot: unit 2^-9 x 2^-9, Xie et al., USENIX ATC 2025
//     Sec. 8.1.1) and subnormal_factors says so (a target flushing subnormals to zero then fails).
// Choice: M = 2^em as large as possible with em <= emax(accumulator) - 2; unit = 2^eu as small as
// possible, normal in the accumulator and output; guard = fused_extra_bits + 2 bits and
// max_summands = 2^(em - eu - p_accumulator - guard), further limited so that the sum of all units
// stays finite in the output format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "fprev/target.hpp"

namespace fprev {

struct MaskScheme {
  ProbeValues values;
  double output_unit = 1.0;  // the output of one unmasked unit: values.unit.value()
  // Counts strictly below this limit come back exactly (2^precision of the narrowest of the
  // accumulator and output formats). A count at or above it may have been rounded: the engine then
  // switches to the low-dynamic-range algorithm (Xie et al., USENIX ATC 2025 Alg. 5).
  std::uint64_t exact_count_limit = 0;
  // The largest number of active summands the masks are guaranteed to absorb (and whose sum stays
  // finite in the accumulator and output formats); capped at 2^63.
  std::uint64_t max_summands = 0;
  int mask_exponent = 0;  // M = 2^mask_exponent (as a product for product summands)
  int unit_exponent = 0;  // unit = 2^unit_exponent
  // log2 of the absorbable number of summands before max_summands is capped at 2^63 (for messages).
  int max_summands_log2 = 0;
  // Some factor is a subnormal number of the input format (needed for narrow inputs).
  bool subnormal_factors = false;

  // "M = 2^62 x 2^63, unit = 2^-63 x 2^-63, exact counts < 2^24, absorbs up to 2^225 summands"
  // (one exponent per value when every b is 1; ", subnormal factors" appended when they are used).
  std::string describe() const;
};

class MaskSchemeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Chooses the scheme for `traits` able to mask `n` summands. Throws MaskSchemeError when the formats
// cannot mask that many (the message names the formats and the largest n they support).
MaskScheme choose_mask_scheme(const NumericTraits& traits, std::size_t n);
// The crossed scheme of pair-grid probes (src/engine/pair_grid.hpp): in one GEMM call row r of op(A)
// holds the large factor at leaf a_r and column c of op(B) the large (negative) factor at leaf b_c,
// unit factors elsewhere, so that element (r, c) adds +M at a_r, -M at b_c and units elsewhere, and
// measures l(a_r, b_c). Each mask is a large factor times the other side's unit factor, so plus =
// {big_a, unit.b} and minus = {unit.a, -big_b}; both factors of every value are normal numbers of
// the input format. The same guarantees as choose_mask_scheme's (absorption of n summands, exact
// counts below exact_count_limit, an output unit that is normal in the accumulator and output), with
// a smaller M: each large factor carries M over the other side's unit factor, and the product of
// the two large factors (an element whose row and column mask the same leaf, which measures
// nothing) stays finite in the accumulator and the output, so no call overflows (float32: M = 1 as
// 2^63 x 2^-63 and -(2^-63 x 2^63), unit = 2^-63 x 2^-63, the large factors' product 2^126, where
// the shared-factor scheme has M = 2^125). nullopt where the input format's normal range cannot
// hold such factors for n summands.
std::optional<MaskScheme> choose_crossed_mask_scheme(const NumericTraits& traits, std::size_t n);
// The largest n choose_mask_scheme accepts for `traits` (a power of two, at most 2^63), or 0 when
// the formats cannot mask even two summands.
std::uint64_t largest_maskable_n(const NumericTraits& traits);

// Decoding of one output. `count` is meaningful for exact and saturated outputs.
enum class DecodeStatus : std::uint8_t {
  exact,       // a whole number of units below exact_count_limit
  saturated,   // a whole (rounded) number of units >= exact_count_limit: only "large" is known
  non_finite,  // NaN or infinity
  not_whole,   // not a whole number of units
  negative,    // below zero
};
struct DecodedOutput {
  DecodeStatus status;
  std::uint64_t count;
};
DecodedOutput decode_output(const MaskScheme& scheme, double output);

}  // namespace fprev
