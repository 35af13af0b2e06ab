// A backend module to copy: your kernel behind fprev-golden in one file. Put your kernel in
// my_sum(), rename the backend "mysum" (here, in CMakeLists.txt and in the suite), and declare
// the case parameters your kernel takes, once, in case_params().
#include <algorithm>
#include <memory>
#include <span>
#include <string>

#include "fprev/backend_module.hpp"
#include "fprev/sum_target.hpp"

namespace {

// The kernel under test: blocks of four values, each added left to right, then the blocks in order.
float my_sum(std::span<const float> x) {
  float total = 0;
  for (std::size_t i = 0; i < x.size(); i += 4) {
    float block = 0;
    for (std::size_t k = i; k < std::min(i + 4, x.size()); ++k) block += x[k];
    total += block;
  }
  return total;
}

class MyInstance final : public fprev::BackendInstance {
 public:
  using BackendInstance::BackendInstance;  // its case parameters are the backend's
  fprev::Identity identity() const override { return {"mysum", "1.0", "blocks of 4", "any", {}}; }
  std::unique_ptr<fprev::Target> make_target(const fprev::Params& params) const override {
    const auto n = static_cast<std::size_t>(fprev::param_int(params, "n"));
    return fprev::make_sum_target<float>(n, "mysum, n=" + std::to_string(n), my_sum);
  }
};

class MyBackend final : public fprev::Backend {
 public:
  std::string_view name() const override { return "mysum"; }
  std::string_view summary() const override { return "my blocked float32 sum"; }
  std::vector<fprev::ParamSpec> instance_params() const override { return {}; }
  std::vector<fprev::ParamSpec> case_params() const override {
    return {fprev::choice_param("op", {"sum"}, "the routine").defaults_to("sum"),
            fprev::integer_param("n", 1, 1 << 20, "number of summands").require()};
  }
  std::unique_ptr<fprev::BackendInstance> open(const fprev::Params& /*settings*/) const override {
    return std::make_unique<MyInstance>(*this);
  }
};

}  // namespace

FPREV_BACKEND_MODULE(registry) { registry.add(std::make_unique<MyBackend>()); }
