// Mask schemes: M = 2^em and unit = 2^eu computed from the formats' ranges (see mask_scheme.hpp).
// Only powers of two are used, so every product, every count times the unit and every decode is
// exact as long as the exponents stay inside the formats' normal ranges, which the bounds below
// enforce.
#include "fprev/mask_scheme.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace fprev {

namespace {

// Exponents one input factor may take.
struct ExponentWindow {
  int lo = 0;
  int hi = 0;
};

// Constraints from the accumulator and output formats, independent of n.
struct Bounds {
  int mask_max = 0;         // em <= emax(fa) - 2: headroom above M in the accumulator
  int unit_min = 0;         // eu >= emin(fa), emin(fo): the unit is normal in both
  int unit_max = 0;         // counts below 2^min(p_a, p_o) stay finite in fa and fo
  int absorb_overhead = 0;  // p_a + guard: M absorbs partial sums below 2^(em - p_a - guard)
  int sum_emax = 0;         // a sum of units must stay <= 2^min(emax(fa), emax(fo))
  int exact_count_log2 = 0;
};

// A feasible choice of exponents (b factors are 0 for plain summands).
struct Plan {
  int mask_a = 0;
  int mask_b = 0;
  int unit_a = 0;
  int unit_b = 0;
  int mask() const { return mask_a + mask_b; }
  int unit() const { return unit_a + unit_b; }
  // log2 of the number of summands guaranteed to be absorbed and to stay finite.
  int guaranteed_log2 = 0;
};

int floor_half(int e) { return e >= 0 ? e / 2 : -((-e + 1) / 2); }

// ceil(log2(max(n, 2))).
int ceil_log2(std::size_t n) {
  const auto value = static_cast<std::uint64_t>(std::max<std::size_t>(n, 2));
  return static_cast<int>(std::bit_width(value - 1));
}

Bounds bounds_for(const NumericTraits& traits) {
  const FormatInfo& acc = format_info(traits.accumulator);
  const FormatInfo& out = format_info(traits.output);
  const int guard = traits.fused_extra_bits + 2;
  Bounds bounds;
  bounds.exact_count_log2 = std::min(acc.precision, out.precision);
  bounds.mask_max = acc.max_exponent - 2;
  bounds.unit_min = std::max(acc.min_exponent, out.min_exponent);
  bounds.sum_emax = std::min(acc.max_exponent, out.max_exponent);
  bounds.unit_max = bounds.sum_emax - bounds.exact_count_log2;
  bounds.absorb_overhead = acc.precision + guard;
  return bounds;
}

int guaranteed_log2(int mask, int unit, const Bounds& bounds) {
  return std::min(mask - unit - bounds.absorb_overhead, bounds.sum_emax - unit);
}

// M and the unit each as a single value (plain) or as a product of two factors from the same
// window (product); both as large / small as the window and the bounds allow.
std::optional<Plan> plan_free(const ExponentWindow& factor, bool two_factors, const Bounds& bounds) {
  const int factors = two_factors ? 2 : 1;
  const int lo = factors * factor.lo;
  const int hi = factors * factor.hi;
  const int mask = std::min(hi, bounds.mask_max);
  const int unit = std::max(lo, bounds.unit_min);
  if (mask < lo || unit > std::min(hi, bounds.unit_max) || mask <= unit) return std::nullopt;
  Plan plan;
  if (two_factors) {
    // Balanced split: floor(e/2) + ceil(e/2) stays inside [2 lo, 2 hi] factor-wise.
    plan.mask_a = floor_half(mask);
    plan.mask_b = mask - plan.mask_a;
    plan.unit_a = floor_half(unit);
    plan.unit_b = unit - plan.unit_a;
  } else {
    plan.mask_a = mask;
    plan.unit_a = unit;
  }
  plan.guaranteed_log2 = guaranteed_log2(mask, unit, bounds);
  return plan;
}

// One shared b = 2^eb for the unit, the masks and the zeros; only a carries the range. Picks the
// eb that guarantees the most summands, preferring b = 1 (then the smallest |eb|) among equals.
std::optional<Plan> plan_shared_rhs(const ExponentWindow& factor, const Bounds& bounds) {
  std::optional<Plan> best;
  for (int eb = factor.lo; eb <= factor.hi; ++eb) {
    const int mask = std::min(factor.hi + eb, bounds.mask_max);
    const int unit = std::max(factor.lo + eb, bounds.unit_min);
    if (mask < factor.lo + eb || unit > std::min(factor.hi + eb, bounds.unit_max) || mask <= unit) {
      continue;
    }
    Plan plan;
    plan.mask_a = mask - eb;
    plan.mask_b = eb;
    plan.unit_a = unit - eb;
    plan.unit_b = eb;
    plan.guaranteed_log2 = guaranteed_log2(mask, unit, bounds);
    const bool better =
        !best || plan.guaranteed_log2 > best->guaranteed_log2 ||
        (plan.guaranteed_log2 == best->guaranteed_log2 && std::abs(eb) < std::abs(best->mask_b));
    if (better) best = plan;
  }
  return best;
}

std::optional<Plan> plan_for(const NumericTraits& traits, const ExponentWindow& factor) {
  const Bounds bounds = bounds_for(traits);
  switch (traits.summand) {
    case SummandKind::plain:
      return plan_free(factor, false, bounds);
    case SummandKind::product:
      return plan_free(factor, true, bounds);
    case SummandKind::product_shared_rhs:
      return plan_shared_rhs(factor, bounds);
  }
  return std::nullopt;
}

ExponentWindow normal_window(Format input) {
  const FormatInfo& info = format_info(input);
  return {info.min_exponent, info.max_exponent};
}

// The lower end extended down to the smallest subnormal.
ExponentWindow subnormal_window(Format input) {
  const FormatInfo& info = format_info(input);
  return {info.min_exponent - (info.precision - 1), info.max_exponent};
}

// Normal factors when they suffice for 2^needed_log2 summands, subnormal ones otherwise; the plan
// guaranteeing the most summands when neither suffices (nullopt when no plan exists at all).
std::optional<Plan> best_plan(const NumericTraits& traits, int needed_log2) {
  const std::optional<Plan> normal = plan_for(traits, normal_window(traits.input));
  if (normal && normal->guaranteed_log2 >= needed_log2) return normal;
  const std::optional<Plan> extended = plan_for(traits, subnormal_window(traits.input));
  if (!normal) return extended;
  if (!extended || extended->guaranteed_log2 <= normal->guaranteed_log2) return normal;
  return extended;
}

std::string_view summand_name(SummandKind kind) {
  switch (kind) {
    case SummandKind::plain:
      return "plain";
    case SummandKind::product:
      return "product";
    case SummandKind::product_shared_rhs:
      return "product_shared_rhs";
  }
  return "?";
}

std::string power(int exponent) { return "2^" + std::to_string(exponent); }

std::string power_of(double value) { return power(std::ilogb(value)); }

std::string factors(const SummandValue& value, bool two_factors) {
  if (!two_factors) return power_of(value.value());
  return power_of(value.a) + " x " + power_of(value.b);
}

constexpr int kMaxSummandsLog2Cap = 63;

}  // namespace

std::string MaskScheme::describe() const {
  const bool two_factors = values.unit.b != 1.0 || values.plus.b != 1.0;
  std::string text = "M = " + factors(values.plus, two_factors) +
                     ", unit = " + factors(values.unit, two_factors) +
                     ", exact counts < " + power(std::countr_zero(exact_count_limit)) +
                     ", absorbs up to " + power(max_summands_log2) + " summands";
  if (subnormal_factors) text += ", subnormal factors";
  return text;
}

MaskScheme choose_mask_scheme(const NumericTraits& traits, std::size_t n) {
  const int needed_log2 = ceil_log2(n);
  const std::optional<Plan> plan = best_plan(traits, needed_log2);
  if (!plan || plan->guaranteed_log2 < needed_log2) {
    std::string message = "cannot mask n = " + std::to_string(n) + " summands with input " +
                          std::string(to_string(traits.input)) + ", accumulator " +
                          std::string(to_string(traits.accumulator)) + ", output " +
                          std::string(to_string(traits.output)) + ", " +
                          std::string(summand_name(traits.summand)) + " summands, " +
                          std::to_string(traits.fused_extra_bits) + " fused extra bits: ";
    if (!plan || plan->guaranteed_log2 < 1) {
      message += "these formats cannot mask any n (the input range is too narrow for the "
                 "accumulator precision)";
    } else {
      message += "the largest n supported is " +
                 std::to_string(largest_maskable_n(traits)) + " (M = " + power(plan->mask()) +
                 ", unit = " + power(plan->unit()) + ")";
    }
    throw MaskSchemeError(message);
  }
  const Bounds bounds = bounds_for(traits);
  MaskScheme scheme;
  scheme.values.unit = {std::ldexp(1.0, plan->unit_a), std::ldexp(1.0, plan->unit_b)};
  scheme.values.plus = {std::ldexp(1.0, plan->mask_a), std::ldexp(1.0, plan->mask_b)};
  scheme.values.minus = {-std::ldexp(1.0, plan->mask_a), std::ldexp(1.0, plan->mask_b)};
  scheme.output_unit = std::ldexp(1.0, plan->unit());
  scheme.exact_count_limit = std::uint64_t{1} << bounds.exact_count_log2;
  scheme.max_summands_log2 = plan->guaranteed_log2;
  scheme.max_summands = std::uint64_t{1}
                        << std::min(plan->guaranteed_log2, kMaxSummandsLog2Cap);
  scheme.mask_exponent = plan->mask();
  scheme.unit_exponent = plan->unit();
  const int input_min_exponent = format_info(traits.input).min_exponent;
  for (int exponent : {plan->mask_a, plan->mask_b, plan->unit_a, plan->unit_b}) {
    if (exponent < input_min_exponent) scheme.subnormal_factors = true;
  }
  return scheme;
}

std::optional<MaskScheme> choose_crossed_mask_scheme(const NumericTraits& traits, std::size_t n) {
  const ExponentWindow window = normal_window(traits.input);
  const Bounds bounds = bounds_for(traits);
  // The smallest unit whose two balanced factors are normal, then the largest M whose large factors
  // (M over the other side's unit factor) stay inside the window.
  const int unit = std::max(2 * window.lo, bounds.unit_min);
  if (unit > std::min(2 * window.hi, bounds.unit_max)) return std::nullopt;
  const int unit_a = floor_half(unit), unit_b = unit - unit_a;
  // Where a row's and a column's large factors meet (the pair grid's element whose +M and -M fall
  // on one leaf, which measures nothing) their product must stay finite, units added: an overflow
  // there could trap in a kernel built to, where the shared-factor probes never overflow.
  const int meeting_max = floor_half(bounds.sum_emax - 1 + unit);
  const int mask = std::min({bounds.mask_max, window.hi + std::min(unit_a, unit_b), meeting_max});
  if (mask <= unit || guaranteed_log2(mask, unit, bounds) < ceil_log2(n)) return std::nullopt;
  const int big_a = mask - unit_b, big_b = mask - unit_a;
  if (big_a > window.hi || big_b > window.hi) return std::nullopt;
  MaskScheme scheme;
  scheme.values.unit = {std::ldexp(1.0, unit_a), std::ldexp(1.0, unit_b)};
  scheme.values.plus = {std::ldexp(1.0, big_a), std::ldexp(1.0, unit_b)};
  scheme.values.minus = {std::ldexp(1.0, unit_a), -std::ldexp(1.0, big_b)};
  scheme.output_unit = std::ldexp(1.0, unit);
  scheme.exact_count_limit = std::uint64_t{1} << bounds.exact_count_log2;
  scheme.max_summands_log2 = guaranteed_log2(mask, unit, bounds);
  scheme.max_summands = std::uint64_t{1} << std::min(scheme.max_summands_log2, kMaxSummandsLog2Cap);
  scheme.mask_exponent = mask;
  scheme.unit_exponent = unit;
  return scheme;
}

std::uint64_t largest_maskable_n(const NumericTraits& traits) {
  // The subnormal window is never worse than the normal one, and best_plan with an unreachable
  // target returns the plan guaranteeing the most summands.
  const std::optional<Plan> plan = best_plan(traits, kMaxSummandsLog2Cap + 1);
  if (!plan || plan->guaranteed_log2 < 1) return 0;
  return std::uint64_t{1} << std::min(plan->guaranteed_log2, kMaxSummandsLog2Cap);
}

DecodedOutput decode_output(const MaskScheme& scheme, double output) {
  if (!std::isfinite(output)) return {DecodeStatus::non_finite, 0};
  if (output < 0.0) return {DecodeStatus::negative, 0};
  const double count = output / scheme.output_unit;
  // The unit is a power of two: the division is exact unless it leaves the double range, which the
  // multiplication back detects.
  if (count * scheme.output_unit != output || std::floor(count) != count || !std::isfinite(count)) {
    return {DecodeStatus::not_whole, 0};
  }
  constexpr double kTwoTo64 = 18446744073709551616.0;
  const std::uint64_t whole = count >= kTwoTo64 ? UINT64_MAX : static_cast<std::uint64_t>(count);
  if (whole < scheme.exact_count_limit) return {DecodeStatus::exact, whole};
  return {DecodeStatus::saturated, whole};
}

}  // namespace fprev
