// Arithmetic primitives of the simulation model, shared by the engine's verification and naive search.
#pragma once

#include <span>

#include "fprev/format.hpp"

namespace fprev::detail {

// a + b rounded to odd in double precision: rounding it once more to a format of at most 51
// significand bits, in any direction, gives the correctly rounded sum.
double add_round_to_odd(double a, double b);
// a + b correctly rounded to `format` (round to nearest even).
double add_in_format(double a, double b, Format format);
// A fused multi-term sum: align to the largest exponent, keep precision + extra_bits bits, truncate the
// rest, add exactly, round to the accumulator (to nearest, or truncated: toward zero).
double fused_sum(std::span<const double> terms, Format accumulator, int extra_bits,
                 bool truncate_result = false);
// x rounded toward zero to `format` (truncation of the significand; overflow gives the largest
// finite value).
double round_toward_zero(double x, Format format);

}  // namespace fprev::detail
