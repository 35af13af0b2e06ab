#include "exact_accumulator.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include "arithmetic.hpp"

namespace fprev::reference::detail {
namespace {

constexpr std::uint64_t kDigitMask = 0xffffffffu;

}  // namespace

void ExactAccumulator::clear() {
  digits_.fill(0);
  pending_ = 0;
  non_finite_ = false;
  non_finite_sum_ = 0.0;
}

void ExactAccumulator::add(double x) {
  if (!std::isfinite(x)) {
    non_finite_ = true;
    non_finite_sum_ += x;
    return;
  }
  if (x == 0.0) return;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  const bool negative = (bits >> 63) != 0;
  const int biased_exponent = static_cast<int>((bits >> 52) & 0x7ff);
  std::uint64_t significand = bits & ((std::uint64_t{1} << 52) - 1);
  int offset = 0;  // x = significand * 2^(offset - kBias)
  if (biased_exponent != 0) {
    significand |= std::uint64_t{1} << 52;
    offset = biased_exponent - 1;
  }
  const std::size_t digit = static_cast<std::size_t>(offset / 32);
  const int shift = offset % 32;
  const std::uint64_t low = (significand << shift) & kDigitMask;
  const std::uint64_t high = shift == 0 ? significand >> 32 : significand >> (32 - shift);
  const std::int64_t parts[3] = {static_cast<std::int64_t>(low),
                                 static_cast<std::int64_t>(high & kDigitMask),
                                 static_cast<std::int64_t>(high >> 32)};
  for (int p = 0; p < 3; ++p) digits_[digit + static_cast<std::size_t>(p)] += negative ? -parts[p] : parts[p];
  // Each addition moves a digit by less than 2^32: normalise long before 2^63.
  if (++pending_ == (std::uint64_t{1} << 29)) {
    normalise(digits_);
    pending_ = 0;
  }
}

void ExactAccumulator::normalise(std::array<std::int64_t, kDigits>& digits) const {
  for (std::size_t i = 0; i + 1 < kDigits; ++i) {
    const std::int64_t carry = digits[i] >> 32;  // floor division (arithmetic shift in C++20)
    digits[i] -= carry * (std::int64_t{1} << 32);
    digits[i + 1] += carry;
  }
}

double ExactAccumulator::round(Format format) const {
  if (non_finite_) return round_to_format(non_finite_sum_, format);
  std::array<std::int64_t, kDigits> digits = digits_;
  normalise(digits);  // every digit but the last in [0, 2^32); the last carries the sign
  const bool negative = digits[kDigits - 1] < 0;
  if (negative) {
    for (auto& d : digits) d = -d;
    normalise(digits);
  }
  std::size_t top = kDigits;
  while (top > 0 && digits[top - 1] == 0) --top;
  if (top == 0) return 0.0;
  // Bit positions are absolute: bit b weighs 2^(b - kBias).
  const auto bit = [&](long b) -> std::uint64_t {
    if (b < 0) return 0;
    const auto d = static_cast<std::size_t>(b / 32);
    return d < kDigits ? (static_cast<std::uint64_t>(digits[d]) >> (b % 32)) & 1u : 0;
  };
  const long leading = static_cast<long>(top - 1) * 32 +
                       (static_cast<long>(std::bit_width(static_cast<std::uint64_t>(digits[top - 1]))) - 1);
  // Keep the 62 bits from the leading one down (more than any format's precision + 2), and fold
  // everything below into a sticky bit: round_scaled then rounds exactly once.
  const long lowest_kept = leading - 61;
  std::uint64_t magnitude = 0;
  for (long b = leading; b >= lowest_kept; --b) magnitude = (magnitude << 1) | bit(b);
  bool sticky = false;
  for (long b = lowest_kept - 1; b >= 0 && !sticky; --b) {
    if (b % 32 == 31 && digits[static_cast<std::size_t>(b / 32)] == 0) {
      b -= 31;  // skip an all-zero digit
      continue;
    }
    sticky = bit(b) != 0;
  }
  magnitude = (magnitude << 1) | (sticky ? 1u : 0u);
  return round_scaled(magnitude, static_cast<int>(lowest_kept - 1 - kBias), negative, format);
}

}  // namespace fprev::reference::detail
