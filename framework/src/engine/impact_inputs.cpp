// The impact's input sets, from the fingerprint's portable generator (SplitMix64 and exact
// integer-to-float constructions, no libm): the same values with every compiler and C library.
#include <algorithm>
#include <cmath>

#include "exact_sum.hpp"
#include "impact_internal.hpp"

namespace fprev::detail {
namespace {

// Uniform in [0, 1) with `bits` random bits: k 2^-bits, exact in a format of that precision.
double impact_uniform(SplitMix64& rng, int bits) {
  return std::ldexp(static_cast<double>(rng.next() >> (64 - bits)), -bits);
}

// Approximately standard normal: (the sum of 4 uniforms - 2) * sqrt(3) (Irwin-Hall: mean 0,
// variance 1), rounded to the input format. Portable where Box-Muller's log and cos are not: IEEE
// additions and products of doubles give the same bits everywhere, and 53-bit uniforms give
// float64 inputs all their bits.
double impact_normal(SplitMix64& rng, Format input) {
  constexpr double kSqrt3 = 1.7320508075688772;
  double sum = -2.0;
  for (int k = 0; k < 4; ++k) sum += impact_uniform(rng, 53);
  return round_to_format(sum * kSqrt3, input);
}

// A right factor in [0.5, 1) with the input's precision: products are inexact in general, so a
// contracted (FMA) or rounded product shows.
double impact_right_factor(SplitMix64& rng, Format input) {
  const int p = format_info(input).precision;
  return 0.5 + std::ldexp(static_cast<double>(rng.next() >> (64 - (p - 1))), -p);
}

constexpr double kCancelCondition = 1e6;

}  // namespace
}  // namespace fprev::detail

namespace fprev {

std::vector<ImpactInputSet> impact_input_sets(const NumericTraits& traits, std::size_t n, std::size_t rows,
                                              std::uint64_t seed) {
  using namespace detail;
  const bool product = traits.summand != SummandKind::plain;
  const int p = format_info(traits.input).precision;
  std::vector<ImpactInputSet> sets;
  for (const char* name : {"uniform", "normal", "cancel"}) {
    ImpactInputSet set;
    set.name = name;
    set.rows = rows;
    set.a.resize(rows * n);
    if (product) set.b.resize(rows * n);
    SplitMix64 rng(seed ^ (0x9e37'79b9'7f4a'7c15ULL * (sets.size() + 1)));
    for (std::size_t r = 0; r < rows; ++r) {
      double* a = set.a.data() + r * n;
      double* b = product ? set.b.data() + r * n : nullptr;
      for (std::size_t k = 0; k < n; ++k) {
        a[k] = set.name == "uniform" ? impact_uniform(rng, p) : impact_normal(rng, traits.input);
        if (b != nullptr) b[k] = impact_right_factor(rng, traits.input);
      }
      if (set.name != "cancel" || n < 2) continue;
      // Heavy cancellation: one summand, at a random leaf, is replaced by (almost) minus the exact
      // sum of the others, so that the sum is about sum|x_i| / 10^6 (condition number about 10^6,
      // where the input format can hold the cancelling value that closely).
      const std::size_t j = static_cast<std::size_t>(rng.below(n));
      ExactSum others;
      double magnitude = 0.0;
      for (std::size_t k = 0; k < n; ++k) {
        if (k == j) continue;
        if (b != nullptr) others.add_product(a[k], b[k]);
        else others.add(a[k]);
        magnitude += std::fabs(b != nullptr ? a[k] * b[k] : a[k]);
      }
      const double target = ((rng.next() & 1) != 0 ? 1.0 : -1.0) * magnitude / kCancelCondition;
      const double cancelling = round_to_format(target - others.rounded(Format::float64), traits.input);
      if (!std::isfinite(cancelling)) continue;  // the input format cannot hold it: a normal row
      a[j] = cancelling;
      if (b != nullptr) b[j] = 1.0;
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

std::size_t impact_rows(std::size_t n, const ImpactOptions& options) {
  return std::min(options.vectors, std::max<std::size_t>(1, options.leaf_budget / std::max<std::size_t>(n, 1)));
}

}  // namespace fprev
