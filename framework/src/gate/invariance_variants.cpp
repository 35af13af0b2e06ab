// The variants of a backend's case over one parameter (fprev/invariance.hpp): what the CLI's
// `reveal --invariant` and a suite's `invariant:` hand to check_invariance().
#include "fprev/invariance.hpp"

#include <mutex>

namespace fprev {
namespace {

bool declares_param(const std::vector<ParamSpec>& specs, const std::string& name) {
  for (const ParamSpec& s : specs)
    if (s.name == name) return true;
  return false;
}

// A target that keeps the instance it was made by alive (a variant's own instance).
class InstanceTarget final : public Target {
 public:
  InstanceTarget(std::shared_ptr<BackendInstance> instance, std::unique_ptr<Target> target)
      : instance_(std::move(instance)), target_(std::move(target)) {}
  ~InstanceTarget() override { target_.reset(); }  // the target before its instance
  const TargetInfo& info() const override { return target_->info(); }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override { target_->evaluate(batch, outputs); }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override { target_->evaluate(batch, outputs); }
  void evaluate_probe_calls(std::span<const ProbeBatch> calls, std::span<double> outputs, std::size_t& done) override {
    target_->evaluate_probe_calls(calls, outputs, done);
  }
  void evaluate_value_calls(std::span<const ValueBatch> calls, std::span<double> outputs, std::size_t& done) override {
    target_->evaluate_value_calls(calls, outputs, done);
  }

 private:
  std::shared_ptr<BackendInstance> instance_;
  std::unique_ptr<Target> target_;
};

// A target of a library that runs several threads: its first call takes the cores alone (the
// claim), and they are given back when the target is gone. Made before (the library loaded, a worker
// started) and kept until its turn, it holds nothing meanwhile.
class CoreClaimingTarget final : public Target {
 public:
  CoreClaimingTarget(std::unique_ptr<Target> target, CoreClaim claim)
      : target_(std::move(target)), claim_(std::move(claim)) {}
  ~CoreClaimingTarget() override { target_.reset(); }  // its library's threads stop before the cores go back
  const TargetInfo& info() const override { return target_->info(); }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    claim();
    target_->evaluate(batch, outputs);
  }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    claim();
    target_->evaluate(batch, outputs);
  }
  void evaluate_probe_calls(std::span<const ProbeBatch> calls, std::span<double> outputs, std::size_t& done) override {
    claim();
    target_->evaluate_probe_calls(calls, outputs, done);
  }
  void evaluate_value_calls(std::span<const ValueBatch> calls, std::span<double> outputs, std::size_t& done) override {
    claim();
    target_->evaluate_value_calls(calls, outputs, done);
  }

 private:
  void claim() {
    const std::lock_guard lock(mutex_);
    if (claimed_) return;
    token_ = claim_();
    claimed_ = true;
  }

  std::unique_ptr<Target> target_;
  CoreClaim claim_;
  std::mutex mutex_;
  bool claimed_ = false;
  std::shared_ptr<void> token_;  // given back after target_ is gone (the destructor resets it first)
};

// The library threads of the variant `value` of `parameter`, where it is a thread count.
std::size_t variant_threads(const std::string& parameter, const std::string& value) {
  if (parameter != "threads") return 1;
  try {
    return static_cast<std::size_t>(std::stoull(value));
  } catch (const std::exception&) {
    return 1;  // not a number: the backend's own check names it
  }
}

}  // namespace

std::vector<std::string> run_values(std::size_t runs) {
  std::vector<std::string> out;
  for (std::size_t k = 1; k <= runs; ++k) out.push_back(std::to_string(k));
  return out;
}

InvarianceParameterKind invariance_parameter_kind(const Backend& backend, const BackendInstance& instance,
                                                  const std::string& parameter) {
  if (parameter == kRunsParameter) return InvarianceParameterKind::runs;
  const std::vector<ParamSpec> case_specs = instance.case_params();
  if (declares_param(case_specs, parameter)) return InvarianceParameterKind::case_parameter;
  const std::vector<ParamSpec> setting_specs = backend.instance_params();
  if (declares_param(setting_specs, parameter)) return InvarianceParameterKind::setting;
  std::vector<std::string> allowed{std::string(kRunsParameter)};
  for (const ParamSpec& s : case_specs) allowed.push_back(s.name);
  for (const ParamSpec& s : setting_specs) allowed.push_back(s.name);
  throw ConfigError(parameter, "invariance over '" + parameter + "': backend " + std::string(backend.name()) +
                                   " has no such case parameter or setting; allowed values: " + join_values(allowed));
}

std::string invariance_known_value(const Backend& backend, const BackendInstance& instance, const Params& settings,
                                   const Params& case_params, const std::string& parameter) {
  switch (invariance_parameter_kind(backend, instance, parameter)) {
    case InvarianceParameterKind::runs: return "1";
    case InvarianceParameterKind::case_parameter: {
      const auto it = case_params.find(parameter);
      return it == case_params.end() ? std::string() : it->second;
    }
    case InvarianceParameterKind::setting: {
      const auto it = settings.find(parameter);
      return it == settings.end() ? std::string() : it->second;
    }
  }
  return {};
}

std::vector<InvarianceVariant> make_invariance_variants(const Backend& backend, const BackendInstance& instance,
                                                        const Params& settings, const Params& case_params,
                                                        const std::string& parameter,
                                                        const std::vector<std::string>& values,
                                                        const std::string& known_value, InstanceOpener open,
                                                        CoreClaim claim_cores) {
  const InvarianceParameterKind kind = invariance_parameter_kind(backend, instance, parameter);
  // Runs are proven on fresh processes: a new instance for every run, never a kept one.
  if (!open || kind == InvarianceParameterKind::runs)
    open = [&backend](const Params& resolved) { return std::shared_ptr<BackendInstance>(backend.open(resolved)); };
  const std::string context = "backend " + std::string(backend.name()) + ", invariance over " + parameter;
  std::vector<InvarianceVariant> out;
  for (const std::string& value : values) {
    if (value == known_value) continue;
    Params variant_settings = settings;
    Params variant_case = case_params;
    if (kind == InvarianceParameterKind::setting) variant_settings[parameter] = value;
    if (kind == InvarianceParameterKind::case_parameter) variant_case[parameter] = value;
    // Checked now, so that a value no instance takes is a configuration error before anything runs.
    if (kind == InvarianceParameterKind::setting) resolve_params(backend.instance_params(), variant_settings, context);
    if (kind == InvarianceParameterKind::case_parameter) {
      variant_case = resolve_params(instance.case_params(), variant_case, context);
      backend.validate_case(variant_case);
    }
    // A case parameter (a batch size m) changes the call, not the library: the case's own instance
    // makes the variant's target, as one program calls with several m, and its idle workers serve
    // it (a Python library's import, an MPI job's launch, once for all values). A setting changes
    // the library itself (its threads, its kernels): a fresh instance.
    const CoreClaim claim = variant_threads(parameter, value) > 1 ? claim_cores : nullptr;
    const auto claiming = [claim](std::unique_ptr<Target> target) -> std::unique_ptr<Target> {
      if (!claim) return target;
      return std::make_unique<CoreClaimingTarget>(std::move(target), claim);
    };
    if (kind == InvarianceParameterKind::case_parameter) {
      out.push_back({value, [&instance, variant_case, claiming] { return claiming(instance.make_target(variant_case)); },
                     /*shares_case_instance=*/true});
      continue;
    }
    out.push_back({value, [&backend, open, variant_settings, variant_case, context, claiming] {
                     const Params resolved = resolve_params(backend.instance_params(), variant_settings, context);
                     std::shared_ptr<BackendInstance> opened = open(resolved);
                     const Params resolved_case = resolve_params(opened->case_params(), variant_case, context);
                     opened->validate_case(resolved_case);
                     std::unique_ptr<Target> target = opened->make_target(resolved_case);
                     return claiming(std::make_unique<InstanceTarget>(std::move(opened), std::move(target)));
                   }});
  }
  return out;
}

}  // namespace fprev
