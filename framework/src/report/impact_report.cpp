// result_impact(): the impact of a change between two results, class pair by class pair, and its
// text for people (the JSON form belongs to the command line: ../cli/report/json.cpp).
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "fprev/impact.hpp"
#include "report/result_pairs.hpp"

namespace fprev {
namespace {

const Fingerprint* class_fingerprint(const Golden& golden, const OrderMap& map, std::size_t k) {
  if (golden.fingerprints.size() == map.classes.size()) return &golden.fingerprints[k];
  return golden.fingerprints.size() == 1 ? &golden.fingerprints[0] : nullptr;
}

std::string fact_of(const Golden& golden, const char* name) {
  for (const Fingerprint& f : golden.fingerprints)
    if (const auto it = f.facts.find(name); it != f.facts.end()) return it->second;
  return "";
}

// The first format named by a part of the case id ("dot-float32-n1000": float32).
std::optional<Format> case_format(const Golden& golden) {
  std::istringstream parts(golden.meta.case_id);
  for (std::string part; std::getline(parts, part, '-');)
    if (const auto f = parse_format(part)) return f;
  return std::nullopt;
}

// The formats of a change between two goldens, which do not record them (see result_impact()).
NumericTraits inferred_traits(const Golden& before, const Golden& after) {
  std::vector<const Fingerprint*> fingerprints;
  for (const Golden* g : {&before, &after})
    for (const Fingerprint& f : g->fingerprints) fingerprints.push_back(&f);
  const std::optional<Format> named = case_format(after) ? case_format(after) : case_format(before);
  NumericTraits t;
  // The outputs' narrowest format can be too narrow (a few outputs that happen to be short): the
  // format the case id names is the least the output holds.
  t.output = !fingerprints.empty() ? output_format_of(fingerprints) : named.value_or(Format::float64);
  if (named && format_info(*named).precision > format_info(t.output).precision) t.output = *named;
  t.input = named.value_or(t.output);
  std::string partial = fact_of(before, "partial-sums");
  partial = partial.substr(0, std::min(partial.find(';'), partial.find(" (")));
  t.accumulator = parse_format(partial).value_or(t.output);
  const bool product_fact = !fact_of(before, "products").empty() || !fact_of(after, "products").empty();
  const std::string& id = after.meta.case_id;
  const bool product_op = id.starts_with("dot") || id.starts_with("gemm") || id.starts_with("gemv");
  t.summand = product_fact || product_op ? SummandKind::product : SummandKind::plain;
  return t;
}

std::string traits_text(const NumericTraits& t) {
  return std::string(to_string(t.input)) + " inputs, " + std::string(to_string(t.accumulator)) + " accumulator, " +
         std::string(to_string(t.output)) + " output, " + (t.summand == SummandKind::plain ? "plain summands" : "products");
}

std::string short_number(double x) {
  if (std::isinf(x)) return "inf";
  std::ostringstream os;
  os << std::setprecision(2) << x;
  return os.str();
}

// "3", "1.5"; "inf" where a result is not finite.
std::string ulps_value(double ulps) {
  if (std::isinf(ulps)) return "inf";
  std::ostringstream os;
  if (ulps == std::floor(ulps) && ulps < 1e15) os << static_cast<long long>(ulps);
  else os << ulps;
  return os.str();
}

// The set the one-line summary shows: normal when it differs, else the first that differs, else normal.
const ImpactSet* headline_set(const TreeImpact& impact) {
  const ImpactSet* normal = nullptr;
  const ImpactSet* first_differing = nullptr;
  for (const ImpactSet& s : impact.sets) {
    if (s.name == "normal") normal = &s;
    if (s.differing != 0 && first_differing == nullptr) first_differing = &s;
  }
  if (normal != nullptr && normal->differing != 0) return normal;
  return first_differing != nullptr ? first_differing : normal;
}

}  // namespace

std::optional<ResultImpact> result_impact(const Golden& before, const Golden& after,
                                          const std::optional<NumericTraits>& traits, const ImpactOptions& options) {
  if (before.finding || after.finding) return std::nullopt;
  const auto maps = comparable_maps(before, after);
  if (!maps) return std::nullopt;
  ResultImpact result;
  const NumericTraits t = traits ? *traits : inferred_traits(before, after);
  result.arithmetic = (traits ? "the case's target: " : "inferred from the results: ") + traits_text(t);

  // The changed class pairs with the elements they cover, in the order the map diff lists them.
  struct Pair {
    std::size_t before_class, after_class;
    std::vector<Region> regions;
    std::size_t elements = 0;
  };
  std::vector<Pair> pairs;
  const auto add = [&](std::size_t b, std::size_t a, const Region& region) {
    auto it = std::find_if(pairs.begin(), pairs.end(), [&](const Pair& p) { return p.before_class == b && p.after_class == a; });
    if (it == pairs.end()) it = pairs.insert(pairs.end(), Pair{b, a, {}, 0});
    it->regions.push_back(region);
    it->elements += region.size();
  };
  const bool same_trees = same_orders(maps->before, maps->after);
  if (same_trees) {
    // The same trees: the arithmetic changed where a class's fingerprint did.
    for (std::size_t k = 0; k < maps->before.classes.size(); ++k) {
      const Fingerprint* b = class_fingerprint(before, maps->before, k);
      const Fingerprint* a = class_fingerprint(after, maps->after, k);
      if (b == nullptr || a == nullptr || *b == *a) continue;
      for (const Region& region : maps->after.classes[k].regions) add(k, k, region);
    }
  } else {
    for (const MapChange& change : compare_maps(maps->before, maps->after))
      add(change.before_class, change.after_class, change.region);
  }
  if (pairs.empty()) return std::nullopt;
  for (const Pair& pair : pairs) {
    const Tree& old_tree = maps->before.classes[pair.before_class].tree;
    const Tree& new_tree = maps->after.classes[pair.after_class].tree;
    if (old_tree.leaf_count() != new_tree.leaf_count()) continue;
    if (result.changes.size() == kMaxImpactChanges) {
      ++result.unevaluated;
      continue;
    }
    ImpactArithmetic old_arithmetic{t, {}}, new_arithmetic{t, {}};
    const Fingerprint* old_fingerprint = class_fingerprint(before, maps->before, pair.before_class);
    const Fingerprint* new_fingerprint = class_fingerprint(after, maps->after, pair.after_class);
    if (old_fingerprint != nullptr) old_arithmetic.facts = old_fingerprint->facts;
    if (new_fingerprint != nullptr) new_arithmetic.facts = new_fingerprint->facts;
    ClassImpact change;
    change.before_class = pair.before_class;
    change.after_class = pair.after_class;
    change.element_count = pair.elements;
    if (!maps->after.single_class() || !maps->before.single_class()) {
      for (const Region& region : pair.regions)
        change.elements += (change.elements.empty() ? "" : "; ") + format_region(region, maps->after.grid);
    }
    change.impact = tree_impact(old_tree, old_arithmetic, new_tree, new_arithmetic, options);
    if (same_trees && old_arithmetic.facts == new_arithmetic.facts)
      change.impact.notes.push_back(
          "the measured facts are the same on both sides: the simulation cannot show this change of the outputs");
    result.suggested_tolerance = std::max(result.suggested_tolerance, change.impact.suggested_tolerance);
    result.changes.push_back(std::move(change));
  }
  if (result.changes.empty()) return std::nullopt;
  return result;
}

std::string impact_line(const ResultImpact& impact) {
  const ClassImpact& first = impact.changes.front();
  std::string line = "impact: ";
  if (const ImpactSet* s = headline_set(first.impact)) {
    line += "differs on " + std::to_string(s->differing) + " of " + std::to_string(s->inputs) + " " + s->name + " inputs";
    if (s->differing != 0) line += ", by up to " + ulps_value(s->max_ulp) + " ulp (median " + ulps_value(s->median_ulp) + ")";
    line += "; ";
  }
  line += "worst-case bound " + bound_text(first.impact.old_bound.h) + " -> " + bound_text(first.impact.new_bound.h);
  if (impact.changes.size() + impact.unevaluated > 1)
    line += " (at " + first.elements + "; " + std::to_string(impact.changes.size() + impact.unevaluated) + " changed class pairs)";
  return line;
}

std::vector<std::string> impact_detail_lines(const ResultImpact& impact) {
  std::vector<std::string> lines;
  const bool several = impact.changes.size() + impact.unevaluated > 1 || !impact.changes.front().elements.empty();
  for (const ClassImpact& change : impact.changes) {
    std::string indent;
    if (several) {
      lines.push_back("at " + change.elements + " (" + std::to_string(change.element_count) + " elements, class " +
                      std::to_string(change.before_class) + " -> " + std::to_string(change.after_class) + "):");
      indent = "  ";
    }
    for (const ImpactSet& s : change.impact.sets) {
      std::string line = indent + s.name;
      if (s.name == "cancel") line += " (condition ~" + short_number(s.median_condition) + ")";
      line += ": differs on " + std::to_string(s.differing) + " of " + std::to_string(s.inputs);
      if (s.differing != 0) line += ", up to " + ulps_value(s.max_ulp) + " ulp (median " + ulps_value(s.median_ulp) + ")";
      line += "; max relative error vs the exact sum " + short_number(s.old_max_relative_error) + " -> " +
              short_number(s.new_max_relative_error);
      lines.push_back(line);
    }
    lines.push_back(indent + "worst-case bound " + bound_text(change.impact.old_bound.h) + " -> " +
                    bound_text(change.impact.new_bound.h) + " (|error| <= gamma_h sum|x_i|; h u: roundings on the deepest leaf's path)");
    for (const std::string& note : change.impact.notes) lines.push_back(indent + "note: " + note);
  }
  if (impact.unevaluated != 0)
    lines.push_back("... and " + std::to_string(impact.unevaluated) + " more changed class pairs, not evaluated (at most " +
                    std::to_string(kMaxImpactChanges) + ")");
  lines.push_back("suggested relative tolerance: " + short_number(impact.suggested_tolerance) +
                  " (the smallest covering every input tried; not a guarantee)");
  lines.push_back("arithmetic: " + impact.arithmetic);
  return lines;
}

}  // namespace fprev
