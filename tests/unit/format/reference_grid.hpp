// An independent reference for rounding into a narrow format: the format's values enumerated
// from the definition (subnormals k * 2^(emin-p+1), normals m * 2^(e-p+1)), and round-to-nearest-
// even by searching that list. It shares nothing with round_to_format (no frexp / ldexp scaling).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace fprev_test {

class ReferenceGrid {
 public:
  // `reserved_top` significands of the top binade are not values (fp8 e4m3: 1, its NaN encoding).
  ReferenceGrid(int precision, int min_exponent, int max_exponent, bool has_infinity,
                int reserved_top = 0)
      : has_infinity_(has_infinity) {
    const long half = 1L << (precision - 1);
    double quantum = 1.0;  // 2^(emin - p + 1), by repeated halving (exact)
    for (int e = 0; e > min_exponent - precision + 1; --e) quantum /= 2.0;
    for (long k = 0; k < half; ++k) values_.push_back(static_cast<double>(k) * quantum);
    for (int e = min_exponent; e <= max_exponent; ++e) {
      for (long m = half; m < 2 * half; ++m) values_.push_back(static_cast<double>(m) * quantum);
      quantum *= 2.0;
    }
    // The value after the largest finite one (2^(emax+1), or e4m3's NaN-encoded 480) stays in the
    // list as a virtual neighbour: rounding to it means overflow.
    values_.push_back(static_cast<double>(2 * half) * (quantum / 2.0));
    values_.erase(values_.end() - 1 - reserved_top, values_.end() - 1);
    if (reserved_top > 0) {
      // The virtual neighbour is then the first reserved significand.
      values_.back() = values_[values_.size() - 2] + (values_[values_.size() - 2] -
                                                      values_[values_.size() - 3]);
    }
  }

  // Finite non-negative values in increasing order (index parity == significand parity).
  std::vector<double> finite_values() const { return {values_.begin(), values_.end() - 1}; }
  double max_finite() const { return values_[values_.size() - 2]; }

  double round(double x) const {
    if (std::isnan(x)) return x;
    const double magnitude = std::fabs(x);
    double result = 0.0;
    if (magnitude >= values_.back()) {
      result = overflow();
    } else {
      const auto upper = std::upper_bound(values_.begin(), values_.end(), magnitude);
      const auto index = static_cast<std::size_t>(upper - values_.begin());  // >= 1
      const double low = values_[index - 1];
      const double high = values_[index];
      const double below = magnitude - low;   // exact (Sterbenz, or low == 0)
      const double above = high - magnitude;  // exact or correctly ordered (see Sterbenz)
      std::size_t chosen = index - 1;
      if (above < below || (above == below && index % 2 == 0)) chosen = index;
      result = chosen == values_.size() - 1 ? overflow() : values_[chosen];
    }
    return std::copysign(result, x);
  }

 private:
  double overflow() const {
    return has_infinity_ ? std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::quiet_NaN();
  }

  std::vector<double> values_;  // finite values, then the virtual neighbour
  bool has_infinity_;
};

}  // namespace fprev_test
