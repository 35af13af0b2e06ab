// measure_fingerprint(): the fixed input sets' outputs, the measured facts, and whether the tree plus
// the facts reproduce those outputs. Grid targets are measured class by class where each class's
// ClassView reads it, all classes in shared calls (fingerprint_grid.cpp).
#include <chrono>
#include <sstream>
#include <stdexcept>

#include "fingerprint_lab.hpp"

namespace fprev {

namespace detail {

std::string model_verdict(const TargetInfo& info, const Tree& tree, const std::vector<FingerprintInputSet>& sets,
                          const std::map<std::string, std::vector<double>>& outputs,
                          const std::optional<FactModel>& model, const std::string& why_not) {
  if (!model) return "not modelled: " + why_not;
  std::size_t differ = 0, total = 0;
  std::string first;
  for (const FingerprintInputSet& set : sets) {
    const std::vector<double>& measured_set = outputs.at(set.name);
    for (std::size_t row = 0; row < set.rows; ++row, ++total) {
      const double predicted =
          simulate_with_facts(tree, info.traits, *model, std::span<const double>(set.a).subspan(row * info.n, info.n), set.b);
      const double measured = measured_set[row];
      if (predicted == measured || (predicted != predicted && measured != measured)) continue;
      if (differ++ == 0)
        first = set.name + "[" + std::to_string(row) + "]: predicted " + hex_double(predicted) + ", measured " +
                hex_double(measured);
    }
  }
  return differ == 0 ? "reproduced"
                     : "not reproduced: " + std::to_string(differ) + " of " + std::to_string(total) +
                           " outputs differ (first " + first + ")";
}

}  // namespace detail

Fingerprint measure_fingerprint(Target& target, const Tree& tree, FingerprintStats* stats) {
  FingerprintStats local;
  FingerprintStats& s = stats != nullptr ? *stats : local;
  if (target.info().is_grid()) {  // every element follows `tree`: one class
    s = {};
    return detail::measure_grid_fingerprints(target, OrderMap::uniform(target.info().grid, tree), s).front();
  }
  const auto start = std::chrono::steady_clock::now();
  const TargetInfo& info = target.info();
  Fingerprint fingerprint;
  const std::vector<FingerprintInputSet> sets = fingerprint_inputs(info);
  for (const FingerprintInputSet& set : sets)
    detail::evaluate_rows(target, set.rows, set.a, set.b, fingerprint.outputs[set.name], s);

  detail::Lab lab(target, s);
  std::optional<detail::FactModel> model;
  std::string why_not;
  fingerprint.facts = detail::measure_facts(lab, tree, model, why_not);
  fingerprint.model = detail::model_verdict(info, tree, sets, fingerprint.outputs, model, why_not);
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return fingerprint;
}

std::vector<Fingerprint> measure_map_fingerprints(Target& target, const OrderMap& map,
                                                  FingerprintStats* stats, const RevealStats* evidence) {
  FingerprintStats total;
  std::vector<Fingerprint> fingerprints;
  if (!target.info().is_grid()) {
    if (map.classes.size() != 1) throw std::invalid_argument("measure_map_fingerprints: a single-output target has one class");
    fingerprints.push_back(measure_fingerprint(target, map.classes[0].tree, &total));
  } else {
    fingerprints = evidence != nullptr ? detail::measure_grid_fingerprints(target, map, total, evidence->row_signatures,
                                                                           evidence->column_signatures,
                                                                           evidence->uniformity_outputs)
                                       : detail::measure_grid_fingerprints(target, map, total);
  }
  if (stats != nullptr) *stats = total;
  return fingerprints;
}

}  // namespace fprev
