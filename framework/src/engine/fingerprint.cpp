// measure_fingerprint(): the fixed input sets' outputs, the measured facts, and whether the tree plus
// the facts reproduce those outputs.
#include <chrono>
#include <sstream>
#include <stdexcept>

#include "fingerprint_lab.hpp"
#include "fprev/class_view.hpp"

namespace fprev {

Fingerprint measure_fingerprint(Target& target, const Tree& tree, FingerprintStats* stats) {
  if (target.info().is_grid()) {  // every element follows `tree`: read them as one class
    ClassView view(target, OrderMap::uniform(target.info().grid, tree), 0);
    return measure_fingerprint(view, tree, stats);
  }
  FingerprintStats local;
  FingerprintStats& s = stats != nullptr ? *stats : local;
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

  if (!model) {
    fingerprint.model = "not modelled: " + why_not;
  } else {
    std::size_t differ = 0, total = 0;
    std::string first;
    for (const FingerprintInputSet& set : sets) {
      const auto& outputs = fingerprint.outputs[set.name];
      for (std::size_t row = 0; row < set.rows; ++row, ++total) {
        const double predicted = detail::simulate_with_facts(
            tree, info.traits, *model, std::span<const double>(set.a).subspan(row * info.n, info.n), set.b);
        const double measured = outputs[row];
        if (predicted == measured || (predicted != predicted && measured != measured)) continue;
        if (differ++ == 0)
          first = set.name + "[" + std::to_string(row) + "]: predicted " + hex_double(predicted) +
                  ", measured " + hex_double(measured);
      }
    }
    fingerprint.model = differ == 0 ? "reproduced"
                                    : "not reproduced: " + std::to_string(differ) + " of " +
                                          std::to_string(total) + " outputs differ (first " + first + ")";
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return fingerprint;
}

std::vector<Fingerprint> measure_map_fingerprints(Target& target, const OrderMap& map,
                                                  FingerprintStats* stats) {
  FingerprintStats total;
  std::vector<Fingerprint> fingerprints;
  if (!target.info().is_grid()) {
    if (map.classes.size() != 1) throw std::invalid_argument("measure_map_fingerprints: a single-output target has one class");
    fingerprints.push_back(measure_fingerprint(target, map.classes[0].tree, &total));
  } else {
    for (std::size_t k = 0; k < map.classes.size(); ++k) {
      ClassView view(target, map, k);
      FingerprintStats one;
      fingerprints.push_back(measure_fingerprint(view, map.classes[k].tree, &one));
      total.target_calls += one.target_calls;
      total.inputs += one.inputs;
      total.seconds += one.seconds;
    }
  }
  if (stats != nullptr) *stats = total;
  return fingerprints;
}

}  // namespace fprev
