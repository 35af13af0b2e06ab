// Arithmetic primitives of the simulation model, shared by the engine's verification and naive search.
#pragma once

#include <span>

#include "fprev/format.hpp"

namespace fprev::detail {

// a + b correctly rounded to `format` (round to nearest even).
double add_in_format(double a, double b, Format format);
// A fused multi-term sum: align to the largest exponent, keep precision + extra_bits bits, truncate the
// rest, add exactly, round to the accumulator.
double fused_sum(std::span<const double> terms, Format accumulator, int extra_bits);

}  // namespace fprev::detail
