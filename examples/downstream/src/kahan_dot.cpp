// Built with -ffp-contract=off (CMakeLists.txt): a product rounds before it is added, and the
// compensation (t - sum) - y is not contracted into an FMA, which would change both.
#include "kahan/kahan_dot.hpp"

#include <algorithm>
#include <stdexcept>

namespace kahan {
namespace {

template <class T>
T dot(std::span<const T> x, std::span<const T> y, std::size_t block) {
  if (x.size() != y.size()) throw std::invalid_argument("blocked_kahan_dot: sizes differ");
  if (block == 0) throw std::invalid_argument("blocked_kahan_dot: block must be at least 1");
  T total = 0;
  for (std::size_t begin = 0; begin < x.size(); begin += block) {
    const std::size_t end = std::min(x.size(), begin + block);
    T sum = 0;
    T compensation = 0;  // minus the low-order part lost by the additions so far
    for (std::size_t k = begin; k < end; ++k) {
      const T product = x[k] * y[k];
      const T corrected = product - compensation;
      const T next = sum + corrected;
      compensation = (next - sum) - corrected;
      sum = next;
    }
    total = begin == 0 ? sum : total + sum;
  }
  return total;
}

}  // namespace

float blocked_kahan_dot(std::span<const float> x, std::span<const float> y, std::size_t block) {
  return dot(x, y, block);
}

double blocked_kahan_dot(std::span<const double> x, std::span<const double> y, std::size_t block) {
  return dot(x, y, block);
}

}  // namespace kahan
