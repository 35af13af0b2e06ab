// Backend module "banner" for tests/e2e/worker_faults_e2e.sh: a sequential float32 sum that prints a
// banner to stdout and stderr when it is loaded, as some vendor libraries do, and whose setting
// `crash_from: N` makes a call with n >= N dereference null. The gate must never let either reach its
// reports (list --cmake-tests, --json) or take it down.
#include <cstdio>
#include <memory>
#include <string>

#include "fprev/backend_module.hpp"
#include "fprev/target.hpp"

namespace {

__attribute__((constructor)) void print_banner() {
  std::printf("=== banner module 2.0: licensed to nobody ===\n");
  std::fflush(stdout);
  std::fprintf(stderr, "banner module: loaded\n");
}

class SumTarget final : public fprev::Target {
 public:
  SumTarget(std::size_t n, std::size_t crash_from) : crash_from_(crash_from) {
    info_.n = n;
    info_.description = "banner sequential float32 sum, n=" + std::to_string(n);
  }
  const fprev::TargetInfo& info() const override { return info_; }
  void evaluate(const fprev::ProbeBatch& batch, std::span<double> outputs) override {
    maybe_crash();
    for (std::size_t p = 0; p < batch.probes.size(); ++p) {
      float sum = 0.0f;
      for (std::uint32_t k = 0; k < info_.n; ++k) sum += static_cast<float>(batch.leaf(p, k).value());
      outputs[p] = sum;
    }
  }
  void evaluate(const fprev::ValueBatch& batch, std::span<double> outputs) override {
    maybe_crash();
    for (std::size_t r = 0; r < batch.rows; ++r) {
      float sum = 0.0f;
      for (std::size_t k = 0; k < info_.n; ++k) sum += static_cast<float>(batch.leaf(r, info_.n, k).value());
      outputs[r] = sum;
    }
  }

 private:
  void maybe_crash() const {
    if (crash_from_ == 0 || info_.n < crash_from_) return;
    std::fprintf(stderr, "banner module: crashing for n=%zu\n", info_.n);
    volatile int* volatile p = nullptr;
    *p = 1;
  }
  fprev::TargetInfo info_;
  std::size_t crash_from_;
};

class BannerInstance final : public fprev::BackendInstance {
 public:
  explicit BannerInstance(std::size_t crash_from) : crash_from_(crash_from) {}
  fprev::Identity identity() const override { return {"banner", "2.0", "", "any", {}}; }
  std::vector<fprev::ParamSpec> case_params() const override {
    return {fprev::integer_param("n", 1, 4096, "summands").require()};
  }
  void validate_case(const fprev::Params& /*case_params*/) const override {}
  std::unique_ptr<fprev::Target> make_target(const fprev::Params& params) const override {
    return std::make_unique<SumTarget>(static_cast<std::size_t>(fprev::param_int(params, "n")), crash_from_);
  }

 private:
  std::size_t crash_from_;
};

class BannerBackend final : public fprev::Backend {
 public:
  std::string_view name() const override { return "banner"; }
  std::string_view summary() const override { return "test module that prints a banner when loaded"; }
  std::vector<fprev::ParamSpec> instance_params() const override {
    return {fprev::integer_param("crash_from", 0, 1 << 20, "crash in calls with n >= this (0: never)")
                .defaults_to("0")};
  }
  std::vector<fprev::ParamSpec> case_params() const override {
    return {fprev::integer_param("n", 1, 4096, "summands").require()};
  }
  std::unique_ptr<fprev::BackendInstance> open(const fprev::Params& params) const override {
    return std::make_unique<BannerInstance>(static_cast<std::size_t>(fprev::param_int(params, "crash_from")));
  }
};

}  // namespace

FPREV_BACKEND_MODULE(registry) { registry.add(std::make_unique<BannerBackend>()); }
