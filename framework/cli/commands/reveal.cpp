// fprev-golden reveal: one ad-hoc target from the command line.
#include <iomanip>
#include <iostream>
#include <optional>

#include "../backend_options.hpp"
#include "../commands.hpp"
#include "../report/case_text.hpp"
#include "../report/json.hpp"
#include "distributed_mode.hpp"
#include "engine_options.hpp"
#include "fprev/backend_module.hpp"
#include "fprev/alignment.hpp"
#include "fprev/invariance.hpp"
#include "fprev/probe_streams.hpp"
#include "fprev/fingerprint.hpp"
#include "fprev/reveal.hpp"
#include "fprev/order_map.hpp"
#include "fprev/sexpr.hpp"
#include "fprev/summary.hpp"
#include "fprev/target_calls.hpp"
#include "fprev/worker.hpp"

namespace fprev::cli {
namespace {

std::string arity_text(const Tree& tree) {
  std::ostringstream os;
  bool first = true;
  for (const auto& [arity, count] : tree.arity_histogram()) {
    os << (first ? "" : ", ") << arity << ":" << count;
    first = false;
  }
  return first ? "none (a single summand)" : os.str();
}

void print_fingerprint(std::ostream& out, const Fingerprint& fingerprint, const FingerprintStats& stats) {
  out << "fingerprint:   digest " << fingerprint.digest() << " of " << fingerprint.input_count()
      << " outputs; " << stats.inputs << " inputs in " << stats.target_calls << " target calls, "
      << std::fixed << std::setprecision(6) << stats.seconds << " s\n";
  for (const auto& [name, value] : fingerprint.facts) out << "  " << name << ": " << value << "\n";
  out << "  model: " << fingerprint.model << "\n";
}

void print_text(std::ostream& out, const TargetInfo& info, const RevealResult& result) {
  const Tree& tree = result.tree;
  const RevealStats& s = result.stats;
  out << "target:        " << info.description << "\n";
  if (result.map.single_class()) {
    out << "tree:          " << to_sexpr(tree) << "\n";
    out << "leaves:        " << tree.leaf_count() << "\n";
    out << "depth:         " << tree.depth() << "\n";
    out << "arity:         " << arity_text(tree) << "\n";
    out << "summary:       " << summarize(tree).description << "\n";
  } else {
    // The map: one line per class (its regions, then its tree's summary).
    out << "order map:     " << result.map.classes.size() << " classes of the "
        << result.map.grid.rows << " x " << result.map.grid.columns << " outputs\n";
    for (const std::string& line : describe_map(result.map)) out << "  " << line << "\n";
  }
  out << "probes:        " << s.probes << "\n";
  if (s.pair_grid_calls > 0)
    out << "pair grid:     " << s.pair_grid_answers << " probes of the classes' FPRev answered by every l(i,j) measured at "
        << "the elements in " << s.pair_grid_calls << " calls\n";
  if (s.every_element_proven)
    out << "element proof: every element answered its class's whole proof, in " << s.element_proof_calls << " calls\n";
  else if (!s.element_proof_skipped.empty())
    out << "element proof: not run: " << s.element_proof_skipped << "\n";
  if (s.guesses_proven + s.guesses_failed > 0)
    out << "guesses:       " << s.guesses_proven << " sub-problems guessed from a sibling's shape and proven"
        << (s.guesses_failed > 0 ? ", " + std::to_string(s.guesses_failed) + " revealed after a failed proof" : "")
        << "\n";
  out << "target calls:  " << s.target_calls << " (" << s.verification_calls << " of them verifying the found order; "
      << s.value_inputs << " random inputs for the determinism check and verification)\n";
  out << std::fixed << std::setprecision(6);
  out << "time:          " << s.target_seconds << " s inside the target of " << s.total_seconds
      << " s (" << std::setprecision(1)
      << (s.total_seconds > 0 ? 100.0 * s.target_seconds / s.total_seconds : 100.0) << "%";
  if (s.streams > 1) out << ", added up over " << s.streams << " probe streams";
  if (s.ranks > 1) {
    out << " on " << s.ranks << " MPI ranks: probes by rank";
    for (const std::size_t probes : s.rank_probes) out << " " << probes;
  }
  out << ")\n";
  if (info.jobs_started > 0) out << "jobs started:  " << info.jobs_started << " (the backend launched them for this target)\n";
  out << "verified:      " << s.verified_probes << " l(i,j) predictions, " << s.simulated_inputs
      << " random inputs reproduced bitwise\n";
  if (info.is_grid())
    out << "elements:      " << s.element_checks << " element answers checked against their class ("
        << s.class_splits << " class splits)\n";
  if (s.fused_node_tests > 0)
    out << "fused nodes:   " << s.fused_node_tests
        << " inputs showed fixed fused steps, not a value-dependent order\n";
  if (s.fused_alignment_bits > 0)
    out << "               they keep " << s.fused_alignment_bits
        << " bits from the largest term, fewer than the data has (a short accumulator, or rounding on input)\n";
  if (!s.arithmetic_note.empty()) out << "note:          " << s.arithmetic_note << "\n";
  out << "mask scheme:   " << result.scheme.describe()
      << (s.low_range_mode ? " (low-dynamic-range mode, Xie et al., USENIX ATC 2025 Alg. 5)" : "") << "\n";
}

// The order map over offsets (fprev/alignment.hpp): one line per offset class and per class of its
// map, "offsets 0,4,8,12: <tree>" (a map's classes add their regions).
void print_offset_classes(std::ostream& out, const AlignmentResult& alignment) {
  for (const OffsetClass& c : alignment.classes) {
    if (c.map.single_class()) {
      out << "offsets " << placements_text(c.placements) << ": " << to_sexpr(c.map.classes[0].tree) << "\n";
      continue;
    }
    for (const OrderClass& k : c.map.classes) {
      out << "offsets " << placements_text(c.placements) << ": ";
      for (const Region& r : k.regions) out << format_region(r, c.map.grid) << "; ";
      out << to_sexpr(k.tree) << "\n";
    }
  }
}

void print_alignment_text(std::ostream& out, const AlignmentResult& alignment, const AlignmentStats& stats) {
  out << "alignment:     " << alignment.summary();
  if (alignment.checked())
    out << "; " << stats.proofs << " proofs (" << stats.proofs_failed << " failed), " << stats.reveals
        << " reveals, " << stats.probes << " probes in " << stats.target_calls << " target calls, " << std::fixed << std::setprecision(6) << stats.seconds << " s";
  out << "\n";
  for (const OffsetClass& c : alignment.classes) {
    out << "  offsets " << placements_text(c.placements) << ": ";
    if (c.map.single_class())
      out << summarize(c.map.classes[0].tree).description << "\n    " << to_sexpr(c.map.classes[0].tree) << "\n";
    else
      out << c.map.classes.size() << " classes of the outputs\n";
  }
}

// One `--invariant PARAM=V1,V2,...` (or runs=N): the parameter and its values. UsageError for
// anything else.
std::pair<std::string, std::vector<std::string>> parse_invariant_request(const std::string& text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
    throw UsageError("--invariant '" + text + "': expected PARAM=V1,V2,... (e.g. m=1,8,64) or runs=N");
  std::string parameter = text.substr(0, equals);
  std::vector<std::string> values;
  std::size_t from = equals + 1;
  while (true) {
    const std::size_t comma = text.find(',', from);
    values.push_back(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (const std::string problem = invariance_values_problem(parameter, values); !problem.empty())
    throw UsageError("--invariant '" + text + "': " + problem);
  if (parameter == kRunsParameter) values = run_values(std::stoul(values[0]));
  return {std::move(parameter), std::move(values)};
}

struct InvarianceRun {
  std::vector<InvarianceResult> results;
  std::vector<InvarianceStats> stats;
};

// Every --invariant of the command against the order revealed (fprev/invariance.hpp).
InvarianceRun check_requested_invariance(const RevealCommandOptions& options, const Backend& backend,
                                         const OpenedTarget& opened, const TargetInfo& info, const OrderMap& map,
                                         const RevealOptions& reveal_options) {
  InvarianceRun run;
  for (const std::string& request : options.invariant) {
    const auto [parameter, values] = parse_invariant_request(request);
    std::string known;
    std::vector<InvarianceVariant> variants;
    try {
      known = invariance_known_value(backend, *opened.instance, opened.settings, opened.case_params, parameter);
      variants = make_invariance_variants(backend, *opened.instance, opened.settings, opened.case_params, parameter,
                                          values, known);
    } catch (const ConfigError& e) {
      throw UsageError("--invariant " + request + ": " + e.what());
    }
    InvarianceStats stats;
    try {
      run.results.push_back(check_invariance(parameter, values, {known, info, &map}, variants, reveal_options, &stats));
    } catch (const InvarianceError& e) {
      throw UsageError("--invariant " + request + ": " + e.what());
    }
    run.stats.push_back(stats);
  }
  return run;
}

void print_invariance_text(std::ostream& out, const InvarianceRun& run) {
  for (std::size_t k = 0; k < run.results.size(); ++k) {
    const InvarianceResult& r = run.results[k];
    const InvarianceStats& s = run.stats[k];
    const std::string summary = r.summary();
    out << "invariance:    " << summary.substr(0, summary.find(')') + 1) << "; " << s.proofs << " proofs (" << s.proofs_failed << " failed), " << s.reveals << " reveals, " << s.probes
        << " probes in " << s.target_calls << " target calls, " << std::fixed << std::setprecision(6) << s.seconds << " s\n";
    if (!r.counterexample) continue;
    out << "  " << r.explanation() << "\n";
    std::istringstream lines(r.difference_text());
    for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
  }
}

// docs/json.md, "reveal": the tree, or the diagnostic of a target that misbehaves.
Json reveal_to_json(const Backend& backend, const OpenedTarget& opened, const TargetInfo& info,
                    const RevealOptions& options, const RevealResult* result,
                    const Diagnostic* diagnostic, const std::vector<Fingerprint>& fingerprints = {},
                    const std::optional<AlignmentResult>& alignment = std::nullopt,
                    const AlignmentStats* alignment_stats = nullptr,
                    const FingerprintStats* fingerprint_stats = nullptr,
                    const InvarianceRun* invariance = nullptr) {
  Json document = json_document("reveal");
  document["backend"] = std::string(backend.name());
  document["settings"] = params_to_json(opened.settings);
  document["case"] = params_to_json(opened.case_params);
  document["target"] = info.description;
  document["identity"] = identity_to_json(opened.instance->identity());
  document["algorithm"] = std::string(to_string(options.algorithm));
  document["seed"] = options.seed;
  document["mask_scheme"] = result ? Json(result->scheme.describe()) : Json(nullptr);
  // One tree for every output: "tree"; several: "tree" is null and "classes" has them.
  document["tree"] = result && result->map.single_class() ? tree_to_json(result->tree) : Json(nullptr);
  document["grid"] = Json::object({{"rows", info.grid.rows}, {"columns", info.grid.columns}});
  document["classes"] = result ? order_classes_to_json(result->map) : Json(nullptr);
  document["stats"] = result ? stats_to_json(result->stats, info.jobs_started) : Json(nullptr);
  document["diagnostic"] = diagnostic ? diagnostic_to_json(*diagnostic) : Json(nullptr);
  // One fingerprint per class of the map; "fingerprint" is class 0's (the only one of a single tree).
  document["fingerprint"] = fingerprints.empty() ? Json(nullptr) : fingerprint_to_json(fingerprints.front());
  Json per_class = Json::array();
  for (const Fingerprint& f : fingerprints) per_class.push_back(fingerprint_to_json(f));
  document["fingerprints"] = std::move(per_class);
  document["alignment"] = alignment_to_json(alignment);
  document["alignment_stats"] = alignment && alignment_stats ? alignment_stats_to_json(*alignment_stats) : Json(nullptr);
  document["fingerprint_stats"] = fingerprint_stats ? fingerprint_stats_to_json(*fingerprint_stats) : Json(nullptr);
  document["target_calls"] =
      result ? target_calls_to_json(count_target_calls(
                   result->stats, alignment ? alignment_stats : nullptr, fingerprint_stats, 0,
                   invariance ? std::span<const InvarianceStats>(invariance->stats) : std::span<const InvarianceStats>()))
             : Json(nullptr);
  // Invariance verdicts, one per --invariant (empty without): docs/invariance.md.
  document["invariance"] = invariance_to_json(invariance ? invariance->results : std::vector<InvarianceResult>{});
  Json invariance_stats = Json::array();
  if (invariance)
    for (const InvarianceStats& s : invariance->stats) invariance_stats.push_back(invariance_stats_to_json(s));
  document["invariance_stats"] = std::move(invariance_stats);
  return document;
}

// A backend module that cannot be loaded (or whose registration failed) is a configuration
// error, exit 2, as the same module named in a suite is; main's handler would otherwise take the
// loader's exception for an internal error (exit 3).
template <class Step>
auto with_module_errors_as_config(const std::string& backend, Step&& step) {
  try {
    return step();
  } catch (const BackendModuleError& e) {
    throw ConfigError("", "backend '" + backend + "': " + e.what());
  }
}

}  // namespace

int run_reveal(const RevealCommandOptions& options) {
  // Every rank of an MPI job gets here; all but rank 0 serve workers until rank 0 is done.
  const auto distributed = start_distributed_mode(options.engine);
  if (distributed && distributed->serving_rank()) return distributed->exit_status();
  if (options.backend.empty())
    throw UsageError("reveal needs --backend NAME; backends: " + builtin_backends().names());
  const Backend* backend = builtin_backends().find(options.backend);
  if (backend == nullptr)
    throw UsageError(builtin_backends().unknown_backend_message(options.backend));
  const std::string format = options.format.value_or(options.json ? "json" : "sexpr");
  const BackendArguments arguments = with_module_errors_as_config(
      options.backend, [&] { return parse_backend_arguments(*backend, options.backend_arguments); });
  RevealOptions reveal_options;
  apply_engine_options(options.engine, reveal_options);
  if (arguments.engine_seed && !options.engine.seed) reveal_options.seed = *arguments.engine_seed;

  // BackendUnavailable, TargetError (TargetFault: the worker crashed, exited or hung) and
  // RevealFailure end in main's handler (exit status 1). --max-seconds is a hard limit.
  const CaseDeadline deadline(options.engine.max_seconds);
  const OpenedTarget opened =
      with_module_errors_as_config(options.backend, [&] { return open_target(*backend, arguments); });
  std::unique_ptr<Target> target = opened.instance->make_target(opened.case_params);
  const TargetInfo info = target->info();
  use_probe_streams(reveal_options, requested_streams(options.engine), *opened.instance, opened.case_params);
  apply_distributed_options(reveal_options);
  try {
    const std::vector<RankWork> work_before = rank_work();
    RevealResult result = reveal(*target, reveal_options);
    record_rank_work(result.stats, work_before);
    // Where the data lies (fprev/alignment.hpp): the order at every offset, by proofs of this one.
    std::optional<AlignmentResult> alignment;
    AlignmentStats alignment_stats;
    if (!options.engine.no_alignment_check)
      alignment = check_alignment(*target, result.map, reveal_options, &alignment_stats);
    const bool dependent = alignment && alignment->verdict == AlignmentVerdict::dependent;
    FingerprintStats fingerprint_stats;
    std::vector<Fingerprint> fingerprints;
    if (format == "json" || format == "text")
      fingerprints = measure_map_fingerprints(*target, result.map, &fingerprint_stats, &result.stats);
    // The target is let go before the invariance check, so that the variants of a case parameter
    // (m) are served by its worker (one library import or job launch for all of them).
    target.reset();
    // Invariance contracts (fprev/invariance.hpp): the order at every other value, by proofs of this one.
    const InvarianceRun invariance =
        check_requested_invariance(options, *backend, opened, info, result.map, reveal_options);
    if (format == "json") {
      write_json(std::cout, reveal_to_json(*backend, opened, info, reveal_options, &result, nullptr, fingerprints,
                                           alignment, &alignment_stats, &fingerprint_stats, &invariance));
    } else if (format == "text") {
      print_text(std::cout, info, result);
      if (alignment) print_alignment_text(std::cout, *alignment, alignment_stats);
      print_invariance_text(std::cout, invariance);
      for (std::size_t k = 0; k < fingerprints.size(); ++k) {
        if (fingerprints.size() > 1) std::cout << "class " << k << " ";
        print_fingerprint(std::cout, fingerprints[k], fingerprint_stats);
      }
      std::cout << "calls in all:  "
                << describe_target_calls(count_target_calls(result.stats, alignment ? &alignment_stats : nullptr,
                                                            &fingerprint_stats, 0, invariance.stats))
                << "\n";
    } else if (dependent) {  // one line per offset class (and class of its map)
      print_offset_classes(std::cout, *alignment);
    } else if (result.map.single_class()) {
      std::cout << to_sexpr(result.tree) << "\n";
    } else {  // one line per class: its regions, then its tree
      for (const OrderClass& c : result.map.classes) {
        for (const Region& r : c.regions) std::cout << format_region(r, result.map.grid) << "; ";
        std::cout << to_sexpr(c.tree) << "\n";
      }
    }
    if (format == "sexpr")  // the verdicts after the order, one a line
      for (const InvarianceResult& r : invariance.results) std::cout << r.summary() << "\n";
    return kExitOk;
  } catch (const RevealFailure& e) {
    if (format == "json")
      write_json(std::cout, reveal_to_json(*backend, opened, info, reveal_options, nullptr, &e.diagnostic()));
    throw;  // main's handler prints the diagnostic (exit status 1)
  }
}

}  // namespace fprev::cli
