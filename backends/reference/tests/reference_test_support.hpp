// Helpers of the reference backend's tests: random inputs with mixed magnitudes and signs (so that
// different orders give different results), and running a target on explicit values.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "fprev/backends/reference.hpp"
#include "fprev/reveal.hpp"
#include "fprev/target.hpp"
#include "fprev/tree.hpp"

namespace fprev::reference::testing {

// n values of `dtype` (every bit of the significand random), exponents in [lo, hi], random signs.
inline std::vector<double> random_values(std::size_t n, Format dtype, int lo, int hi,
                                         std::mt19937_64& rng) {
  const int precision = dtype == Format::float64 ? 53 : 24;
  std::uniform_int_distribution<std::uint64_t> fraction(0, (std::uint64_t{1} << (precision - 1)) - 1);
  std::uniform_int_distribution<int> exponent(lo, hi);
  std::vector<double> out(n);
  for (double& v : out) {
    const double significand = 1.0 + std::ldexp(static_cast<double>(fraction(rng)), 1 - precision);
    v = ((rng() & 1u) != 0 ? -1.0 : 1.0) * std::ldexp(significand, exponent(rng));
  }
  return out;
}

// Runs the target on one row: summand k is a[k] (sum) or a[k] * b[k] (dot).
inline double run_values(Target& target, const std::vector<double>& a,
                         const std::vector<double>& b = {}) {
  ValueBatch batch;
  batch.rows = 1;
  batch.a = a;
  batch.b = b;
  double out = 0.0;
  target.evaluate(batch, std::span<double>(&out, 1));
  return out;
}

// The summands a dot kernel adds: each product rounded to dtype.
inline std::vector<double> rounded_products(const std::vector<double>& a,
                                            const std::vector<double>& b, Format dtype) {
  std::vector<double> out(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (dtype == Format::float32) {
      const float product = static_cast<float>(a[k]) * static_cast<float>(b[k]);
      out[k] = product;
    } else {
      const double product = a[k] * b[k];
      out[k] = product;
    }
  }
  return out;
}

// fprev::simulate_sum's model, except that a fused node over a float64 accumulator is added
// exactly: simulate_sum adds the truncated terms in double, which rounds once the terms need 53 bits
// (reported to the lead). Here they go into a long double (64 significand bits: up to 2^10 terms
// of 54 bits are exact) and are rounded once. Binary nodes are plain double additions.
inline double simulate_float64_exact_fused(const Tree& tree, std::span<const double> values) {
  static_assert(std::numeric_limits<long double>::digits >= 64, "needs an extended long double");
  const std::size_t n = tree.leaf_count();
  std::vector<double> node(tree.node_count());
  for (std::size_t k = 0; k < n; ++k) node[k] = values[k];
  for (std::size_t id = n; id < tree.node_count(); ++id) {  // post-order: children first
    const auto children = tree.children(static_cast<NodeId>(id));
    if (children.size() == 2) {
      node[id] = node[children[0]] + node[children[1]];
      continue;
    }
    double largest = 0.0;
    for (NodeId c : children) largest = std::fmax(largest, std::fabs(node[c]));
    if (largest == 0.0) {
      node[id] = 0.0;
      continue;
    }
    const int grid = std::ilogb(largest) - 52;  // 53 bits kept below the leading one
    long double sum = 0.0L;
    for (NodeId c : children) sum += std::ldexp(std::trunc(std::ldexp(node[c], -grid)), grid);
    node[id] = static_cast<double>(sum);
  }
  return node[tree.root()];
}

// What the kernel of a spec must return on `summands`, from the tree alone.
inline double simulate_expected(const Tree& tree, std::span<const double> summands,
                                const NumericTraits& traits) {
  if (traits.accumulator == Format::float64 && tree.max_arity() > 2)
    return simulate_float64_exact_fused(tree, summands);
  return simulate_sum(tree, summands, traits.accumulator, traits.output, traits.fused_extra_bits);
}

inline bool same_bits(double x, double y) {
  return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
}

}  // namespace fprev::reference::testing
