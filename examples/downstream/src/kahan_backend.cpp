// The `kahan` backend: one instance (the kernel has no settings), cases `op: dot` with a dtype, a
// length n and a block size.
#include "kahan/kahan_backend.hpp"

#include <string>

#include "fprev/probe_inputs.hpp"
#include "fprev/target.hpp"
#include "kahan/kahan_dot.hpp"

namespace kahan {
namespace {

std::vector<fprev::ParamSpec> case_specs() {
  return {fprev::choice_param("op", {"dot"}, "the routine").defaults_to("dot"),
          fprev::choice_param("dtype", {"float32", "float64"}, "the vectors' type")
              .defaults_to("float32"),
          fprev::integer_param("n", 1, 1 << 20, "length of the vectors").require(),
          fprev::integer_param("block", 1, 1 << 20, "summands per compensated block")
              .defaults_to("8")};
}

template <class T>
class KahanDotTarget final : public fprev::Target {
 public:
  KahanDotTarget(std::size_t n, std::size_t block) : block_(block), vectors_(n) {
    constexpr fprev::Format format =
        sizeof(T) == 4 ? fprev::Format::float32 : fprev::Format::float64;
    info_.description = std::string("blocked Kahan dot, ") + (sizeof(T) == 4 ? "float32" : "float64") +
                        ", n=" + std::to_string(n) + ", block=" + std::to_string(block);
    info_.n = n;
    info_.traits.input = format;
    info_.traits.accumulator = format;
    info_.traits.output = format;
    info_.traits.summand = fprev::SummandKind::product;
    // The compensation is no plain IEEE addition: the order revealed by the probes is exact, but
    // adding in that order without the compensation does not reproduce the results bitwise.
    info_.traits.exact_arithmetic_model = false;
    info_.max_batch = 64;
  }

  const fprev::TargetInfo& info() const override { return info_; }

  void evaluate(const fprev::ProbeBatch& batch, std::span<double> outputs) override {
    for (std::size_t p = 0; p < batch.probes.size(); ++p) {
      vectors_.load(batch, p);
      outputs[p] = run();
    }
  }

  void evaluate(const fprev::ValueBatch& batch, std::span<double> outputs) override {
    for (std::size_t row = 0; row < batch.rows; ++row) {
      vectors_.load(batch, row);
      outputs[row] = run();
    }
  }

 private:
  double run() const {
    const std::span<const T> x(vectors_.a(), vectors_.size()), y(vectors_.b(), vectors_.size());
    return static_cast<double>(blocked_kahan_dot(x, y, block_));
  }

  std::size_t block_;
  fprev::ProbeVectors<T> vectors_;
  fprev::TargetInfo info_;
};

class KahanInstance final : public fprev::BackendInstance {
 public:
  using BackendInstance::BackendInstance;  // its case parameters are the backend's
  fprev::Identity identity() const override {
    // Portable C++ without FMA contraction: the same order on every machine.
    return {"kahan-example", "1.0", "blocked Kahan-compensated dot", "any", {}};
  }
  std::unique_ptr<fprev::Target> make_target(const fprev::Params& params) const override {
    const auto n = static_cast<std::size_t>(fprev::param_int(params, "n"));
    const auto block = static_cast<std::size_t>(fprev::param_int(params, "block"));
    if (fprev::param_str(params, "dtype") == "float64")
      return std::make_unique<KahanDotTarget<double>>(n, block);
    return std::make_unique<KahanDotTarget<float>>(n, block);
  }
};

class KahanBackend final : public fprev::Backend {
 public:
  std::string_view name() const override { return "kahan"; }
  std::string_view summary() const override {
    return "example: blocked Kahan-compensated dot product (examples/downstream)";
  }
  std::vector<fprev::ParamSpec> instance_params() const override { return {}; }
  std::vector<fprev::ParamSpec> case_params() const override { return case_specs(); }
  std::unique_ptr<fprev::BackendInstance> open(const fprev::Params& /*settings*/) const override {
    return std::make_unique<KahanInstance>(*this);
  }
};

}  // namespace

std::unique_ptr<fprev::Backend> make_backend() { return std::make_unique<KahanBackend>(); }

}  // namespace kahan
