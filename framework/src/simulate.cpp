// Bitwise simulation of a summation tree under a simple arithmetic model: IEEE round-to-nearest
// additions in the accumulator format for binary nodes, and for fused nodes a fixed-point sum
// aligned to the largest exponent, truncated below precision + extra bits (papers/000 Sec. 5.2.1).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "fprev/reveal.hpp"
#include "simulate_internal.hpp"

namespace fprev {
namespace {

// Round-to-odd of a + b in double precision: rounding that result once more to any format with at
// most 51 significand bits gives the correctly rounded sum (no double-rounding error).
double add_round_to_odd(double a, double b) {
  const double s = a + b;
  const double z = s - a;
  const double error = (a - (s - z)) + (b - z);  // TwoSum: a + b == s + error exactly
  if (error == 0.0 || !std::isfinite(s)) return s;
  std::int64_t bits;
  static_assert(sizeof bits == sizeof s);
  std::memcpy(&bits, &s, sizeof s);
  if ((bits & 1) != 0) return s;  // already odd: it is the odd neighbour
  return std::nextafter(s, error > 0 ? INFINITY : -INFINITY);
}

}  // namespace

double add_in_format(double a, double b, Format format) {
  switch (format) {
    case Format::float64:
      return a + b;
    default:
      return round_to_format(add_round_to_odd(a, b), format);
  }
}

double fused_sum(std::span<const double> terms, Format accumulator, int extra_bits) {
  int max_exponent = INT32_MIN;
  double naive = 0.0;  // NaN and infinities propagate as in any adder
  for (double t : terms) {
    naive += t;
    if (t != 0.0 && std::isfinite(t)) max_exponent = std::max(max_exponent, std::ilogb(t));
  }
  if (!std::isfinite(naive)) return naive;
  if (max_exponent == INT32_MIN) return 0.0;
  const int precision = format_info(accumulator).precision;
  // Keep `precision + extra_bits` bits below and including the leading bit of the largest term;
  // shifted-out bits are truncated (towards zero), as the hardware discards them.
  const double quantum = std::ldexp(1.0, max_exponent - (precision - 1) - extra_bits);
  double sum = 0.0;  // exact: each term is < 2^(precision + extra_bits + 1) quanta
  for (double t : terms) sum += std::trunc(t / quantum) * quantum;
  return round_to_format(sum, accumulator);
}

double simulate_sum(const Tree& tree, std::span<const double> values, Format accumulator,
                    Format output, int fused_extra_bits) {
  const std::size_t n = tree.leaf_count();
  if (values.size() != n) throw std::invalid_argument("simulate_sum: one value per leaf expected");
  if (n == 0) return 0.0;
  std::vector<double> node_value(tree.node_count());
  // Summands enter the first addition exactly as given (a float32 summand added into a float16
  // accumulator is not rounded on its own first); every addition rounds to the accumulator.
  for (std::size_t k = 0; k < n; ++k) node_value[k] = values[k];
  std::vector<double> terms;
  // Canonical node ids are in post-order: every child is computed before its parent.
  for (std::size_t node = n; node < tree.node_count(); ++node) {
    const auto children = tree.children(static_cast<NodeId>(node));
    if (children.size() == 2) {
      node_value[node] =
          add_in_format(node_value[children[0]], node_value[children[1]], accumulator);
    } else {
      terms.clear();
      for (NodeId c : children) terms.push_back(node_value[c]);
      node_value[node] = fused_sum(terms, accumulator, fused_extra_bits);
    }
  }
  return round_to_format(node_value[tree.root()], output);
}

}  // namespace fprev
