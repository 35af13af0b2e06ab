// Determinism first (Shanmugavelu et al., SC24 workshops): the same random inputs evaluated several times must give bitwise
// identical outputs, otherwise the target is run-to-run non-deterministic (atomics, dynamic
// scheduling) and has no fixed summation tree. Reported with the metrics V_c and V_ermv.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
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

// Runs `run` run_count times: every output must be finite and bitwise the same in every run.
std::vector<double> compare_runs(std::size_t run_count,
                                 const std::function<std::vector<double>()>& run,
                                 const std::function<std::string(std::size_t)>& name) {
  std::vector<std::vector<double>> runs;
  for (std::size_t r = 0; r < run_count; ++r) {
    runs.push_back(run());
    for (std::size_t d = 0; d < runs.back().size(); ++d) {
      if (!std::isfinite(runs.back()[d])) {
        std::ostringstream os;
        os << "the target returned " << runs.back()[d] << " for " << name(d) << " (finite values)";
        fail(Finding::non_finite_output, os.str(), name(d), runs.back()[d],
             "a broken kernel (NaN or overflow on ordinary inputs)");
      }
    }
  }
  const std::size_t outputs = runs.front().size();
  for (std::size_t r = 1; r < runs.size(); ++r) {
    for (std::size_t d = 0; d < outputs; ++d) {
      if (same_bits(runs[r][d], runs[0][d])) continue;
      Diagnostic diagnostic;
      diagnostic.finding = Finding::nondeterministic;
      diagnostic.variability = variability(runs);
      std::ostringstream os;
      os.precision(17);
      os << "the same input gave different outputs in repeated runs (run 1: " << runs[0][d]
         << ", run " << r + 1 << ": " << runs[r][d] << "); V_c = "
         << diagnostic.variability->count_variability << ", V_ermv = " << diagnostic.variability->ermv
         << " over " << run_count << " runs of " << outputs << " outputs";
      diagnostic.message = os.str();
      diagnostic.probe = name(d);
      diagnostic.raw_output = runs[r][d];
      diagnostic.likely_cause =
          "run-to-run non-determinism (atomic additions, dynamic work distribution between "
          "threads or streams): no fixed summation tree exists; make the library deterministic "
          "(e.g. a deterministic mode, fixed thread count) before gating it";
      throw RevealFailure(std::move(diagnostic));
    }
  }
  return runs.front();
}

namespace {

std::vector<double> evaluate_record(ProbeSession& session, const ValueRecord& record) {
  if (!session.info().is_grid()) return session.evaluate_values(record.inputs, record.a, record.b);
  return session.evaluate_value_grid(Placement::rows, record.inputs, record.a, record.b, record.column_factors);
}

// "random input #2" or "random input #2 at output element (10, 3)".
std::string record_output_name(const TargetInfo& info, std::size_t distinct, std::size_t d) {
  if (!info.is_grid()) return "random input #" + std::to_string(d);
  const std::size_t columns = info.grid.columns;
  return "random input #" + std::to_string((d / columns) % distinct) + " at output element (" +
         std::to_string(d / columns) + ", " + std::to_string(d % columns) + ")";
}

}  // namespace


RandomInputs grid_value_inputs(const TargetInfo& info, const RevealOptions& options) {
  return make_random_inputs(info, std::max<std::size_t>(1, options.determinism_inputs), options.seed ^ 0x5169,
                            10);
}

namespace {

// Evaluates the record run_count times: every output finite and bitwise the same in every run.
void record_runs(ProbeSession& session, std::size_t run_count, ValueRecord& record) {
  const TargetInfo& info = session.info();
  record.runs = run_count;
  record.outputs = compare_runs(run_count, [&] { return evaluate_record(session, record); },
                                [&](std::size_t d) { return record_output_name(info, record.distinct, d); });
}

}  // namespace

SimulatedRecord grid_simulation_record(ProbeSession& session, const RevealOptions& options, std::size_t runs) {
  const TargetInfo& info = session.info();
  SimulatedRecord out;
  const std::size_t n = info.n, lines = session.lines(Placement::rows);
  // The simulation's inputs, one row each in turn.
  out.count = std::min(options.verify_inputs, lines);
  out.simulation = make_random_inputs(info, out.count, options.seed ^ 0x51a1, 12);
  ValueRecord& record = out.record;
  record.distinct = out.count;
  record.inputs = lines;
  record.b = out.simulation.b;
  // A target whose columns take right factors of their own gets q of them, column c the (c mod
  // q)-th: every element still adds random inputs the simulation checks, and rows as well as
  // columns are compared on several inputs (the fingerprint's packed calls rest on that).
  const std::size_t columns = info.grid.columns;
  const std::size_t factor_sets = std::min(out.count, columns);
  if (info.column_right_factors && info.traits.summand != SummandKind::plain && factor_sets >= 2) {
    out.column_b = out.simulation.b;
    for (std::size_t q = 1; q < factor_sets; ++q) {
      const RandomInputs more = make_random_inputs(info, 1, options.seed ^ 0x51a1 ^ (0x9e3779b9ull * q), 12);
      out.column_b.insert(out.column_b.end(), more.b.begin(), more.b.end());
    }
    record.b = out.column_b;
    record.column_factors.resize(columns);
    for (std::size_t c = 0; c < columns; ++c) record.column_factors[c] = static_cast<std::uint32_t>(c % factor_sets);
  }
  record.a.resize(lines * n);
  for (std::size_t r = 0; r < lines; ++r)
    std::copy_n(out.simulation.a.begin() + static_cast<std::ptrdiff_t>((r % out.count) * n), n,
                record.a.begin() + static_cast<std::ptrdiff_t>(r * n));
  record_runs(session, runs, record);
  return out;
}

SimulatedRecord check_grid_determinism_for_simulation(ProbeSession& session, const RevealOptions& options,
                                                      bool final_run_follows) {
  const TargetInfo& info = session.info();
  if (!info.is_grid() || options.verify_inputs == 0 || info.n < 2) {
    SimulatedRecord out;
    out.record = check_determinism(session, options);
    return out;
  }
  const std::size_t runs = std::max<std::size_t>(2, options.grid_determinism_runs);
  return grid_simulation_record(session, options, final_run_follows ? runs - 1 : runs);
}

std::vector<double> evaluate_record_again(ProbeSession& session, const ValueRecord& record) {
  return evaluate_record(session, record);
}

RandomInputs determinism_inputs(const TargetInfo& info, const RevealOptions& options) {
  return make_random_inputs(info, std::max<std::size_t>(1, options.determinism_inputs), options.seed ^ 0xd37e, 10);
}

ValueRecord check_determinism(ProbeSession& session, const RevealOptions& options, const RandomInputs* made) {
  const TargetInfo& info = session.info();
  ValueRecord record;
  std::size_t run_count = std::max<std::size_t>(2, options.determinism_runs);
  if (!info.is_grid()) {
    const std::size_t rows = std::max<std::size_t>(1, options.determinism_inputs);
    if (made != nullptr) {
      record.a = made->a;
      record.b = made->b;
    } else {
      RandomInputs inputs = determinism_inputs(info, options);
      record.a = std::move(inputs.a);
      record.b = std::move(inputs.b);
    }
    record.distinct = rows;
    record.inputs = rows;
  } else {
    // Grid targets: one input on every row, every element compared run to run (and the elements
    // with each other by the order map's partition, which starts from these outputs).
    run_count = std::max<std::size_t>(2, options.grid_determinism_runs);
    const RandomInputs inputs = grid_value_inputs(info, options);
    const std::size_t lines = session.lines(Placement::rows), n = info.n;
    record.distinct = 1;
    record.inputs = lines;
    record.b = inputs.b;
    record.a.resize(lines * n);
    for (std::size_t r = 0; r < lines; ++r)
      std::copy_n(inputs.a.begin(), n, record.a.begin() + static_cast<std::ptrdiff_t>(r * n));
  }
  record_runs(session, run_count, record);
  return record;
}

void check_unchanged(ProbeSession& session, const ValueRecord& record) {
  const std::vector<double> now = evaluate_record(session, record);
  for (std::size_t d = 0; d < now.size(); ++d) {
    if (same_bits(now[d], record.outputs[d])) continue;
    if (record.runs < 2) {  // run to run, or changed between calls? Back to back tells.
      ValueRecord again = record;
      record_runs(session, 2, again);
    }
    std::ostringstream os;
    os.precision(17);
    os << record_output_name(session.info(), record.distinct, d) << " gave " << record.outputs[d]
       << " before the reveal and " << now[d] << " after it";
    fail(Finding::batch_inconsistent, os.str(), record_output_name(session.info(), record.distinct, d),
         now[d],
         "the order changes between calls (with the call count, a cache or tuning state, or the "
         "other inputs of the call), so the revealed tree or map does not describe every call");
  }
}

}  // namespace fprev::detail
