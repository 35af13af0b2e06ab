// Test module "modtest": a backend whose target adds its summands left to right in float32, loaded
// by the tests through the module search path. Its instance setting `mode` makes open() throw the
// framework's exceptions from inside the module, and its target's description carries a Background
// id taken inside the module, so the tests can tell whether module and program share one framework.
#include <memory>
#include <string>

#include "fprev/backend_module.hpp"
#include "fprev/target.hpp"

namespace {

class SequentialTarget final : public fprev::Target {
 public:
  explicit SequentialTarget(std::size_t n) {
    info_.n = n;
    info_.description = "module background id " + std::to_string(fprev::Background::next_id());
  }
  const fprev::TargetInfo& info() const override { return info_; }
  void evaluate(const fprev::ProbeBatch& batch, std::span<double> outputs) override {
    for (std::size_t p = 0; p < batch.probes.size(); ++p) {
      float sum = 0.0f;
      for (std::uint32_t k = 0; k < info_.n; ++k)
        sum += static_cast<float>(batch.leaf(p, k).value());
      outputs[p] = sum;
    }
  }
  void evaluate(const fprev::ValueBatch& batch, std::span<double> outputs) override {
    for (std::size_t r = 0; r < batch.rows; ++r) {
      float sum = 0.0f;
      for (std::size_t k = 0; k < info_.n; ++k)
        sum += static_cast<float>(batch.leaf(r, info_.n, k).value());
      outputs[r] = sum;
    }
  }

 private:
  fprev::TargetInfo info_;
};

class SequentialInstance final : public fprev::BackendInstance {
 public:
  fprev::Identity identity() const override { return {"modtest", "1", "", "any", {}}; }
  std::vector<fprev::ParamSpec> case_params() const override {
    return {fprev::integer_param("n", 1, 4096, "summands").require()};
  }
  void validate_case(const fprev::Params& /*case_params*/) const override {}
  std::unique_ptr<fprev::Target> make_target(const fprev::Params& params) const override {
    return std::make_unique<SequentialTarget>(
        static_cast<std::size_t>(fprev::param_int(params, "n")));
  }
};

class SequentialBackend final : public fprev::Backend {
 public:
  std::string_view name() const override { return "modtest"; }
  std::string_view summary() const override { return "test module: sequential float32 sum"; }
  std::vector<fprev::ParamSpec> instance_params() const override {
    return {fprev::choice_param("mode", {"ok", "unavailable", "misconfigured"}, "what open() does")
                .defaults_to("ok")};
  }
  std::vector<fprev::ParamSpec> case_params() const override {
    return {fprev::integer_param("n", 1, 4096, "summands").require()};
  }
  std::unique_ptr<fprev::BackendInstance> open(const fprev::Params& params) const override {
    const std::string mode = fprev::param_str(params, "mode");
    if (mode == "unavailable") throw fprev::BackendUnavailable("modtest: no such device here");
    if (mode == "misconfigured") throw fprev::ConfigError("mode", "modtest: mode misconfigured");
    return std::make_unique<SequentialInstance>();
  }
};

}  // namespace

FPREV_BACKEND_MODULE(registry) { registry.add(std::make_unique<SequentialBackend>()); }
