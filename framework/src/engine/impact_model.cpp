// The arithmetic of the impact evaluation: the fingerprint's facts (as a golden stores them, text)
// turned back into the model the fingerprint's simulation runs (fingerprint_model.cpp), and the
// worst-case bound that model implies for a tree.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "impact_internal.hpp"

namespace fprev {
namespace detail {
namespace {

std::string fact_value(const ImpactArithmetic& arithmetic, const char* name) {
  const auto it = arithmetic.facts.find(name);
  if (it == arithmetic.facts.end()) return "";
  std::string value = it->second;
  if (value.ends_with("additions tested)")) value = value.substr(0, value.rfind(" ("));
  return value;
}

// The format whose partial sums a precision fact names: "float32", "float64", "x87 extended",
// "at least 60 bits", "40 bits". Precisions of 53 bits and more are simulated as float64 (the
// simulation's widest), others without a format of their own as the accumulator (noted).
Format precision_format(std::string_view text, Format accumulator, std::vector<std::string>& notes) {
  if (const auto f = parse_format(text)) return *f;
  std::string_view digits = text;
  if (digits.starts_with("at least ")) digits.remove_prefix(9);
  int bits = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
  const bool counted = error == std::errc() && std::string_view(end, digits.data() + digits.size()) == " bits";
  if (text == "x87 extended" || (counted && bits >= 53)) {
    notes.push_back("partial sums of " + std::string(text) + " simulated as float64");
    return Format::float64;
  }
  notes.push_back("partial sums '" + std::string(text) + "' simulated in the accumulator format");
  return accumulator;
}

// "992..999, 1003" -> the leaves.
std::vector<std::uint32_t> parse_leaf_ranges(std::string_view text) {
  std::vector<std::uint32_t> leaves;
  while (!text.empty()) {
    const std::size_t comma = text.find(", ");
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 2);
    std::uint32_t first = 0, last = 0;
    const auto dots = item.find("..");
    const std::string_view a = item.substr(0, dots);
    if (std::from_chars(a.data(), a.data() + a.size(), first).ec != std::errc()) return {};
    last = first;
    if (dots != std::string_view::npos) {
      const std::string_view b = item.substr(dots + 2);
      if (std::from_chars(b.data(), b.data() + b.size(), last).ec != std::errc() || last < first) return {};
    }
    for (std::uint32_t leaf = first; leaf <= last; ++leaf) leaves.push_back(leaf);
  }
  return leaves;
}

// The partial-sums fact ("float32; float64 at leaves 992..999") as a format per inner node: the
// base value everywhere, the exceptions at the additions that add the listed leaves directly.
void apply_partial_sums(const Tree& tree, const std::string& fact, Format accumulator, FactModel& model,
                        std::vector<std::string>& notes) {
  if (fact.empty() || fact.starts_with("undetermined")) return;
  std::size_t start = 0;
  bool first = true;
  while (start <= fact.size()) {
    const std::size_t end = std::min(fact.find("; ", start), fact.size());
    const std::string part = fact.substr(start, end - start);
    start = end + 2;
    if (first) {
      first = false;
      const Format base = precision_format(part, accumulator, notes);
      std::fill(model.node_format.begin() + static_cast<std::ptrdiff_t>(tree.leaf_count()), model.node_format.end(), base);
      continue;
    }
    const std::size_t at = part.find(" at ");
    if (at == std::string::npos) continue;
    const Format format = precision_format(part.substr(0, at), accumulator, notes);
    std::string_view place = std::string_view(part).substr(at + 4);
    if (const std::size_t nodes = place.find(" and "); nodes != std::string_view::npos) {
      notes.push_back("partial sums named by node in '" + part + "' simulated with the base precision");
      place = place.substr(0, nodes);
    }
    if (!place.starts_with("leaves ")) {
      notes.push_back("partial sums named by node in '" + part + "' simulated with the base precision");
      continue;
    }
    for (std::uint32_t leaf : parse_leaf_ranges(place.substr(7)))
      if (leaf < tree.leaf_count()) model.node_format[tree.parent(leaf)] = format;
  }
}

}  // namespace

FactModel impact_model(const Tree& tree, const ImpactArithmetic& arithmetic, std::vector<std::string>& notes) {
  const NumericTraits& traits = arithmetic.traits;
  FactModel model;
  model.node_format.assign(tree.node_count(), traits.accumulator);
  apply_partial_sums(tree, fact_value(arithmetic, "partial-sums"), traits.accumulator, model, notes);
  const std::string rounding = fact_value(arithmetic, "rounding");
  if (rounding == "toward-zero") model.round_toward_zero = true;
  else if (!rounding.empty() && rounding != "nearest-even" && !rounding.starts_with("undetermined"))
    notes.push_back("rounding " + rounding + " simulated as nearest-even");
  const std::string products = fact_value(arithmetic, "products");
  if (products == "not rounded (contracted, FMA)") model.products = FactModel::Products::contracted;
  else if (products.starts_with("exact") || products == "not rounded (kept in the wider partial sum)")
    model.products = FactModel::Products::exact;
  for (const char* name : {"subnormal-inputs", "subnormal-results"})
    if (fact_value(arithmetic, name) == "flushed to zero")
      notes.push_back(std::string(name) + " flushed to zero: not simulated (the sets hold no subnormals)");
  model.fused_extra_bits = traits.fused_extra_bits;
  model.fused_truncates = false;
  const std::string bits = fact_value(arithmetic, "fused-extra-bits");
  if (!bits.empty() && bits.find_first_not_of("0123456789") == std::string::npos) model.fused_extra_bits = std::stoi(bits);
  else if (bits.starts_with("at least ")) model.fused_extra_bits = std::atoi(bits.c_str() + 9);
  const std::string uniformity = fact_value(arithmetic, "uniformity");
  if (!uniformity.empty())
    notes.push_back("not every element computes alike (" + uniformity + "): simulated as the class's reference element computes");
  const std::string alignment = fact_value(arithmetic, "fused-alignment");
  model.fused_truncates = alignment == "terms truncated, sum truncated";
  if (!alignment.empty() && !alignment.starts_with("terms truncated, sum "))
    notes.push_back("fused alignment '" + alignment + "' simulated as terms truncated, sum rounded to nearest");
  return model;
}

}  // namespace detail

ImpactBound worst_case_bound(const Tree& tree, const ImpactArithmetic& arithmetic) {
  ImpactBound bound;
  if (tree.leaf_count() == 0) return bound;
  std::vector<std::string> notes;
  const detail::FactModel model = detail::impact_model(tree, arithmetic, notes);
  const double u = std::ldexp(1.0, -format_info(arithmetic.traits.accumulator).precision);
  const double directed = model.round_toward_zero ? 2.0 : 1.0;
  // Each inner node's error, in units of the accumulator's u, relative to the sum of the absolute
  // values below it: one rounding (2 when directed); a fused node of w terms also truncates the
  // w - 1 terms below the largest to precision + extra bits (each error below 2u 2^-extra).
  const auto weight = [&](NodeId node) {
    const double node_u = std::ldexp(1.0, -format_info(model.node_format[node]).precision) / u;
    const std::size_t w = tree.children(node).size();
    if (w == 2) return directed * node_u;
    const double final_rounding = model.fused_truncates || model.round_toward_zero ? 2.0 : 1.0;
    return node_u * (final_rounding + 2.0 * static_cast<double>(w - 1) * std::ldexp(1.0, -model.fused_extra_bits));
  };
  const bool product = arithmetic.traits.summand != SummandKind::plain;
  const double leaf_weight = product && model.products == detail::FactModel::Products::rounded ? directed : 0.0;
  std::vector<double> path(tree.node_count(), 0.0);
  // Parents have larger ids than their children (canonical post-order): walk down from the root.
  for (std::size_t k = tree.node_count(); k-- > 0;) {
    const auto node = static_cast<NodeId>(k);
    const double above = node == tree.root() ? 0.0 : path[tree.parent(node)];
    path[k] = above + (tree.is_leaf(node) ? leaf_weight : weight(node));
    if (tree.is_leaf(node) && path[k] >= bound.h) {
      bound.h = path[k];
      bound.leaf = k;
    }
  }
  return bound;
}

std::string bound_text(double h) {
  std::ostringstream os;
  if (h == std::floor(h) && h < 1e15) os << static_cast<long long>(h);
  else os << std::setprecision(3) << h;
  return os.str() + "u";
}

}  // namespace fprev
