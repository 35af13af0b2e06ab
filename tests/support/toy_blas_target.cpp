#include "toy_blas_target.hpp"

#include <cmath>
#include <limits>

namespace fprev::test {
namespace {

// Out of line, so that the compiler cannot contract the product into the addition.
[[gnu::noinline]] float product(float a, float b) { return a * b; }

// a + b rounded toward zero: the round-to-nearest sum, moved one step toward zero when its error
// (exact by TwoSum) points the other way.
float add_toward_zero(float a, float b) {
  const float s = a + b;
  if (std::isinf(s) && std::isfinite(a) && std::isfinite(b))  // overflow: toward zero never gives inf
    return std::copysign(std::numeric_limits<float>::max(), s);
  if (!std::isfinite(s)) return s;
  const float z = s - a;
  const float error = (a - (s - z)) + (b - z);
  if (error != 0.0f && (error > 0.0f) != (s > 0.0f)) return std::nextafterf(s, 0.0f);
  return s;
}

}  // namespace

ToyDotTarget::ToyDotTarget(std::size_t n, ToyArithmetic arithmetic, std::size_t tail_start)
    : arithmetic_(arithmetic), tail_start_(tail_start) {
  info_.n = n;
  info_.description = "toy sdot, n=" + std::to_string(n);
  info_.traits.input = info_.traits.accumulator = info_.traits.output = Format::float32;
  info_.traits.summand = SummandKind::product;
  info_.traits.exact_arithmetic_model = arithmetic == ToyArithmetic::plain;
}

template <class Leaf>
double ToyDotTarget::dot(Leaf leaf) const {
  float acc = 0.0f;
  double wide = 0.0;
  for (std::size_t k = 0; k < info_.n; ++k) {
    const SummandValue v = leaf(k);
    const auto a = static_cast<float>(v.a), b = static_cast<float>(v.b);
    switch (arithmetic_) {
      case ToyArithmetic::plain: acc = acc + product(a, b); break;
      case ToyArithmetic::toward_zero: acc = add_toward_zero(acc, product(a, b)); break;
      case ToyArithmetic::fma: acc = std::fmaf(a, b, acc); break;
      case ToyArithmetic::double_tail:
        if (k < tail_start_) {
          acc = acc + product(a, b);
        } else {
          if (k == tail_start_) wide = acc;
          wide += static_cast<double>(product(a, b));
        }
        break;
    }
  }
  if (arithmetic_ == ToyArithmetic::double_tail && tail_start_ < info_.n) acc = static_cast<float>(wide);
  return acc;
}

void ToyDotTarget::evaluate(const ProbeBatch& batch, std::span<double> outputs) {
  for (std::size_t p = 0; p < outputs.size(); ++p)
    outputs[p] = dot([&](std::size_t k) { return batch.leaf(p, static_cast<std::uint32_t>(k)); });
}

void ToyDotTarget::evaluate(const ValueBatch& batch, std::span<double> outputs) {
  for (std::size_t r = 0; r < outputs.size(); ++r)
    outputs[r] = dot([&](std::size_t k) { return batch.leaf(r, info_.n, k); });
}

}  // namespace fprev::test
