// Determinism first (Shanmugavelu et al., SC24 workshops): the same random inputs evaluated several times must give bitwise
// identical outputs, otherwise the target is run-to-run non-deterministic (atomics, dynamic
// scheduling) and has no fixed summation tree. Reported with the metrics V_c and V_ermv.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "checks.hpp"

namespace fprev::detail {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

Variability variability(const std::vector<std::vector<double>>& runs) {
  Variability v;
  v.runs = runs.size();
  v.inputs = runs.front().size();
  const std::vector<double>& reference = runs.front();
  double differing = 0, relative = 0;
  for (std::size_t r = 1; r < runs.size(); ++r) {
    for (std::size_t d = 0; d < reference.size(); ++d) {
      const double a = reference[d], b = runs[r][d];
      if (!same_bits(a, b)) differing += 1;
      relative += a != 0 ? std::fabs(a - b) / std::fabs(a) : (b != 0 ? 1.0 : 0.0);
    }
  }
  const double comparisons = static_cast<double>((runs.size() - 1) * reference.size());
  v.count_variability = differing / comparisons;
  v.ermv = relative / comparisons;
  // The most variable input: the first one may well have come out the same every time.
  for (std::size_t d = 0; d < reference.size(); ++d) {
    std::set<double> distinct;
    for (const auto& run : runs) distinct.insert(run[d]);
    v.distinct_outputs = std::max(v.distinct_outputs, distinct.size());
  }
  return v;
}

}  // namespace

void check_determinism(ProbeSession& session, const RevealOptions& options) {
  const std::size_t rows = std::max<std::size_t>(1, options.determinism_inputs);
  const std::size_t run_count = std::max<std::size_t>(2, options.determinism_runs);
  const RandomInputs inputs = make_random_inputs(session.info(), rows, options.seed ^ 0xd37e, 10);
  std::vector<std::vector<double>> runs;
  for (std::size_t r = 0; r < run_count; ++r) {
    runs.push_back(session.evaluate_values(rows, inputs.a, inputs.b));
    for (std::size_t d = 0; d < rows; ++d) {
      if (!std::isfinite(runs.back()[d])) {
        std::ostringstream os;
        os << "the target returned " << runs.back()[d] << " for random finite input #" << d;
        fail(Finding::non_finite_output, os.str(), "random input #" + std::to_string(d),
             runs.back()[d], "a broken kernel (NaN or overflow on ordinary inputs)");
      }
    }
  }
  for (std::size_t r = 1; r < runs.size(); ++r) {
    for (std::size_t d = 0; d < rows; ++d) {
      if (same_bits(runs[r][d], runs[0][d])) continue;
      Diagnostic diagnostic;
      diagnostic.finding = Finding::nondeterministic;
      diagnostic.variability = variability(runs);
      std::ostringstream os;
      os.precision(17);
      os << "the same input gave different outputs in repeated runs (run 1: " << runs[0][d]
         << ", run " << r + 1 << ": " << runs[r][d] << "); V_c = "
         << diagnostic.variability->count_variability << ", V_ermv = " << diagnostic.variability->ermv
         << " over " << run_count << " runs of " << rows << " inputs";
      diagnostic.message = os.str();
      diagnostic.probe = "random input #" + std::to_string(d);
      diagnostic.raw_output = runs[r][d];
      diagnostic.likely_cause =
          "run-to-run non-determinism (atomic additions, dynamic work distribution between "
          "threads or streams): no fixed summation tree exists; make the library deterministic "
          "(e.g. a deterministic mode, fixed thread count) before gating it";
      throw RevealFailure(std::move(diagnostic));
    }
  }
}

}  // namespace fprev::detail
