// Random inputs for the determinism check, verification by simulation and the naive search.
#include <algorithm>
#include <cmath>
#include <random>

#include "algorithms.hpp"

namespace fprev {
namespace {

int ceil_log2(std::size_t x) {
  int e = 0;
  while ((std::size_t{1} << e) < x) ++e;
  return e;
}

}  // namespace

RandomInputs make_random_inputs(const TargetInfo& info, std::size_t rows, std::uint64_t seed,
                                int exponent_spread) {
  const NumericTraits& t = info.traits;
  const FormatInfo& in = format_info(t.input);
  const FormatInfo& acc = format_info(t.accumulator);
  const FormatInfo& out = format_info(t.output);
  const bool product = t.summand != SummandKind::plain;
  const int b_spread = product ? 2 : 0;
  // Normal numbers only (no flush-to-zero surprises), and sums that cannot overflow any format.
  const int lowest = std::max({in.min_exponent, acc.min_exponent, out.min_exponent}) + 2 + b_spread;
  const int highest = std::min({in.max_exponent, acc.max_exponent, out.max_exponent}) -
                      ceil_log2(info.n + 1) - 3 - b_spread;
  const int e_lo = std::max(-exponent_spread, lowest);
  const int e_hi = std::max(e_lo, std::min(exponent_spread, highest));

  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> exponent(e_lo, e_hi);
  std::uniform_int_distribution<std::uint64_t> fraction(0, (std::uint64_t{1} << (in.precision - 1)) - 1);
  std::bernoulli_distribution negative(0.5);
  RandomInputs inputs;
  inputs.a.resize(rows * info.n);
  for (double& v : inputs.a) {
    const double significand =
        1.0 + std::ldexp(static_cast<double>(fraction(rng)), 1 - in.precision);  // p bits exactly
    v = (negative(rng) ? -1.0 : 1.0) * std::ldexp(significand, exponent(rng));
  }
  if (product) {
    // Powers of two on the right: every product is exact, so FMA or not does not matter.
    std::uniform_int_distribution<int> b_exponent(-b_spread, b_spread);
    inputs.b.resize(info.n);
    for (double& v : inputs.b) v = std::ldexp(1.0, b_exponent(rng));
  }
  return inputs;
}

}  // namespace fprev
