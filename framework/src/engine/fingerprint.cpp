// measure_fingerprint(): the fixed input sets' outputs, the measured facts, and whether the tree plus
// the facts reproduce those outputs.
#include <chrono>
#include <sstream>

#include "fingerprint_lab.hpp"

namespace fprev {

Fingerprint measure_fingerprint(Target& target, const Tree& tree, FingerprintStats* stats) {
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

}  // namespace fprev
