// What a ReferenceSpec means numerically (formats, traits), its one-line description and its
// validation.
#include <algorithm>
#include <cmath>

#include "fprev/backends/reference.hpp"
#include "fprev/cost_estimate.hpp"

namespace fprev::reference {

Format output_format(const ReferenceSpec& spec) { return spec.output.value_or(spec.dtype); }

Format accumulator_format(const ReferenceSpec& spec) {
  // Partial sums live in the narrower of the two: a kernel that returns float16 accumulates in
  // float16 (every partial sum rounded), one that returns float64 from float32 inputs accumulates in
  // float32 and widens the result exactly.
  const Format output = output_format(spec);
  return format_info(output).precision < format_info(spec.dtype).precision ? output : spec.dtype;
}

NumericTraits reference_traits(const ReferenceSpec& spec) {
  NumericTraits traits;
  traits.input = spec.dtype;
  traits.accumulator = accumulator_format(spec);
  traits.output = output_format(spec);
  traits.summand = spec.op == "dot"    ? SummandKind::product
                   : spec.op == "gemv" ? SummandKind::product_shared_rhs
                                       : SummandKind::plain;
  traits.max_fused_width = spec.order == Order::fused ? spec.width : 2;
  traits.fused_extra_bits = 0;
  // Fused nodes follow fprev::simulate_sum's model (alignment, truncation, one rounding). Not
  // claimed for a float64 accumulator: simulate_sum adds the truncated terms in double, which is
  // inexact once they need 53 bits, so it would report a correct kernel as misbehaving.
  traits.simulate_fused = spec.order == Order::fused;
  return traits;
}

std::string describe(const ReferenceSpec& spec) {
  std::string out = "reference " + std::string(to_string(spec.order)) + " " +
                    std::string(fprev::to_string(spec.dtype)) + " " + spec.op +
                    ", n=" + std::to_string(spec.n);
  switch (spec.order) {
    case Order::strided_pairwise:
    case Order::strided_sequential:
    case Order::aligned_peel:
      out += ", lanes=" + std::to_string(spec.lanes);
      break;
    case Order::blocked:
      out += ", block=" + std::to_string(spec.block);
      break;
    case Order::fused:
      out += ", width=" + std::to_string(spec.width);
      break;
    case Order::random_tree:
      out += ", seed=" + std::to_string(spec.seed);
      break;
    default:
      break;
  }
  if (output_format(spec) != spec.dtype)
    out += ", output " + std::string(fprev::to_string(output_format(spec)));
  if (spec.op == "gemv") {
    out += ", m=" + std::to_string(spec.m);
    if (spec.splits_k()) out += ", K split in two halves (m <= " + std::to_string(spec.split_k_max_m) + ")";
  }
  return out;
}

void validate_spec(const ReferenceSpec& spec) {
  const std::string where = "reference backend: ";
  if (spec.op != "sum" && spec.op != "dot" && spec.op != "gemv")
    throw ConfigError("op", where + "unknown op '" + spec.op + "'; allowed values: sum, dot, gemv");
  if (spec.op != "gemv" && (spec.m != 1 || spec.split_k_max_m != 0))
    throw ConfigError(spec.m != 1 ? "m" : "split_k_max_m", where + "m and split_k_max_m apply to op gemv only");
  if (spec.m < 1 || spec.m > 4096)
    throw ConfigError("m", where + "m must be between 1 and 4096, got " + std::to_string(spec.m));
  // A split half runs the order's kernel on its own summands: only orders without per-call state
  // or address dependence (the misbehaving ones, aligned_peel and random_tree keep their own).
  if (spec.splits_k() && spec.order != Order::sequential && spec.order != Order::reverse &&
      spec.order != Order::pairwise && spec.order != Order::strided_pairwise &&
      spec.order != Order::strided_sequential && spec.order != Order::blocked)
    throw ConfigError("order", where + "a gemv whose K is split (m <= split_k_max_m) takes the orders sequential, "
                                       "reverse, pairwise, strided_pairwise, strided_sequential, blocked");
  if (to_string(spec.order) == "unknown")
    throw ConfigError("order", where + "unknown order; allowed values: " + order_names());
  if (spec.dtype != Format::float32 && spec.dtype != Format::float64)
    throw ConfigError("dtype", where + "dtype '" + std::string(fprev::to_string(spec.dtype)) +
                                   "' is not supported; allowed values: float32, float64");
  const Format output = output_format(spec);
  if (output != Format::float16 && output != Format::bfloat16 && output != Format::float32 &&
      output != Format::float64)
    throw ConfigError("output", where + "output '" + std::string(fprev::to_string(output)) +
                                    "' is not supported; allowed values: float16, bfloat16, "
                                    "float32, float64");
  // Leaf indices are 32-bit node ids in a Tree (2n - 1 nodes).
  if (spec.n < 1 || spec.n > (std::size_t{1} << 30))
    throw ConfigError("n", where + "n must be between 1 and 1073741824, got " +
                               std::to_string(spec.n));
  if (const std::string absurd = absurd_size_message(spec.n, 1, static_cast<double>(spec.n)); !absurd.empty())
    throw ConfigError("n", where + absurd);
  if (spec.lanes < 1 || spec.lanes > (std::size_t{1} << 20))
    throw ConfigError("lanes", where + "lanes must be between 1 and 1048576, got " +
                                   std::to_string(spec.lanes));
  if (spec.block < 1)
    throw ConfigError("block", where + "block must be at least 1, got " + std::to_string(spec.block));
  if (spec.width < 2 || spec.width > kMaxFusedWidth)
    throw ConfigError("width", where + "width must be between 2 and " +
                                   std::to_string(kMaxFusedWidth) + ", got " +
                                   std::to_string(spec.width));
}

double nan_threshold(Format accumulator) {
  return std::ldexp(1.0, std::min(40, format_info(accumulator).max_exponent - 4));
}

}  // namespace fprev::reference
