// Registration of the "reference" backend: case parameters as they appear in suites and on the
// command line, turned into a ReferenceSpec.
#include "fprev/backends/reference.hpp"

namespace fprev {
namespace {

using reference::ReferenceSpec;

std::vector<std::string> order_choices() {
  std::vector<std::string> out;
  for (reference::Order order : reference::all_orders())
    out.emplace_back(reference::to_string(order));
  return out;
}

ReferenceSpec spec_from_params(const Params& params) {
  ReferenceSpec spec;
  spec.op = param_str(params, "op");
  const std::string order = param_str(params, "order");
  const auto parsed = reference::parse_order(order);
  if (!parsed)
    throw ConfigError("order", "reference backend: unknown order '" + order +
                                   "'; allowed values: " + reference::order_names());
  spec.order = *parsed;
  const auto dtype = parse_format(param_str(params, "dtype"));
  if (!dtype) throw ConfigError("dtype", "reference backend: unknown dtype; allowed values: float32, float64");
  spec.dtype = *dtype;
  const auto output = params.find("output");
  if (output != params.end() && !output->second.empty()) {
    const auto format = parse_format(output->second);
    if (!format)
      throw ConfigError("output", "reference backend: unknown output '" + output->second +
                                      "'; allowed values: float16, bfloat16, float32, float64");
    spec.output = *format;
  }
  spec.n = static_cast<std::size_t>(param_int(params, "n"));
  spec.lanes = static_cast<std::size_t>(param_int(params, "lanes"));
  spec.block = static_cast<std::size_t>(param_int(params, "block"));
  spec.width = static_cast<std::size_t>(param_int(params, "width"));
  spec.seed = static_cast<std::uint64_t>(param_int(params, "seed"));
  spec.m = static_cast<std::size_t>(param_int(params, "m"));
  spec.split_k_max_m = static_cast<std::size_t>(param_int(params, "split_k_max_m"));
  return spec;
}

class ReferenceInstance final : public BackendInstance {
 public:
  Identity identity() const override {
    Identity id;
    id.library = "reference";
    // The kernels' orders are defined by this backend, not by the host: bump this version only
    // when an order's definition changes.
    id.version = "1";
    id.configuration = "portable C++ kernels";
    id.platform_key = "any";
    return id;
  }

  std::vector<ParamSpec> case_params() const override {
    return {
        choice_param("op", {"sum", "dot", "gemv"}, "sum of x, dot product of x and y, or y = A x (m rows)")
            .defaults_to("sum"),
        choice_param("order", order_choices(), "the accumulation order of the kernel").require(),
        choice_param("dtype", {"float32", "float64"}, "input format").defaults_to("float32"),
        // No default: an absent output means "the same as dtype", resolved in spec_from_params.
        choice_param("output", {"float16", "bfloat16", "float32", "float64"},
                     "result format (default: dtype); narrower than dtype means partial sums are "
                     "rounded to it"),
        integer_param("n", 1, std::int64_t{1} << 30, "number of summands").require(),
        integer_param("lanes", 1, std::int64_t{1} << 20, "accumulators of the strided orders")
            .defaults_to("8"),
        integer_param("block", 1, std::int64_t{1} << 30, "block length of the blocked order")
            .defaults_to("64"),
        integer_param("width", 2, static_cast<std::int64_t>(reference::kMaxFusedWidth),
                      "terms of a fused node (fused order)")
            .defaults_to("5"),
        integer_param("seed", 0, INT64_MAX, "seed of the random_tree order").defaults_to("1"),
        integer_param("m", 1, 4096, "gemv: rows of A").defaults_to("1"),
        integer_param("split_k_max_m", 0, 4096,
                      "gemv: K is split in two halves when m <= this (a batch-dependent order; 0: never)")
            .defaults_to("0"),
    };
  }

  void validate_case(const Params& case_params) const override {
    reference::validate_spec(spec_from_params(case_params));
  }

  std::unique_ptr<Target> make_target(const Params& case_params) const override {
    return reference::make_reference_target(spec_from_params(case_params));
  }
  // Plain C++ kernels without shared state.
  std::size_t concurrent_targets(const Params& /*case_params*/) const override { return kUnboundedTargets; }
};

class ReferenceBackend final : public Backend {
 public:
  std::string_view name() const override { return "reference"; }
  std::string_view summary() const override {
    return "plain C++ kernels with known accumulation orders (ground truth)";
  }
  std::vector<ParamSpec> instance_params() const override { return {}; }
  // Our own portable kernels: they stay in the gate's process (fprev/worker.hpp).
  bool runs_foreign_code() const override { return false; }
  // The same checks as the instance's, when the suite is read (a size no reveal can finish, a
  // lane count out of range), so they name the suite's line.
  void validate_case(const Params& case_params) const override {
    reference::validate_spec(spec_from_params(case_params));
  }
  std::unique_ptr<BackendInstance> open(const Params& instance_params) const override {
    resolve_params({}, instance_params, "reference backend");  // rejects any parameter
    return std::make_unique<ReferenceInstance>();
  }
};

}  // namespace

void register_reference_backend(BackendRegistry& registry) {
  registry.add(std::make_unique<ReferenceBackend>());
}

}  // namespace fprev
