#include "fprev/runner.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <set>

#include "fprev/alignment.hpp"
#include "fprev/confirm.hpp"
#include "fprev/distributed.hpp"
#include "fprev/probe_streams.hpp"
#include "fprev/worker.hpp"
#include "fprev/source_position.hpp"
#include "gate/alignment_case.hpp"
#include "gate/case_failure.hpp"
#include "gate/invariance_case.hpp"
#include "golden/golden_layout.hpp"
#include "text/text_checks.hpp"

namespace fprev {

std::string_view to_string(CaseStatus status) {
  switch (status) {
    case CaseStatus::passed: return "passed";
    case CaseStatus::differs: return "differs";
    case CaseStatus::misbehaves: return "misbehaves";
    case CaseStatus::missing_golden: return "missing golden";
    case CaseStatus::unavailable: return "unavailable";
    case CaseStatus::broken_golden: return "broken golden";
    case CaseStatus::over_budget: return "over budget";
    case CaseStatus::created: return "created";
    case CaseStatus::changed: return "changed";
    case CaseStatus::unchanged: return "unchanged";
    case CaseStatus::repaired: return "repaired";
    case CaseStatus::unwritable: return "unwritable";
  }
  return "?";
}

// Strict mode turns every skip into a failure: a missing golden, a backend that cannot run here
// (a CI job that must test something selects only what its runner can run), and a case over its
// time budget. Under CI a missing golden fails too. A case over its budget whose golden was read
// (a check with a baseline on this platform) fails in every mode: nothing was compared.
bool is_failure(const CaseResult& r, SkipPolicy policy) {
  switch (r.status) {
    case CaseStatus::differs:
    case CaseStatus::misbehaves:
    case CaseStatus::broken_golden:
    case CaseStatus::unwritable: return true;
    case CaseStatus::missing_golden: return policy.strict || policy.ci;
    case CaseStatus::unavailable: return policy.strict;
    case CaseStatus::over_budget: return policy.strict || r.golden.has_value();
    case CaseStatus::passed: return policy.strict && passed_without_fingerprint(r);
    default: return false;
  }
}

bool passed_without_fingerprint(const CaseResult& r) {
  return r.status == CaseStatus::passed && r.golden && !r.golden->is_finding() && r.golden->fingerprints.empty();
}

bool is_skip(const CaseResult& r, SkipPolicy policy) {
  return (r.status == CaseStatus::unavailable || r.status == CaseStatus::missing_golden ||
          r.status == CaseStatus::over_budget) &&
         !is_failure(r, policy);
}

struct Runner::OpenInstance {
  std::unique_ptr<BackendInstance> instance;
  const Backend* backend = nullptr;
  Params settings;  // resolved: what a variant of a case starts from (fprev/invariance.hpp)
  Identity identity;
  std::string unavailable;  // reason, when it cannot run here
  bool config_error = false;
  bool unusable = false;  // what the settings name does not work: an error, never a skip
  bool fault = false;     // its worker crashed, exited or hung while opening it: a failure
  // Instances its cases' invariance variants opened with other settings (a thread count), by those
  // settings: kept for the next case of the run, as the instance itself is.
  std::map<Params, std::shared_ptr<BackendInstance>> variants;
};

namespace {

using detail::fail_case;
using detail::fail_case_on_configuration;

// Whether fingerprints measured now agree with the golden's, class by class (a golden without
// fingerprints has nothing to disagree with).
bool fingerprints_agree(const Golden& golden, const std::vector<Fingerprint>& now) {
  if (golden.fingerprints.empty()) return true;
  return golden.fingerprints == now;
}

// A target whose probes no longer give a tree may still add in the golden's order with another
// arithmetic (rounding toward zero breaks the masks of the all-one construction): the fingerprint
// measured with the golden's tree then says what changed.
void explain_with_golden_tree(Target& target, CaseResult& result) {
  if (!result.golden || !result.golden->is_single_tree() || !result.golden->fingerprint() ||
      result.golden->tree().leaf_count() != target.info().n)
    return;
  try {
    Fingerprint now = measure_fingerprint(target, result.golden->tree(), &result.fingerprint_stats);
    result.fingerprint_change =
        compare_fingerprints(*result.golden->fingerprint(), now, result.revealed_output);
    // The golden's tree with the arithmetic measured now: what the change costs numerically.
    result.impact = result_impact(*result.golden, Golden::of_tree(result.golden->meta, result.golden->tree(), now),
                                  target.info().traits);
    result.fingerprints = {std::move(now)};
  } catch (const TargetError&) {
    result.fingerprints.clear();  // the diagnostic stands alone
  }
}

// The golden's proof probes refuted it, yet the reveal that followed found its order: the target
// answered differently from one call to another, and neither verdict can be trusted.
[[noreturn]] void fail_inconsistent(const Diagnostic& refuted) {
  Diagnostic d;
  d.finding = Finding::batch_inconsistent;
  d.message = "the golden's proof probes disagreed with it (" + refuted.message +
              "), but the reveal that followed found the golden's order again";
  d.probe = refuted.probe;
  d.raw_output = refuted.raw_output;
  d.likely_cause =
      "the target answers the same probes differently from call to call: an order that depends on "
      "how probes are grouped into calls, or that changes over time";
  throw RevealFailure(std::move(d));
}

// The numerical impact of a changed order or arithmetic (fprev/impact.hpp), in the case's own
// formats. Computed only for a case that changed, so a passing check costs nothing more.
void add_impact(CaseResult& result) {
  if (!result.golden || result.golden->is_finding()) return;
  const std::optional<Golden> now = golden_of(result, "-");
  if (now) result.impact = result_impact(*result.golden, *now, result.traits);
}

// Compares fingerprints class by class (the classes correspond: the orders are the same); keeps the
// first that changed, or the only one.
void compare_class_fingerprints(const Golden& golden, CaseResult& result) {
  if (golden.fingerprints.size() != result.fingerprints.size()) return;
  for (std::size_t k = 0; k < golden.fingerprints.size(); ++k) {
    FingerprintComparison change =
        compare_fingerprints(golden.fingerprints[k], result.fingerprints[k], result.revealed_output);
    const bool changed = !change.same();
    if (k == 0 || changed) {
      result.fingerprint_change = std::move(change);
      result.fingerprint_class = k;
    }
    if (changed) return;
  }
}

// What a library says about itself can be any length: shortened with a marker, never written
// beyond what the reader accepts.
std::string bounded_metadata(const std::string& value) {
  return detail::shorten_message(value, kMaxGoldenMetadataBytes);
}

// The library fields of a golden recorded for `identity` (as golden_of writes them): what an
// overlay's identity is compared with.
GoldenMetadata identity_metadata(const Identity& identity) {
  GoldenMetadata meta;
  meta.library = bounded_metadata(identity.library);
  meta.library_version = bounded_metadata(identity.version);
  meta.library_configuration = bounded_metadata(identity.configuration);
  return meta;
}

// "" when a golden's header names the case and platform of the path it is at; otherwise why not.
// A golden edited to name another case, or copied over another case's golden, must not pass (check)
// nor be deleted as obsolete.
std::string header_mismatch(const GoldenMetadata& meta, std::string_view suite, std::string_view backend,
                            std::string_view case_id, std::string_view platform_key) {
  if (meta.suite == suite && meta.backend == backend && meta.case_id == case_id && meta.platform_key == platform_key)
    return "";
  return "its metadata names another case (suite " + quoted_excerpt(meta.suite) + ", backend " +
         quoted_excerpt(meta.backend) + ", case " + quoted_excerpt(meta.case_id) + ", platform " +
         quoted_excerpt(meta.platform_key) + ") than its path";
}

// The platform keys under which `golden_root` holds a golden of this case.
std::vector<std::string> platforms_with_golden(const std::filesystem::path& root, const CaseResult& result) {
  std::vector<std::string> keys;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(root, error)) {
    const std::string key = entry.path().filename().string();
    if (key == result.platform_key || !is_safe_component(key)) continue;
    if (std::filesystem::exists(golden_path(root, result.suite, result.backend, key, result.case_id), error))
      keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace

Runner::Runner(const BackendRegistry& registry, RunnerOptions options)
    : registry_(registry), options_(std::move(options)) {}

Runner::~Runner() = default;

namespace {

// An instance's settings as it is opened: the suite's, environment overrides applied, resolved
// against what the backend takes (ConfigError naming the instance).
Params resolved_settings(const Backend& backend, const BackendInstanceSpec& spec) {
  return resolve_params(backend.instance_params(), apply_environment_overrides(backend, spec.settings),
                        "backend instance " + spec.name);
}

void append_sized(std::string& key, std::string_view text) {
  key += std::to_string(text.size());
  key += ':';
  key += text;
}

}  // namespace

std::string instance_key(const BackendRegistry& registry, const Suite& suite, const std::string& instance_name) {
  const BackendInstanceSpec* spec = suite.find_backend(instance_name);
  const Backend* backend = spec != nullptr ? registry.find(spec->use) : nullptr;
  if (backend != nullptr) {
    try {
      const Params settings = resolved_settings(*backend, *spec);
      // Every part prefixed by its length: no value (a multi-line YAML scalar included) can make
      // two different settings read as one.
      std::string key = "settings ";
      append_sized(key, backend->name());
      for (const auto& [name, value] : settings) {
        append_sized(key, name);
        append_sized(key, value);
      }
      return key;
    } catch (const ConfigError&) {
      // reported when the case opens it, under its own name
    }
  }
  return "unresolved " + suite.name + "/" + instance_name;
}

std::size_t instance_threads(const BackendRegistry& registry, const Suite& suite, const std::string& instance_name) {
  const BackendInstanceSpec* spec = suite.find_backend(instance_name);
  const Backend* backend = spec != nullptr ? registry.find(spec->use) : nullptr;
  if (backend == nullptr) return 1;
  try {
    const Params settings = resolved_settings(*backend, *spec);
    const auto threads = settings.find("threads");
    if (threads == settings.end()) return 1;
    return std::max<std::size_t>(1, static_cast<std::size_t>(std::stoull(threads->second)));
  } catch (const std::exception&) {  // reported when the case opens it
    return 1;
  }
}

namespace {

std::size_t thread_count(const std::string& text) {
  try {
    return std::max<std::size_t>(1, static_cast<std::size_t>(std::stoull(text)));
  } catch (const std::exception&) {  // reported when the case runs
    return 1;
  }
}

}  // namespace

std::size_t case_own_threads(const BackendRegistry& registry, const Suite& suite, const SuiteCase& c) {
  std::size_t threads = instance_threads(registry, suite, c.backend_instance);
  if (const auto own = c.params.find("threads"); own != c.params.end())
    threads = std::max(threads, thread_count(own->second));
  return threads;
}

std::size_t case_threads(const BackendRegistry& registry, const Suite& suite, const SuiteCase& c) {
  std::size_t threads = case_own_threads(registry, suite, c);
  for (const InvarianceRequest& contract : c.invariant)
    if (contract.parameter == "threads")
      for (const std::string& value : contract.values) threads = std::max(threads, thread_count(value));
  return threads;
}

Runner::OpenInstance& Runner::open(const Suite& suite, const std::string& instance_name) {
  // Runner::open is asked once per stage of every case: the key is worked out once per name.
  const std::string name = suite.name + "/" + instance_name;
  if (const auto known = by_name_.find(name); known != by_name_.end()) return *known->second;
  const std::string key = instance_key(registry_, suite, instance_name);
  if (const auto it = instances_.find(key); it != instances_.end()) return *(by_name_[name] = it->second.get());
  auto opened = std::make_unique<OpenInstance>();
  const BackendInstanceSpec* spec = suite.find_backend(instance_name);
  const Backend* backend = spec != nullptr ? registry_.find(spec->use) : nullptr;
  if (backend == nullptr) {
    opened->unavailable = "backend instance '" + instance_name + "' is not defined";
    opened->config_error = true;
  } else {
    try {
      const Params settings = resolved_settings(*backend, *spec);
      opened->instance = backend->open(settings);
      opened->identity = opened->instance->identity();
      opened->backend = backend;
      opened->settings = settings;
    } catch (const BackendUnavailable& e) {
      opened->unavailable = e.what();
      opened->unusable = e.reason() == Unavailability::unusable;
    } catch (const ConfigError& e) {
      opened->unavailable = e.what();
      opened->config_error = true;
    } catch (const TargetFault& e) {  // the library crashed, exited or hung while it was loaded
      opened->unavailable = e.what();
      opened->fault = true;
    }
  }
  OpenInstance& made = *instances_.emplace(key, std::move(opened)).first->second;
  return *(by_name_[name] = &made);
}

namespace {
constexpr std::size_t kCallsWorthEstimating = 1000;
// The most work (calls x outputs x leaves) check spends on proving every element's tree in full
// after a fingerprint disagreed: sgemm 512^3 (511 calls of one class, a few seconds) and a GEMV
// of any usual size fit; sgemm 1024^3's 1023 calls (about 2^40) do not, and say so.
constexpr std::uint64_t kElementProofSummands = std::uint64_t{1} << 39;

// Whether the golden at `path` (the one update replaces) records the orders of `map` with other
// fingerprints than `now`; false when there is none or it is unreadable (update reports that).
bool replaced_golden_disagrees(const std::filesystem::path& path, const OrderMap& map,
                               const std::vector<Fingerprint>& now) {
  try {
    if (path.empty() || !std::filesystem::exists(path)) return false;
    const std::size_t leaves = map.classes.empty() ? 0 : map.classes.front().tree.leaf_count();
    const Golden old = read_golden(path, leaves);
    if (old.is_finding()) return false;
    const OrderMap old_map = old.is_single_tree() ? OrderMap::uniform(map.grid, old.tree()) : old.map;
    return old_map.grid == map.grid && same_orders(old_map, map) && !fingerprints_agree(old, now);
  } catch (const std::exception&) {
    return false;
  }
}
}  // namespace

double Runner::budget_of(const SuiteCase& c) const {
  const double global = options_.max_seconds;
  if (!c.max_seconds) return global;
  return global > 0.0 ? std::min(global, *c.max_seconds) : *c.max_seconds;
}

// The cost estimate, before any probe: a case that cannot finish within the cap (or its budget) even
// at the model's fewest probes is refused with the estimate, instead of running for hours.
bool Runner::within_estimate(Target& target, const RevealOptions& options,
                             std::optional<std::size_t> confirm_probes, CaseResult& result) {
  if (options_.max_estimated_seconds <= 0.0 && options.max_seconds <= 0.0) return true;
  // A reveal of a thousand calls or fewer is not worth calibrating (an MPI call launches ranks).
  const TargetInfo& info = target.info();
  const std::size_t per_call = info.is_grid() ? info.grid.rows : std::max<std::size_t>(1, info.max_batch);
  // The alignment check's placement proofs follow the reveal with this target: they count too.
  CostEstimate placements;
  if (options_.check_alignment) add_placement_proofs(placements, info);
  if (model_probe_count(info.n, options.algorithm).high / per_call * (1 + placements.placements) <=
      kCallsWorthEstimating)
    return true;
  result.estimate = estimate_cost(target, options);
  // An unchanged golden costs its proof, not a reveal (a reveal follows only when it fails).
  if (confirm_probes) result.estimate->set_probes({*confirm_probes, *confirm_probes, *confirm_probes});
  if (options_.check_alignment) add_placement_proofs(*result.estimate, info);
  const CostEstimate& e = *result.estimate;
  const auto refuse = [&](const std::string& limit) {
    result.status = CaseStatus::over_budget;
    result.message = "refused before running: estimated " +
                     std::string(confirm_probes ? "(confirming the golden) " : "") + e.describe() +
                     ", which exceeds " + limit +
                     "; reduce the size, or raise the limit if the time is acceptable";
    return false;
  };
  if (options_.max_estimated_seconds > 0.0 && e.total_seconds_low() > options_.max_estimated_seconds)
    return refuse("the cap of " + format_duration(options_.max_estimated_seconds) + " (--max-estimate)");
  // The budget holds for the reveal and for the alignment check each (docs/alignment.md).
  if (options.max_seconds > 0.0 && (e.seconds_low > options.max_seconds - options.spent_seconds ||
                                    e.placement_seconds > options.max_seconds))
    return refuse("the case's time budget of " + format_duration(options.max_seconds) +
                  " (max_seconds, --max-seconds)");
  return true;
}

bool Runner::locate_golden(const Suite& suite, const SuiteCase& c, CaseResult& result) {
  result.suite = suite.name;
  result.backend = c.backend_instance;
  result.case_id = c.id;
  result.call_sites = c.call_sites;
  OpenInstance& instance = open(suite, c.backend_instance);
  if (!instance.instance) return false;
  result.identity = instance.identity;
  const std::string case_key = instance.instance->case_platform_key(c.params);
  if (!case_key.empty()) result.identity.platform_key = case_key;
  result.platform_key = result.identity.platform_key;
  result.golden_path = golden_path(options_.golden_root, suite.name, c.backend_instance,
                                   result.platform_key, c.id);
  if (options_.use_overlays) {
    const std::string key = library_golden_key(identity_metadata(result.identity));
    std::filesystem::path overlay =
        golden_path(options_.golden_root, suite.name, c.backend_instance, result.platform_key, c.id, key);
    std::error_code error;
    if (std::filesystem::exists(overlay, error)) {
      result.golden_path = std::move(overlay);
      result.library_key = key;
    }
  }
  return true;
}

bool Runner::check_case_alignment(const Suite& suite, const SuiteCase& c, CaseResult& result) {
  OpenInstance& instance = open(suite, c.backend_instance);
  if (!options_.check_alignment || !instance.instance || !result.revealed) return true;
  try {
    const std::unique_ptr<Target> target = instance.instance->make_target(c.params);
    result.jobs_started += target->info().jobs_started;
    RevealOptions options = options_.reveal;
    use_probe_streams(options, options_.streams, *instance.instance, c.params);
    options.max_seconds = budget_of(c);
    return detail::alignment_of_case(*target, options, result);
  } catch (const TargetError& e) {
    fail_case(result, Finding::target_error, std::string("alignment check: ") + e.what());
  }
  return false;
}

bool Runner::check_case_invariance(const Suite& suite, const SuiteCase& c, CaseResult& result) {
  OpenInstance& instance = open(suite, c.backend_instance);
  if (c.invariant.empty() || !instance.instance || !result.revealed) return true;
  try {
    // The case's own target only describes the case here (its order is known): let go before the
    // variants are made, so that those of a case parameter (m) are served by its worker.
    std::unique_ptr<Target> target = instance.instance->make_target(c.params);
    result.jobs_started += target->info().jobs_started;
    const TargetInfo known_info = target->info();
    target.reset();
    RevealOptions options = options_.reveal;
    use_probe_streams(options, options_.streams, *instance.instance, c.params);
    options.max_seconds = budget_of(c);
    const Backend& backend = *instance.backend;
    const InstanceOpener open_variant = [&instance, &backend](const Params& resolved) {
      std::shared_ptr<BackendInstance>& kept = instance.variants[resolved];
      if (!kept) kept = backend.open(resolved);
      return kept;
    };
    return detail::invariance_of_case(backend, *instance.instance, instance.settings, c, known_info, options, result,
                                      open_variant, options_.claim_cores);
  } catch (const TargetError& e) {
    fail_case(result, Finding::target_error, std::string("invariance check: ") + e.what());
  }
  return false;
}

bool Runner::read_case_golden(CaseResult& result, std::size_t leaves) {
  try {
    result.golden = read_golden(result.golden_path, result.golden_digest, leaves);
    const std::string mismatch =
        header_mismatch(result.golden->meta, result.suite, result.backend, result.case_id, result.platform_key);
    if (!mismatch.empty())
      throw GoldenParseError(result.golden_path.string(), 1,
                             "this file belongs to another case: " + mismatch +
                                 " (copied over this case's golden, or edited?)");
    // An overlay stands in for the default golden only for the library it records: one whose
    // folder names this library but whose header records another must never pass.
    const GoldenMetadata running = identity_metadata(result.identity);
    if (!result.library_key.empty() && !same_library_identity(result.golden->meta, running))
      throw GoldenParseError(result.golden_path.string(), 1,
                             "this overlay records the library " + golden_identity(result.golden->meta) +
                                 ", its folder is the running library's, " + golden_identity(running) +
                                 " (edited, or copied from another folder?)");
    return true;
  } catch (const std::exception& e) {  // GoldenParseError, GoldenIoError
    result.golden.reset();
    result.status = CaseStatus::broken_golden;
    result.message = e.what();
    return false;
  }
}

Runner::Outcome Runner::reveal_case(const Suite& suite, const SuiteCase& c, CaseResult& result,
                                    bool confirm_golden) {
  if (!locate_golden(suite, c, result)) {
    const OpenInstance& instance = open(suite, c.backend_instance);
    if (instance.config_error) {
      fail_case_on_configuration(result, instance.unavailable);
    } else if (instance.fault) {
      fail_case(result, Finding::target_fault, instance.unavailable);
    } else if (instance.unusable) {
      fail_case(result, Finding::target_error, instance.unavailable);
    } else {
      result.status = CaseStatus::unavailable;
      result.message = instance.unavailable;
    }
    return Outcome::failed;
  }
  OpenInstance& instance = open(suite, c.backend_instance);
  // The case's budget is a hard limit: a worker still inside a call when it runs out is killed
  // (fprev/worker.hpp), where the engine itself can only stop between calls.
  const double budget = budget_of(c);
  const CaseDeadline deadline(budget);
  const auto case_start = std::chrono::steady_clock::now();
  std::unique_ptr<Target> target;
  try {
    instance.instance->validate_case(c.params);
    target = instance.instance->make_target(c.params);
    result.jobs_started += target->info().jobs_started;
    result.target_description = target->info().description;
    result.revealed_output = target->info().traits.output;
    result.traits = target->info().traits;
    if (confirm_golden && result.golden_digest != kNoGoldenDigest && !read_case_golden(result, target->info().n))
      return Outcome::failed;
    RevealOptions reveal_options = options_.reveal;
    use_probe_streams(reveal_options, options_.streams, *instance.instance, c.params);
    reveal_options.max_seconds = budget;
    result.budget_seconds = budget;
    // What making the target and reading the golden took counts against the budget.
    reveal_options.spent_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - case_start).count();
    if (budget > 0.0 && reveal_options.spent_seconds >= budget)
      throw RevealOverBudget(budget, reveal_options.spent_seconds, 0);  // before its first probe
    // An unchanged golden is confirmed by its proof probes (fprev/confirm.hpp), a fraction of a
    // reveal; only when that fails does the reveal run, to show what the target does instead.
    // (--algorithm basic or naive asks for that algorithm to run: no shortcut then.)
    // Beyond the exact counting range a single tree has a proof of its own where it pays
    // (confirm_probe_count); a map there is revealed.
    const bool single_tree = result.golden && result.golden->is_single_tree() && !target->info().is_grid();
    const std::optional<std::size_t> tree_proof_probes =
        single_tree ? confirm_probe_count(target->info(), result.golden->tree()) : std::nullopt;
    const bool confirming = confirm_golden && options_.reveal.algorithm == Algorithm::fprev && result.golden &&
                            !result.golden->is_finding() &&
                            (confirmable(target->info()) || tree_proof_probes.has_value());
    std::optional<std::size_t> proof_probes;
    if (confirming && single_tree) proof_probes = tree_proof_probes;
    // Refused before any probe when the work (the proof of the golden, or a reveal's fewest
    // probes) would not fit the cap or the budget.
    // Calls outside the reveal's stats (the estimate's timing calls, a confirmation that failed)
    // are counted by a PlacedTarget at offset 0, where every batch lies anyway.
    const auto other_calls = std::make_shared<PlacedCounts>();
    PlacedTarget estimated(*target, 0, 0, other_calls);
    const bool within = within_estimate(estimated, reveal_options, proof_probes, result);
    result.other_target_calls = other_calls->calls.load();
    if (!within) return Outcome::failed;
    // Distributed mode: the probes each rank measures from here on (the estimate's timing calls
    // above are not the reveal's probes).
    const std::vector<RankWork> work_before = rank_work();
    std::size_t confirm_probes = 0;
    std::optional<OrderMap> known;
    std::optional<Diagnostic> refuted;
    std::optional<std::vector<Fingerprint>> differing_fingerprints;  // measured under the confirmed map
    if (confirming) {
      known = result.golden->is_single_tree() ? OrderMap::uniform(target->info().grid, result.golden->tree())
                                              : result.golden->map;
      // Counted on every stream: a failed confirm() leaves no stats behind.
      const auto counts = std::make_shared<PlacedCounts>();
      PlacedTarget counted(*target, 0, 0, counts);
      RevealOptions confirm_options = reveal_options;
      if (reveal_options.make_worker)
        confirm_options.make_worker = [make = reveal_options.make_worker, counts] {
          return std::make_unique<PlacedTarget>(make(), 0, 0, counts);
        };
      try {
        result.stats = confirm(counted, *known, confirm_options);
        result.stats.confirm_probes = counts->probes.load();
        record_rank_work(result.stats, work_before);
        result.fingerprints =
            measure_map_fingerprints(*target, *known, &result.fingerprint_stats, &result.stats);
        // A fingerprint that differs from the golden's under the confirmed map: another arithmetic,
        // or an order that changed at elements the confirmation does not reach for certain (a
        // grid's few scattered elements, a GEMV's band: docs/limits.md). The reveal below tells
        // which, so that the report names an order change as one, and update records the map it
        // finds rather than keeping the golden's map with a new fingerprint.
        if (target->info().is_grid() && !fingerprints_agree(*result.golden, result.fingerprints)) {
          confirm_probes = counts->probes.load();
          result.other_target_calls += counts->calls.load();
          differing_fingerprints = std::move(result.fingerprints);
        } else {
          result.revealed = *known;
          return Outcome::revealed;
        }
      } catch (const RevealFailure& e) {
        // A target that crashed, exited or hung has no second chance: that is the verdict.
        if (e.diagnostic().finding == Finding::target_fault) throw;
        confirm_probes = counts->probes.load();  // the reveal below tells what changed, or what misbehaves
        result.other_target_calls += counts->calls.load();
        refuted = e.diagnostic();
      }
    }
    // A fingerprint that disagreed under the confirmed map, or a confirmation that failed: the
    // reveal proves every element's tree in full (not by the sampled checks alone) where that is
    // affordable, so that what the report says changed (an order, or the arithmetic under the same
    // trees) stands on proven trees, and update never keeps an element's old tree.
    RevealOptions options_now = reveal_options;
    if (differing_fingerprints || refuted)
      options_now.element_proof_summands = std::max(options_now.element_proof_summands, kElementProofSummands);
    RevealResult revealed = reveal(*target, options_now);
    if (refuted && (known->grid == revealed.map.grid) && same_orders(*known, revealed.map))
      fail_inconsistent(*refuted);
    result.stats = revealed.stats;
    result.stats.confirm_probes = confirm_probes;
    record_rank_work(result.stats, work_before);
    if (differing_fingerprints && known->grid == revealed.map.grid && same_orders(*known, revealed.map)) {
      // The order is the golden's: the fingerprints that differed stand (measured anew, they could
      // read other elements and miss what they saw).
      result.fingerprints = std::move(*differing_fingerprints);
    } else {
      // Calls of fingerprints that are measured anew count as other calls.
      if (differing_fingerprints) result.other_target_calls += result.fingerprint_stats.target_calls;
      result.fingerprints =
          measure_map_fingerprints(*target, revealed.map, &result.fingerprint_stats, &result.stats);
    }
    // update: the same holds for the golden about to be replaced. A fingerprint that disagrees
    // with its under the same map is revealed again with every element proven, so that update
    // records an element whose order changed as a class of its own, not the old tree.
    if (!confirm_golden && target->info().is_grid() && !result.stats.every_element_proven &&
        replaced_golden_disagrees(result.golden_path, revealed.map, result.fingerprints)) {
      result.other_target_calls += result.stats.target_calls + result.fingerprint_stats.target_calls;
      options_now.element_proof_summands = std::max(options_now.element_proof_summands, kElementProofSummands);
      revealed = reveal(*target, options_now);
      result.stats = revealed.stats;
      record_rank_work(result.stats, work_before);
      result.fingerprints =
          measure_map_fingerprints(*target, revealed.map, &result.fingerprint_stats, &result.stats);
    }
    result.revealed = std::move(revealed.map);
    return Outcome::revealed;
  } catch (const RevealOverBudget& e) {
    result.status = CaseStatus::over_budget;
    result.message = std::string(e.what()) +
                     (result.estimate ? "; estimated beforehand: " + result.estimate->describe() : "");
  } catch (const BackendUnavailable& e) {  // e.g. a data type this GPU generation lacks
    result.status = CaseStatus::unavailable;
    result.message = e.what();
  } catch (const RevealFailure& e) {
    result.diagnostic = e.diagnostic();
    if (is_recordable(e.diagnostic().finding)) {
      explain_with_golden_tree(*target, result);
      return Outcome::finding;
    }
    result.status = CaseStatus::misbehaves;
  } catch (const ConfigError& e) {
    fail_case_on_configuration(result, e.what());
  } catch (const TargetFault& e) {  // outside the engine: making the target, a fingerprint
    fail_case(result, Finding::target_fault, e.what());
    result.diagnostic->likely_cause = e.likely_cause();
  } catch (const TargetError& e) {
    fail_case(result, Finding::target_error, e.what());
  }
  return Outcome::failed;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CaseResult Runner::check(const Suite& suite, const SuiteCase& c) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult result;
  // The golden is read before revealing: a broken one is reported as such (never overwritten) and
  // needs no reveal. A missing one still does: a case without a baseline whose target misbehaves
  // fails, and the revealed result is what a reviewer would accept.
  // (reveal_case reads it, bounded by the case's size and within its time budget.)
  bool missing = false;
  if (locate_golden(suite, c, result) && !std::filesystem::exists(result.golden_path)) {
    missing = true;
    result.golden_digest = std::string(kNoGoldenDigest);
  }
  const Outcome outcome = reveal_case(suite, c, result, true);
  if (outcome == Outcome::failed) {
    result.seconds = seconds_since(start);
    return result;
  }
  if (missing) {
    if (outcome == Outcome::revealed) {
      result.status = CaseStatus::missing_golden;
      result.message = "no golden for platform '" + result.platform_key + "'";
      result.other_platforms = platforms_with_golden(options_.golden_root, result);
    } else {
      result.status = CaseStatus::misbehaves;  // nothing recorded it: a failure, not a skip
    }
  } else if (result.golden->is_finding()) {
    const bool persists = outcome == Outcome::finding &&
                          result.diagnostic->finding == result.golden->finding->finding;
    result.status = persists ? CaseStatus::passed : CaseStatus::differs;
  } else if (outcome == Outcome::finding) {
    result.status = CaseStatus::misbehaves;
  } else if (!same_orders(*result.golden, *golden_of(result, options_.tool_version))) {
    result.status = CaseStatus::differs;
  } else {
    // The same order can still give other bits: the fingerprint fails the case too.
    result.status = CaseStatus::passed;
    compare_class_fingerprints(*result.golden, result);
    if (result.fingerprint_change && !result.fingerprint_change->same()) result.status = CaseStatus::differs;
  }
  // Where the data lies (fprev/alignment.hpp): checked unless the golden predates the check (its
  // alignment is "not recorded", and stays unchecked until update records it).
  // A golden whose order at offset 0 changed fails already; its alignment is still checked, so that
  // the pending result to accept holds it.
  const bool recorded = !missing && !result.golden->is_finding() && result.golden->alignment;
  // (--no-alignment-check runs none: result.alignment stays empty and nothing is compared.)
  if (outcome == Outcome::revealed && (missing || recorded) && check_case_alignment(suite, c, result) &&
      recorded && result.alignment && !same_alignment(*result.golden->alignment, *result.alignment)) {
    result.alignment_differs = true;
    if (result.status == CaseStatus::passed) result.status = CaseStatus::differs;
  }
  if (result.status == CaseStatus::differs) add_impact(result);
  // Invariance contracts (fprev/invariance.hpp): checked whenever the case asks for them; a verdict
  // that differs from the golden's (lost, gained, newly asked for, no longer asked for) is a change.
  const bool check_failed = result.status == CaseStatus::misbehaves || result.status == CaseStatus::over_budget;
  if (outcome == Outcome::revealed && !check_failed && check_case_invariance(suite, c, result) &&
      !missing && !result.golden->is_finding()) {
    result.invariance_changes = compare_invariance(result.golden->invariance, result.invariance, &result.invariance_lost);
    if (!result.invariance_changes.empty() && result.status == CaseStatus::passed) result.status = CaseStatus::differs;
  }
  sync_pending(result, result.status != CaseStatus::passed);
  result.seconds = seconds_since(start);
  return result;
}

CaseResult Runner::update(const Suite& suite, const SuiteCase& c) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult result;
  Outcome outcome = reveal_case(suite, c, result);
  if (outcome == Outcome::revealed && !check_case_alignment(suite, c, result)) outcome = Outcome::failed;
  if (outcome == Outcome::revealed && !check_case_invariance(suite, c, result)) outcome = Outcome::failed;
  if (outcome != Outcome::failed) {
    const Golden golden = *golden_of(result, options_.tool_version);
    try {
      // The old golden, bounded by the size of what was revealed (any size for a finding).
      const std::size_t leaves =
          result.revealed && !result.revealed->classes.empty() ? result.revealed->classes.front().tree.leaf_count() : 0;
      if (std::filesystem::exists(result.golden_path)) result.golden = read_golden(result.golden_path, leaves);
    } catch (const std::exception&) {
      // unparsable: store_golden reports it as repaired
    }
    if (outcome == Outcome::revealed && result.golden && !result.golden->is_finding() &&
        same_orders(*result.golden, golden))
      compare_class_fingerprints(*result.golden, result);
    // update --overlay: the result goes to the running library's overlay when it differs from the
    // default golden, which stays as it is; when it equals it, an overlay would repeat it.
    if (options_.write_overlay && result.golden && result.library_key.empty() &&
        !same_result(*result.golden, golden)) {
      result.library_key = library_golden_key(golden.meta);
      result.golden_path = golden_path(options_.golden_root, result.suite, result.backend,
                                       result.platform_key, result.case_id, result.library_key);
      result.golden.reset();
      try {
        if (std::filesystem::exists(result.golden_path)) result.golden = read_golden(result.golden_path);
      } catch (const std::exception&) {
        // unparsable: store_golden reports it as repaired
      }
    } else if (options_.write_overlay && !result.library_key.empty()) {
      const std::filesystem::path default_path =
          golden_path(options_.golden_root, result.suite, result.backend, result.platform_key, result.case_id);
      std::optional<Golden> default_golden;
      try {
        if (std::filesystem::exists(default_path)) default_golden = read_golden(default_path);
      } catch (const std::exception&) {
      }
      if (default_golden && same_result(*default_golden, golden)) {
        std::error_code error;
        std::filesystem::remove(result.golden_path, error);
        detail::remove_empty_directories(result.golden_path.parent_path(), options_.golden_root);
        result.status = error ? CaseStatus::unwritable : CaseStatus::changed;
        result.message = error ? "cannot remove the overlay " + result.golden_path.string() + ": " + error.message()
                               : "overlay removed: the default golden " + default_path.string() +
                                     " holds this result";
        result.golden_path = default_path;
        result.library_key.clear();
        result.seconds = seconds_since(start);
        return result;
      }
    }
    // A golden that cannot be written (a full disk) fails this case; update goes on with the
    // next ones and ends with its summary.
    try {
      switch (store_golden(result.golden_path, golden)) {
        case StoreOutcome::created: result.status = CaseStatus::created; break;
        case StoreOutcome::unchanged: result.status = CaseStatus::unchanged; break;
        case StoreOutcome::changed:
          result.status = CaseStatus::changed;
          add_impact(result);
          break;
        case StoreOutcome::repaired: result.status = CaseStatus::repaired; break;
      }
      sync_pending(result, false);  // the golden holds what check kept for review now
    } catch (const GoldenIoError& e) {
      result.status = CaseStatus::unwritable;
      result.message = e.what();
    }
  }
  result.seconds = seconds_since(start);
  return result;
}

void Runner::sync_pending(CaseResult& result, bool keep) {
  if (!options_.pending) return;
  try {
    if (keep)
      result.pending_path = options_.pending->keep(*golden_of(result, options_.tool_version), result.golden_digest,
                                                   result.library_key);
    else
      options_.pending->discard(result.suite, result.backend, result.platform_key, result.case_id,
                                result.library_key);
  } catch (const std::exception& e) {  // GoldenIoError; the gate's verdict stands without it
    result.pending_error = e.what();
  }
}

std::optional<Golden> golden_of(const CaseResult& result, const std::string& tool_version) {
  const bool finding = !result.revealed && result.diagnostic && is_recordable(result.diagnostic->finding);
  if (!result.revealed && !finding) return std::nullopt;
  Golden golden;
  golden.meta.suite = result.suite;
  golden.meta.case_id = result.case_id;
  golden.meta.backend = result.backend;
  golden.meta.platform_key = result.platform_key;
  const GoldenMetadata identity = identity_metadata(result.identity);
  golden.meta.library = identity.library;
  golden.meta.library_version = identity.library_version;
  golden.meta.library_configuration = identity.library_configuration;
  golden.meta.tool_version = tool_version;
  golden.meta.created = utc_timestamp_now();
  // Paths of this machine (a project's module, a virtualenv under the home folder) as any machine
  // can read them: relative to the project, "~/..." (machine_independent_paths).
  for (const auto& [key, value] : result.identity.details)
    golden.meta.extra[key] = bounded_metadata(machine_independent_paths(value));
  golden.meta.extra["target"] = bounded_metadata(result.target_description);
  if (finding) {
    golden.finding = record_finding(*result.diagnostic);
    return golden;
  }
  if (!result.stats.arithmetic_note.empty()) golden.meta.extra["arithmetic"] = result.stats.arithmetic_note;
  golden.map = *result.revealed;
  golden.fingerprints = result.fingerprints;
  golden.alignment = result.alignment;
  golden.invariance = result.invariance;
  return golden;
}

std::vector<GoldenLocation> obsolete_goldens(const std::filesystem::path& root,
                                             const std::vector<Suite>& suites) {
  std::set<std::string> known, suite_names;
  for (const Suite& suite : suites) suite_names.insert(suite.name);
  for (const Suite& suite : suites)
    for (const SuiteCase& c : suite.cases) known.insert(suite.name + "/" + c.backend_instance + "/" + c.id);
  std::vector<GoldenLocation> obsolete;
  for (const GoldenLocation& g : list_goldens(root).goldens)
    if (suite_names.count(g.suite) != 0 &&
        known.count(g.suite + "/" + g.backend + "/" + g.case_id) == 0)
      obsolete.push_back(g);
  return obsolete;
}

std::string delete_obsolete_golden(const std::filesystem::path& root, const GoldenLocation& golden) {
  Golden read;
  try {
    read = read_golden(golden.path);
  } catch (const std::exception& e) {  // GoldenParseError, GoldenIoError
    return std::string("it does not read as a golden: ") + e.what();
  }
  const std::string mismatch =
      header_mismatch(read.meta, golden.suite, golden.backend, golden.case_id, golden.platform_key);
  if (!mismatch.empty()) return mismatch;
  std::error_code error;
  std::filesystem::remove(golden.path, error);
  if (error) return "cannot delete it: " + error.message();
  detail::remove_empty_directories(golden.path.parent_path(), root);
  return "";
}

bool glob_match(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

}  // namespace fprev
