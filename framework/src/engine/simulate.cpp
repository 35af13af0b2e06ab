// Bitwise simulation of a summation tree under a simple arithmetic model: IEEE round-to-nearest
// additions in the accumulator format for binary nodes, and for fused nodes a fixed-point sum
// aligned to the largest exponent, truncated below precision + extra bits (Xie et al., USENIX ATC 2025 Sec. 5.2.1).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "fprev/reveal.hpp"
#include "simulate_internal.hpp"

namespace fprev {

// Round-to-odd of a + b in double precision: rounding that result once more to any format with at
// most 51 significand bits gives the correctly rounded sum (no double-rounding error).
double detail::add_round_to_odd(double a, double b) {
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

double detail::add_in_format(double a, double b, Format format) {
  switch (format) {
    case Format::float64:
      return a + b;
    case Format::float32: {
      // Two float32 values: the hardware's float addition is the correctly rounded sum.
      const auto fa = static_cast<float>(a), fb = static_cast<float>(b);
      if (static_cast<double>(fa) == a && static_cast<double>(fb) == b)
        return static_cast<double>(fa + fb);
      return round_to_format(detail::add_round_to_odd(a, b), format);
    }
    default:
      return round_to_format(detail::add_round_to_odd(a, b), format);
  }
}

namespace {

__extension__ using Int128 = __int128;
__extension__ using UInt128 = unsigned __int128;

// Rounds the integer m * 2^exponent to `format` (nearest even), exactly: an integer of up to 128
// bits is first rounded to the format's precision here, so no double rounding can occur.
double round_scaled_integer(UInt128 magnitude, bool negative, int exponent, Format format) {
  int bits = 0;
  for (UInt128 m = magnitude; m != 0; m >>= 1) ++bits;
  const int precision = format_info(format).precision;
  if (bits > 53) {
    const int shift = bits - precision;
    const UInt128 one = 1;
    UInt128 kept = magnitude >> shift;
    const UInt128 rest = magnitude & ((one << shift) - 1);
    const UInt128 half = one << (shift - 1);
    if (rest > half || (rest == half && (kept & 1) != 0)) ++kept;
    magnitude = kept;
    exponent += shift;
  }
  const double value = std::ldexp(static_cast<double>(magnitude), exponent);  // exact
  return round_to_format(negative ? -value : value, format);
}

}  // namespace

double detail::round_toward_zero(double x, Format format) {
  if (x == 0.0 || !std::isfinite(x)) return x;
  const FormatInfo& info = format_info(format);
  const int e = std::max(std::ilogb(x), info.min_exponent);
  const int quantum = e - (info.precision - 1);
  const double truncated = std::ldexp(std::trunc(std::ldexp(x, -quantum)), quantum);
  return std::fabs(truncated) > info.max_finite ? std::copysign(info.max_finite, x) : truncated;
}

double detail::fused_sum(std::span<const double> terms, Format accumulator, int extra_bits,
                         bool truncate_result) {
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
  // shifted-out bits are truncated (towards zero), as the hardware discards them. Each kept term is
  // an integer number of quanta below 2^(precision + extra_bits + 1): the sum is exact in 128 bits.
  const int quantum_exponent = max_exponent - (precision - 1) - extra_bits;
  Int128 sum = 0;
  for (double t : terms) {
    const double quanta = std::trunc(std::ldexp(t, -quantum_exponent));
    sum += static_cast<Int128>(quanta);
  }
  const bool negative = sum < 0;
  const UInt128 magnitude = negative ? static_cast<UInt128>(-sum)
                                               : static_cast<UInt128>(sum);
  if (magnitude == 0) return 0.0;
  if (truncate_result && (magnitude >> 53) == 0) {
    const double value = std::ldexp(static_cast<double>(magnitude), quantum_exponent);  // exact
    return round_toward_zero(negative ? -value : value, accumulator);
  }
  return round_scaled_integer(magnitude, negative, quantum_exponent, accumulator);
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
          detail::add_in_format(node_value[children[0]], node_value[children[1]], accumulator);
    } else {
      terms.clear();
      for (NodeId c : children) terms.push_back(node_value[c]);
      node_value[node] = detail::fused_sum(terms, accumulator, fused_extra_bits);
    }
  }
  return round_to_format(node_value[tree.root()], output);
}

}  // namespace fprev
