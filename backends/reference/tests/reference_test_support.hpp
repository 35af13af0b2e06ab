// Helpers of the reference backend's tests: random inputs with mixed magnitudes and signs (so that
// different orders give different results), and running a target on explicit values.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "fprev/backends/reference.hpp"
#include "fprev/target.hpp"

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

inline bool same_bits(double x, double y) {
  return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
}

}  // namespace fprev::reference::testing
