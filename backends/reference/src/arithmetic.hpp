// Arithmetic the kernels share: additions rounded into a narrower accumulator without double
// rounding, the fused multi-term node, and rounding of a scaled integer to a format.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fprev/format.hpp"

namespace fprev::reference::detail {

// a + b rounded to nearest-even into `format` (float32, float16 or bfloat16). The double sum is
// first rounded to odd (exact sum recovered with TwoSum), which makes the second rounding to a format
// of at most 51 bits of precision correct: plain round(double(a + b)) can round twice.
double add_rounded(double a, double b, Format format);

// magnitude * 2^exponent rounded to nearest-even into `format` (gradual underflow, overflow to
// infinity), with the sign of `negative`. Exact (no intermediate rounding).
double round_scaled(std::uint64_t magnitude, int exponent, bool negative, Format format);

// One fused node over terms[0..count) (count >= 2): every term is aligned to the largest exponent
// among them (never below the accumulator's minimum normal exponent), truncated toward zero to
// precision(accumulator) bits, the truncated terms are added exactly and the sum is rounded to
// nearest-even into the accumulator. Non-finite terms propagate as in IEEE arithmetic.
// count <= kMaxFusedWidth.
double fused_sum(const double* terms, std::size_t count, Format accumulator);

}  // namespace fprev::reference::detail
