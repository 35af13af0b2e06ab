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
  const std::string& order = param_str(params, "order");
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
  return spec;
}

ParamSpec integer_param(std::string name, bool required, std::string default_value,
                        std::int64_t min_value, std::int64_t max_value, std::string help) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.type = ParamType::integer;
  spec.required = required;
  spec.default_value = std::move(default_value);
  spec.min_value = min_value;
  spec.max_value = max_value;
  spec.help = std::move(help);
  return spec;
}

ParamSpec choice_param(std::string name, std::vector<std::string> choices, bool required,
                       std::string default_value, std::string help) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.type = ParamType::choice;
  spec.choices = std::move(choices);
  spec.required = required;
  spec.default_value = std::move(default_value);
  spec.help = std::move(help);
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
        choice_param("op", {"sum", "dot"}, false, "sum", "sum of x, or dot product of x and y"),
        choice_param("order", order_choices(), true, "", "the accumulation order of the kernel"),
        choice_param("dtype", {"float32", "float64"}, false, "float32", "input format"),
        // No default: an absent output means "the same as dtype", resolved in spec_from_params.
        choice_param("output", {"float16", "bfloat16", "float32", "float64"}, false, "",
                     "result format (default: dtype); narrower than dtype means partial sums are "
                     "rounded to it"),
        integer_param("n", true, "", 1, std::int64_t{1} << 30, "number of summands"),
        integer_param("lanes", false, "8", 1, std::int64_t{1} << 20,
                      "accumulators of the strided orders"),
        integer_param("block", false, "64", 1, std::int64_t{1} << 30,
                      "block length of the blocked order"),
        integer_param("width", false, "5", 2, static_cast<std::int64_t>(reference::kMaxFusedWidth),
                      "terms of a fused node (fused order)"),
        integer_param("seed", false, "1", 0, INT64_MAX, "seed of the random_tree order"),
    };
  }

  void validate_case(const Params& case_params) const override {
    reference::validate_spec(spec_from_params(case_params));
  }

  std::unique_ptr<Target> make_target(const Params& case_params) const override {
    return reference::make_reference_target(spec_from_params(case_params));
  }
};

class ReferenceBackend final : public Backend {
 public:
  std::string_view name() const override { return "reference"; }
  std::string_view summary() const override {
    return "plain C++ kernels with known accumulation orders (ground truth)";
  }
  std::vector<ParamSpec> instance_params() const override { return {}; }
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
