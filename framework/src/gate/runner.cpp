#include "fprev/runner.hpp"

#include <fnmatch.h>

#include <chrono>
#include <set>

namespace fprev {

std::string_view to_string(CaseStatus status) {
  switch (status) {
    case CaseStatus::passed: return "passed";
    case CaseStatus::differs: return "differs";
    case CaseStatus::misbehaves: return "misbehaves";
    case CaseStatus::missing_golden: return "missing golden";
    case CaseStatus::unavailable: return "unavailable";
    case CaseStatus::broken_golden: return "broken golden";
    case CaseStatus::created: return "created";
    case CaseStatus::changed: return "changed";
    case CaseStatus::unchanged: return "unchanged";
    case CaseStatus::repaired: return "repaired";
  }
  return "?";
}

bool is_skip(CaseStatus status, bool strict) {
  return status == CaseStatus::unavailable || (status == CaseStatus::missing_golden && !strict);
}

bool is_failure(CaseStatus status, bool strict) {
  return status == CaseStatus::differs || status == CaseStatus::misbehaves ||
         status == CaseStatus::broken_golden ||
         (status == CaseStatus::missing_golden && strict);
}

struct Runner::OpenInstance {
  std::unique_ptr<BackendInstance> instance;
  Identity identity;
  std::string unavailable;  // reason, when it cannot run here
  bool config_error = false;
  bool unusable = false;  // what the settings name does not work: an error, never a skip
};

namespace {

// A case that cannot be revealed for a reason outside the engine's own findings.
void fail_case(CaseResult& result, Finding finding, const std::string& message) {
  result.status = CaseStatus::misbehaves;
  Diagnostic d;
  d.finding = finding;
  d.message = message;
  result.diagnostic = d;
}

// A target whose probes no longer give a tree may still add in the golden's order with another
// arithmetic (rounding toward zero breaks the masks of the all-one construction): the fingerprint
// measured with the golden's tree then says what changed.
void explain_with_golden_tree(Target& target, CaseResult& result) {
  if (!result.golden || !result.golden->fingerprint || result.golden->tree.leaf_count() != target.info().n)
    return;
  try {
    result.fingerprint = measure_fingerprint(target, result.golden->tree, &result.fingerprint_stats);
    result.fingerprint_change =
        compare_fingerprints(*result.golden->fingerprint, *result.fingerprint, result.revealed_output);
  } catch (const TargetError&) {
    result.fingerprint.reset();  // the diagnostic stands alone
  }
}

}  // namespace

Runner::Runner(const BackendRegistry& registry, RunnerOptions options)
    : registry_(registry), options_(std::move(options)) {}

Runner::~Runner() = default;

Runner::OpenInstance& Runner::open(const Suite& suite, const std::string& instance_name) {
  const std::string key = suite.name + "/" + instance_name;
  auto it = instances_.find(key);
  if (it != instances_.end()) return *it->second;
  auto opened = std::make_unique<OpenInstance>();
  const BackendInstanceSpec* spec = suite.find_backend(instance_name);
  const Backend* backend = spec != nullptr ? registry_.find(spec->use) : nullptr;
  if (backend == nullptr) {
    opened->unavailable = "backend instance '" + instance_name + "' is not defined";
    opened->config_error = true;
  } else {
    try {
      const Params settings = resolve_params(backend->instance_params(),
                                             apply_environment_overrides(*backend, spec->settings),
                                             "backend instance " + instance_name);
      opened->instance = backend->open(settings);
      opened->identity = opened->instance->identity();
    } catch (const BackendUnavailable& e) {
      opened->unavailable = e.what();
      opened->unusable = e.reason() == Unavailability::unusable;
    } catch (const ConfigError& e) {
      opened->unavailable = e.what();
      opened->config_error = true;
    }
  }
  return *instances_.emplace(key, std::move(opened)).first->second;
}

bool Runner::reveal_case(const Suite& suite, const SuiteCase& c, CaseResult& result) {
  result.suite = suite.name;
  result.backend = c.backend_instance;
  result.case_id = c.id;
  OpenInstance& instance = open(suite, c.backend_instance);
  if (!instance.instance) {
    if (instance.config_error) {
      fail_case(result, Finding::unsupported, instance.unavailable);
    } else if (instance.unusable) {
      fail_case(result, Finding::target_error, instance.unavailable);
    } else {
      result.status = CaseStatus::unavailable;
      result.message = instance.unavailable;
    }
    return false;
  }
  result.identity = instance.identity;
  result.platform_key = instance.identity.platform_key;
  result.golden_path = golden_path(options_.golden_root, suite.name, c.backend_instance,
                                   result.platform_key, c.id);
  std::unique_ptr<Target> target;
  try {
    instance.instance->validate_case(c.params);
    target = instance.instance->make_target(c.params);
    result.target_description = target->info().description;
    result.revealed_output = target->info().traits.output;
    RevealResult revealed = reveal(*target, options_.reveal);
    result.stats = revealed.stats;
    if (!revealed.map.single_class()) {
      // Goldens hold one tree: a target whose output elements follow several trees cannot be
      // compared or recorded until goldens hold order maps.
      std::string classes;
      for (const std::string& line : describe_map(revealed.map)) classes += "\n  " + line;
      fail_case(result, Finding::unsupported,
                "the output elements follow " + std::to_string(revealed.map.classes.size()) +
                    " different orders (an order map); goldens of order maps are not supported "
                    "yet:" + classes);
      return false;
    }
    result.revealed = std::move(revealed.tree);
    result.fingerprint = measure_fingerprint(*target, *result.revealed, &result.fingerprint_stats);
    return true;
  } catch (const BackendUnavailable& e) {  // e.g. a data type this GPU generation lacks
    result.status = CaseStatus::unavailable;
    result.message = e.what();
  } catch (const RevealFailure& e) {
    result.status = CaseStatus::misbehaves;
    result.diagnostic = e.diagnostic();
    explain_with_golden_tree(*target, result);
  } catch (const ConfigError& e) {
    fail_case(result, Finding::unsupported, e.what());
  } catch (const TargetError& e) {
    fail_case(result, Finding::target_error, e.what());
  }
  return false;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CaseResult Runner::check(const Suite& suite, const SuiteCase& c) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult result;
  // The golden is read before revealing: a missing one needs no reveal (the platform key comes
  // from the opened instance), and a broken one is reported as such, never overwritten.
  OpenInstance& instance = open(suite, c.backend_instance);
  if (instance.instance) {
    result.suite = suite.name;
    result.backend = c.backend_instance;
    result.case_id = c.id;
    result.identity = instance.identity;
    result.platform_key = instance.identity.platform_key;
    result.golden_path = golden_path(options_.golden_root, suite.name, c.backend_instance,
                                     result.platform_key, c.id);
    if (!std::filesystem::exists(result.golden_path)) {
      result.status = CaseStatus::missing_golden;
      result.message = "no golden for platform '" + result.platform_key + "'";
    } else {
      try {
        result.golden = read_golden(result.golden_path);
      } catch (const std::exception& e) {  // GoldenParseError, GoldenIoError
        result.status = CaseStatus::broken_golden;
        result.message = e.what();
      }
    }
    if (!result.golden) {
      result.seconds = seconds_since(start);
      return result;
    }
  }
  if (reveal_case(suite, c, result)) {
    result.status = *result.revealed == result.golden->tree ? CaseStatus::passed : CaseStatus::differs;
    // The same order can still give other bits: the fingerprint fails the case too.
    if (result.status == CaseStatus::passed && result.golden->fingerprint && result.fingerprint) {
      const Format output = result.revealed_output;
      result.fingerprint_change = compare_fingerprints(*result.golden->fingerprint, *result.fingerprint, output);
      if (!result.fingerprint_change->same()) result.status = CaseStatus::differs;
    }
  }
  result.seconds = seconds_since(start);
  return result;
}

CaseResult Runner::update(const Suite& suite, const SuiteCase& c) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult result;
  if (reveal_case(suite, c, result)) {
    Golden golden;
    golden.meta.suite = suite.name;
    golden.meta.case_id = c.id;
    golden.meta.backend = c.backend_instance;
    golden.meta.platform_key = result.platform_key;
    golden.meta.library = result.identity.library;
    golden.meta.library_version = result.identity.version;
    golden.meta.library_configuration = result.identity.configuration;
    golden.meta.tool_version = options_.tool_version;
    golden.meta.created = utc_timestamp_now();
    for (const auto& [key, value] : result.identity.details) golden.meta.extra[key] = value;
    golden.meta.extra["target"] = result.target_description;
    if (!result.stats.arithmetic_note.empty()) golden.meta.extra["arithmetic"] = result.stats.arithmetic_note;
    golden.tree = *result.revealed;
    golden.fingerprint = result.fingerprint;
    try {
      if (std::filesystem::exists(result.golden_path)) result.golden = read_golden(result.golden_path);
    } catch (const std::exception&) {
      // unparsable: store_golden reports it as repaired
    }
    if (result.golden && result.golden->fingerprint && result.fingerprint && result.golden->tree == golden.tree)
      result.fingerprint_change =
          compare_fingerprints(*result.golden->fingerprint, *result.fingerprint, result.revealed_output);
    switch (store_golden(result.golden_path, golden)) {
      case StoreOutcome::created: result.status = CaseStatus::created; break;
      case StoreOutcome::unchanged: result.status = CaseStatus::unchanged; break;
      case StoreOutcome::changed: result.status = CaseStatus::changed; break;
      case StoreOutcome::repaired: result.status = CaseStatus::repaired; break;
    }
  }
  result.seconds = seconds_since(start);
  return result;
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

bool glob_match(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

}  // namespace fprev
