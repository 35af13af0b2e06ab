// The fused multi-term sum of Valpey et al., NFM 2025 Algorithm 1, in exact integer arithmetic.
#include "fprev/backends/tcsim/fused_sum.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fprev::tcsim {
namespace {

// float32, the format every fused sum is normalised to.
constexpr int kFloat32Precision = 24;
constexpr int kFloat32MinQuantum = -149;  // quantum of the subnormals
constexpr int kFloat32MaxExponent = 127;

// Bounds that keep the exact sum inside an int64: terms < 2^(significand + extra), at most
// kMaxTerms of them, and the register (with carry bits) narrower than 62 bits.
constexpr int kMaxAlignedBits = 48;
constexpr int kMaxCarryBits = 12;
constexpr std::size_t kMaxTerms = std::size_t{1} << 13;
constexpr std::size_t kMaxProductsPerStep = 64;

void check_params(const FusedSumParams& p, std::size_t terms) {
  if (p.significand_bits < 2 || p.extra_bits < 0 || p.carry_bits < 0 ||
      p.significand_bits + p.extra_bits > kMaxAlignedBits || p.carry_bits > kMaxCarryBits) {
    throw std::invalid_argument(
        "tcsim fused_sum: significand_bits + extra_bits must be in 2..48 and carry_bits in 0..12");
  }
  if (terms > kMaxTerms) throw std::invalid_argument("tcsim fused_sum: too many terms");
}

// A double as sign, integer significand and exponent: |x| = mantissa * 2^exponent (exact).
struct Decomposed {
  std::uint64_t mantissa = 0;  // < 2^53; for infinities 0, for NaN non-zero
  int exponent = 0;
  bool negative = false;
  bool special = false;  // infinity or NaN
  int leading_exponent() const { return exponent + static_cast<int>(std::bit_width(mantissa)) - 1; }
};

Decomposed decompose(double x) {
  const auto bits = std::bit_cast<std::uint64_t>(x);
  constexpr std::uint64_t kFraction = (std::uint64_t{1} << 52) - 1;
  Decomposed d;
  d.negative = (bits >> 63) != 0;
  const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
  d.mantissa = bits & kFraction;
  if (biased == 0x7ff) {
    d.special = true;
  } else if (biased == 0) {
    d.exponent = -1074;  // subnormal double
  } else {
    d.mantissa |= std::uint64_t{1} << 52;
    d.exponent = biased - 1075;
  }
  return d;
}

// Reduces `sum` into the range of a two's complement register of width + 1 bits (sign included):
// the carries that do not fit are lost, as in a fixed-width adder.
std::int64_t wrap(std::int64_t sum, int width) {
  const std::int64_t half = std::int64_t{1} << width;
  const std::int64_t modulus = half << 1;
  std::int64_t r = sum % modulus;
  if (r >= half) r -= modulus;
  if (r < -half) r += modulus;
  return r;
}

// sum * 2^lsb, normalised and truncated to float32.
double truncate_to_float32(std::int64_t sum, int lsb) {
  const bool negative = sum < 0;
  std::uint64_t magnitude = negative ? std::uint64_t(0) - static_cast<std::uint64_t>(sum)
                                     : static_cast<std::uint64_t>(sum);
  int quantum = lsb;
  const auto width = static_cast<int>(std::bit_width(magnitude));
  if (width > kFloat32Precision) {
    magnitude >>= (width - kFloat32Precision);
    quantum += width - kFloat32Precision;
  }
  if (quantum < kFloat32MinQuantum) {
    const int shift = kFloat32MinQuantum - quantum;
    magnitude = shift >= 64 ? 0 : magnitude >> shift;
    quantum = kFloat32MinQuantum;
  }
  double value = std::ldexp(static_cast<double>(magnitude), quantum);  // < 2^24 quanta: exact
  if (value != 0.0 && std::ilogb(value) > kFloat32MaxExponent)
    value = std::numeric_limits<double>::infinity();
  return negative ? -value : value;
}

}  // namespace

bool ArchModel::supports(Format input) const {
  if (input == Format::float64) return float64_fma;
  for (Format f : inputs)
    if (f == input) return true;
  return false;
}

std::string_view to_string(Arch arch) {
  switch (arch) {
    case Arch::volta: return "volta";
    case Arch::turing: return "turing";
    case Arch::ampere: return "ampere";
    case Arch::hopper: return "hopper";
  }
  return "?";
}

std::optional<Arch> parse_arch(std::string_view name) {
  for (Arch a : {Arch::volta, Arch::turing, Arch::ampere, Arch::hopper})
    if (to_string(a) == name) return a;
  return std::nullopt;
}

std::string arch_names() { return "volta, turing, ampere, hopper"; }

ArchModel arch_model(Arch arch, int hopper_extra_bits) {
  ArchModel m;
  m.name = std::string(to_string(arch));
  switch (arch) {
    case Arch::volta:
    case Arch::turing:
      // Valpey et al., NFM 2025: HMMA.884 / HMMA.1688, 4 products + accumulator, all shifted bits discarded,
      // 3 carry bits; Volta and Turing behave identically.
      m.products_per_step = 4;
      m.extra_bits = 0;
      m.carry_bits = 3;
      m.inputs = {Format::float16, Format::bfloat16};
      m.float64_fma = false;  // no float64 Tensor Cores before Ampere
      break;
    case Arch::ampere:
      // Valpey et al., NFM 2025: 8 products + accumulator, one shifted bit kept; 4 carry bits (ceil(log2 9),
      // which the paper could not confirm by SMT within 6 hours).
      m.products_per_step = 8;
      m.extra_bits = 1;
      m.carry_bits = 4;
      m.inputs = {Format::float16, Format::bfloat16, Format::tf32};
      m.float64_fma = true;
      break;
    case Arch::hopper:
      // Xie et al., USENIX ATC 2025 Sec. 7: 17-way nodes on H100 (float16); the same on an H200
      // for float16 and bfloat16, 9-way for tf32 and 32-way (k = 32) for fp8_e4m3 through cuBLAS
      // 13.1: the k of wgmma's shapes (16, 8, 32). Extra bits: 2 measured on the H200; carry bits
      // ceil(log2 terms).
      m.products_per_step = 16;
      m.extra_bits = hopper_extra_bits;
      m.carry_bits = 5;
      m.inputs = {Format::float16, Format::bfloat16, Format::tf32, Format::fp8_e4m3,
                  Format::fp8_e5m2};
      m.float64_fma = true;
      m.format_steps = {{Format::tf32, 8}, {Format::fp8_e4m3, 32}, {Format::fp8_e5m2, 32}};
      break;
  }
  return m;
}

ArchModel ArchModel::for_input(Format input) const {
  ArchModel model = *this;
  for (const FormatStep& step : format_steps) {
    if (step.format != input) continue;
    model.products_per_step = step.products_per_step;
    int carry = 0;
    while ((1 << carry) < step.products_per_step + 1) ++carry;
    model.carry_bits = std::max(model.carry_bits, carry);
  }
  return model;
}

FusedSumParams fused_params(const ArchModel& model) {
  return {model.significand_bits, model.extra_bits, model.carry_bits};
}

double fused_sum(std::span<const double> terms, const FusedSumParams& params) {
  check_params(params, terms.size());
  bool nan = false, plus_infinity = false, minus_infinity = false, all_minus_zero = !terms.empty();
  int max_exponent = INT_MIN;
  for (double t : terms) {
    const Decomposed d = decompose(t);
    if (d.special) {
      if (d.mantissa != 0) {
        nan = true;
      } else {
        (d.negative ? minus_infinity : plus_infinity) = true;
      }
    } else if (d.mantissa != 0) {
      max_exponent = std::max(max_exponent, d.leading_exponent());
    }
    all_minus_zero = all_minus_zero && d.mantissa == 0 && !d.special && d.negative;
  }
  // Valpey et al., NFM 2025 Algorithm 1 step 2b.
  if (nan || (plus_infinity && minus_infinity)) return std::numeric_limits<double>::quiet_NaN();
  if (plus_infinity) return std::numeric_limits<double>::infinity();
  if (minus_infinity) return -std::numeric_limits<double>::infinity();
  if (max_exponent == INT_MIN) return all_minus_zero ? -0.0 : 0.0;

  // Align every term to the largest exponent: keep significand_bits + extra_bits bits from the
  // leading bit of the largest term down, and drop the rest of each magnitude (truncation).
  const int lsb = max_exponent - (params.significand_bits - 1) - params.extra_bits;
  std::int64_t sum = 0;
  for (double t : terms) {
    const Decomposed d = decompose(t);
    if (d.mantissa == 0) continue;
    // mantissa * 2^(exponent - lsb) < 2^(significand_bits + extra_bits) <= 2^48: no overflow.
    const int shift = d.exponent - lsb;
    const std::uint64_t aligned =
        shift >= 0 ? d.mantissa << shift : (shift <= -64 ? 0 : d.mantissa >> -shift);
    sum += d.negative ? -static_cast<std::int64_t>(aligned) : static_cast<std::int64_t>(aligned);
  }
  sum = wrap(sum, params.significand_bits + params.extra_bits + params.carry_bits);
  // Normalised only now, once (no normalisation of partial sums), and truncated.
  return truncate_to_float32(sum, lsb);
}

double fused_step(const ArchModel& model, double acc, std::span<const double> a,
                  std::span<const double> b) {
  if (a.size() != b.size() || a.size() > static_cast<std::size_t>(model.products_per_step) ||
      a.size() > kMaxProductsPerStep) {
    throw std::invalid_argument("tcsim fused_step: at most products_per_step (<= 64) products");
  }
  std::array<double, kMaxProductsPerStep + 1> terms;
  terms[0] = acc;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double product = a[i] * b[i];
    // The model needs exact products; they are for every format it accepts.
    if (std::isfinite(product) && std::fma(a[i], b[i], -product) != 0.0)
      throw std::invalid_argument("tcsim fused_step: product not exact in double");
    terms[i + 1] = product;
  }
  return fused_sum(std::span<const double>(terms.data(), a.size() + 1), fused_params(model));
}

double round_binary(double x, int precision, int min_quantum_exponent, int max_exponent,
                    Rounding rounding) {
  if (x == 0.0 || !std::isfinite(x)) return x;
  const int quantum = std::max(std::ilogb(x) - (precision - 1), min_quantum_exponent);
  const double scaled = std::ldexp(std::fabs(x), -quantum);  // exact
  double r = std::floor(scaled);
  const double fraction = scaled - r;  // exact
  if (rounding == Rounding::nearest_even &&
      (fraction > 0.5 || (fraction == 0.5 && std::fmod(r, 2.0) != 0.0))) {
    r += 1.0;
  }
  double value = std::ldexp(r, quantum);
  if (value != 0.0 && std::ilogb(value) > max_exponent) value = std::numeric_limits<double>::infinity();
  return x < 0 ? -value : value;
}

double convert_output(double float32_value, Format output) {
  switch (output) {
    case Format::float32:
    case Format::float64:
      return float32_value;
    case Format::float16:
    case Format::bfloat16: {
      const FormatInfo& f = format_info(output);
      return round_binary(float32_value, f.precision, f.min_exponent - (f.precision - 1),
                          f.max_exponent, Rounding::nearest_even);
    }
    default:
      throw std::invalid_argument("tcsim: output format must be float32, float16 or bfloat16");
  }
}

}  // namespace fprev::tcsim
