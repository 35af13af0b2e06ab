// The fingerprint's fixed input sets, from our own portable generator: SplitMix64 draws turned into
// values by exact integer-to-float constructions (an integer significand times a power of two), so
// every build, compiler and standard library produces the same bytes. No std:: distributions and no
// libm function whose result could differ between libraries (std::ldexp of a representable result
// and round_to_format are exact).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>

#include "fprev/fingerprint.hpp"

namespace fprev {

std::uint64_t SplitMix64::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t SplitMix64::below(std::uint64_t bound) {
  if (bound <= 1) return 0;
  // Reject the top partial copy of [0, bound) so every result is equally likely.
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  std::uint64_t x;
  do x = next(); while (x >= limit);
  return x % bound;
}

namespace {

int ceil_log2(std::size_t x) {
  int e = 0;
  while ((std::size_t{1} << e) < x) ++e;
  return e;
}

// Exponent range [lo, hi] of the values a set draws from, for one factor.
struct ExponentRange {
  int lo, hi;
};

class ValueMaker {
 public:
  ValueMaker(std::uint64_t seed, Format format) : rng_(seed), format_(format),
      precision_(format_info(format).precision) {}

  SplitMix64& rng() { return rng_; }

  // A normal number with a uniformly random p-bit significand and exponent in `range`.
  double normal(ExponentRange range) {
    const std::uint64_t top = std::uint64_t{1} << (precision_ - 1);
    const std::uint64_t significand = (rng_.next() >> (65 - precision_)) | top;
    const int e = range.lo + static_cast<int>(rng_.below(static_cast<std::uint64_t>(range.hi - range.lo + 1)));
    const double magnitude = std::ldexp(static_cast<double>(significand), e - (precision_ - 1));
    return (rng_.next() & 1) != 0 ? -magnitude : magnitude;
  }

  // Roughly normally distributed (Irwin-Hall: the sum of four 24-bit uniforms, centred), scaled by
  // 2^-24 and rounded exactly to the format.
  double gaussian() {
    std::int64_t sum = 0;
    for (int i = 0; i < 4; ++i) sum += static_cast<std::int64_t>(rng_.next() >> 40);
    sum -= std::int64_t{2} << 24;
    return round_to_format(std::ldexp(static_cast<double>(sum), -24), format_);
  }

  // A subnormal of the format (a random significand below 2^(p-1)), with a random sign.
  double subnormal() {
    const FormatInfo& info = format_info(format_);
    const std::uint64_t below_top = (std::uint64_t{1} << (precision_ - 1)) - 1;
    const std::uint64_t significand = 1 + rng_.below(below_top);
    const double magnitude =
        std::ldexp(static_cast<double>(significand), info.min_exponent - (precision_ - 1));
    return (rng_.next() & 1) != 0 ? -magnitude : magnitude;
  }

 private:
  SplitMix64 rng_;
  Format format_;
  int precision_;
};

// Exponents whose sums of n terms stay finite in every format of the target.
ExponentRange safe_range(const NumericTraits& t, std::size_t n) {
  const FormatInfo& in = format_info(t.input);
  const FormatInfo& acc = format_info(t.accumulator);
  const FormatInfo& out = format_info(t.output);
  const int lo = std::max({in.min_exponent, acc.min_exponent, out.min_exponent});
  const int hi = std::min({in.max_exponent, acc.max_exponent, out.max_exponent}) - ceil_log2(n + 1) - 2;
  return {lo, std::max(lo, hi)};
}

// One factor's share of a product's exponent range, clamped to the input format's normals.
ExponentRange factor_range(ExponentRange r, Format input, bool product) {
  if (!product) return r;
  const FormatInfo& in = format_info(input);
  // Factors below 2^(e+1) multiply to less than 2^(2e+2): e = (hi - 1) / 2 keeps products in range.
  const int lo = std::max(in.min_exponent, r.lo / 2), hi = std::min(in.max_exponent, (r.hi - 1) / 2);
  return {lo, std::max(lo, hi)};
}

struct SetSpec {
  const char* name;
  std::size_t rows;
};
constexpr SetSpec kSets[] = {{"cancel", 8}, {"normal", 8}, {"overflow", 4}, {"subnormal", 4}, {"wide", 8}};
constexpr std::uint64_t kSeed = 0x66707265762d6670ULL;  // "fprev-fp"

// Pairs of leaves that (nearly) cancel: x and -(x +- 1 ulp or exactly x), in random pairs, both
// factors of a product equal within a pair so the products cancel too.
void fill_cancel(ValueMaker& maker, const NumericTraits& t, std::size_t n, std::size_t row,
                 FingerprintInputSet& set, ExponentRange range) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[maker.rng().below(i)]);
  const int p = format_info(t.input).precision;
  double* a = set.a.data() + row * n;
  for (std::size_t i = 0; i < n; ++i) a[order[i]] = maker.normal(range);
  for (std::size_t i = 0; i + 1 < n; i += 2) {
    const double x = a[order[i]];
    const int e = std::ilogb(x);
    const double ulp = std::ldexp(1.0, e - (p - 1));
    const int nudge = static_cast<int>(maker.rng().below(3)) - 1;
    double y = std::fabs(x) + nudge * ulp;
    if (std::ilogb(y) != e) y = std::fabs(x);  // stay in x's binade: exact in the format
    a[order[i + 1]] = x < 0 ? y : -y;
    if (!set.b.empty() && row == 0) set.b[order[i + 1]] = set.b[order[i]];
  }
}


// Set `set_index` (1-based, in kSets' order) with its first `rows` rows: each set draws from a
// generator of its own, row after row, so a set's first rows are the same whether or not the
// others, or its later rows, are made too.
FingerprintInputSet make_set(const TargetInfo& info, const SetSpec& spec, std::uint64_t set_index, std::size_t rows) {
  const NumericTraits& t = info.traits;
  const std::size_t n = info.n;
  const bool product = t.summand != SummandKind::plain;
  const ExponentRange safe = safe_range(t, n);
  const FormatInfo& narrowest_out = format_info(t.output);
  {
    FingerprintInputSet set;
    set.name = spec.name;
    set.rows = rows;
    set.a.resize(set.rows * n);
    ValueMaker maker(kSeed + set_index * 0x1000, t.input);
    const std::string name = spec.name;
    ExponentRange range = safe;
    if (name == "cancel") range = {std::max(safe.lo, -8), std::max(std::max(safe.lo, -8), std::min(safe.hi, 8))};
    if (name == "overflow") {
      // A quarter of the summands just below the largest finite value of the narrowest format
      // (divided by about sqrt(n), so that random signs bring partial sums near overflow, some past
      // it): a register with a wider range gives another result than one that overflows.
      const int top = std::min({format_info(t.input).max_exponent, format_info(t.accumulator).max_exponent,
                                narrowest_out.max_exponent});
      const int headroom = (ceil_log2(n + 1) + 1) / 2;
      range = {std::max(safe.lo, top - 1 - headroom), std::max(safe.lo, top - 1)};
    }
    const ExponentRange factors = factor_range(range, t.input, product);
    if (product) {
      set.b.resize(n);
      for (double& v : set.b) {
        if (name == "normal") v = maker.gaussian();
        else if (name == "subnormal") v = maker.normal({-1, 0});
        else v = maker.normal(factors);
      }
    }
    for (std::size_t row = 0; row < set.rows; ++row) {
      double* a = set.a.data() + row * n;
      if (name == "cancel") {
        fill_cancel(maker, t, n, row, set, factors);
        continue;
      }
      for (std::size_t k = 0; k < n; ++k) {
        if (name == "normal") {
          a[k] = maker.gaussian();
        } else if (name == "subnormal") {
          switch (maker.rng().below(8)) {
            case 0: a[k] = 0.0; break;
            case 1: a[k] = -0.0; break;
            case 2: case 3: case 4: a[k] = maker.subnormal(); break;
            default: {
              const int lo = format_info(t.input).min_exponent;
              a[k] = maker.normal({lo, lo + 3});
            }
          }
        } else if (name == "overflow") {
          a[k] = maker.rng().below(4) == 0 ? maker.normal(factors) : maker.gaussian();
        } else {
          a[k] = maker.normal(factors);
        }
      }
    }
    return set;
  }
}

}  // namespace

std::vector<FingerprintInputSet> fingerprint_inputs(const TargetInfo& info) {
  std::vector<FingerprintInputSet> sets;
  std::uint64_t set_index = 0;
  for (const SetSpec& spec : kSets) sets.push_back(make_set(info, spec, ++set_index, spec.rows));
  return sets;
}

namespace detail {

std::vector<FingerprintInputSet> uniformity_input_sets(const TargetInfo& info) {
  static_assert(std::string_view(kSets[0].name) == "cancel", "the uniformity input is the cancel set's first");
  return {make_set(info, kSets[0], 1, 1)};
}

}  // namespace detail

}  // namespace fprev
