// Registration of the `tcsim` backend: instance parameters (the simulated architecture and kernel
// configuration) and case parameters (op, formats, shape).
#include <sstream>

#include "fprev/backends/tcsim.hpp"

namespace fprev {
namespace tcsim {
namespace {

constexpr const char* kModelVersion = "2";  // bump when the arithmetic or the driver changes

Format parse_dtype(const std::string& name) {
  const auto format = parse_format(name);
  if (!format) throw ConfigError("dtype", "tcsim: unknown dtype '" + name + "'");
  return *format;
}

std::vector<ParamSpec> case_param_specs() {
  return {
      choice_param("op", {"gemm"}, "the operation: gemm (D = A*B, + C when beta = 1)").require(),
      choice_param("dtype", {"float16", "bfloat16", "tf32", "fp8_e4m3", "fp8_e5m2", "float64"},
                   "input format of A and B; volta/turing: float16, bfloat16; ampere: + tf32, "
                   "float64; hopper: + fp8_e4m3, fp8_e5m2")
          .require(),
      choice_param("output", {"float32", "float16", "bfloat16", "float64"},
                   "output format; default float32 (float64 for dtype float64)"),
      integer_param("m", 1, 4096, "rows of A (one probe per row)").defaults_to("16"),
      integer_param("n", 1, 4096, "columns of B").defaults_to("16"),
      integer_param("k", 1, 1 << 24, "reduction length (leaves 0..k-1; C is leaf k)").require(),
      integer_param("beta", 0, 1, "1: D = A*B + C with C as leaf k (needs output float32)")
          .defaults_to("0"),
  };
}

// The target spec of a resolved case on an instance (model and kernel configuration).
GemmTargetSpec spec_from_params(const Params& params, const ArchModel& model,
                                const GemmConfig& config) {
  GemmTargetSpec spec;
  spec.config = config;
  if (param_str(params, "op") != "gemm")
    throw ConfigError("op", "tcsim: unknown op '" + param_str(params, "op") + "'; allowed values: gemm");
  spec.input = parse_dtype(param_str(params, "dtype"));
  spec.model = model.for_input(spec.input);
  const bool has_output = params.count("output") != 0;
  spec.output = has_output ? parse_dtype(param_str(params, "output"))
                           : (spec.input == Format::float64 ? Format::float64 : Format::float32);
  spec.m = static_cast<std::size_t>(param_int(params, "m"));
  spec.n = static_cast<std::size_t>(param_int(params, "n"));
  spec.k = static_cast<std::size_t>(param_int(params, "k"));
  spec.beta = param_int(params, "beta") != 0;
  return spec;
}

// "16", or "16; tf32 8; fp8_e4m3 32; fp8_e5m2 32" where formats have their own step.
std::string products_per_step(const ArchModel& model) {
  std::string out = std::to_string(model.products_per_step);
  for (const FormatStep& step : model.format_steps)
    out += "; " + std::string(to_string(step.format)) + " " + std::to_string(step.products_per_step);
  return out;
}

class TcsimInstance final : public BackendInstance {
 public:
  TcsimInstance(ArchModel model, GemmConfig config) : model_(std::move(model)), config_(config) {}

  Identity identity() const override {
    Identity id;
    id.library = "tcsim";
    id.version = kModelVersion;
    std::ostringstream os;
    os << model_.name << " (" << model_.products_per_step << "+1 terms";
    for (const FormatStep& step : model_.format_steps)
      os << ", " << to_string(step.format) << " " << step.products_per_step << "+1";
    os << ", " << model_.extra_bits << " extra bits, " << model_.carry_bits
       << " carry bits), k_tile " << config_.k_tile
       << ", split_k " << config_.split_k << " " << to_string(config_.reduction) << ", residue "
       << to_string(config_.residue) << ", C " << to_string(config_.c_placement);
    id.configuration = os.str();
    id.platform_key = "any";  // a deterministic model: the same tree on every machine
    id.details = {{"arch", model_.name},
                  {"products_per_step", products_per_step(model_)},
                  {"extra_bits", std::to_string(model_.extra_bits)},
                  {"carry_bits", std::to_string(model_.carry_bits)},
                  {"k_tile", std::to_string(config_.k_tile)},
                  {"split_k", std::to_string(config_.split_k)},
                  {"split_k_reduction", std::string(to_string(config_.reduction))},
                  {"k_residue", std::string(to_string(config_.residue))},
                  {"c_placement", std::string(to_string(config_.c_placement))}};
    return id;
  }

  std::vector<ParamSpec> case_params() const override { return case_param_specs(); }

  void validate_case(const Params& params) const override { validate(spec_from(params)); }

  std::unique_ptr<Target> make_target(const Params& params) const override {
    return make_tcsim_target(spec_from(params));
  }

 private:
  GemmTargetSpec spec_from(const Params& params) const {
    return spec_from_params(params, model_, config_);
  }

  ArchModel model_;
  GemmConfig config_;
};

class TcsimBackend final : public Backend {
 public:
  // Our own portable model: it stays in the gate's process (fprev/worker.hpp).
  bool runs_foreign_code() const override { return false; }
  std::string_view name() const override { return "tcsim"; }
  std::string_view summary() const override {
    return "simulated Tensor Cores (Volta/Turing 4+1, Ampere 8+1, Hopper 16+1 fused sums; Hopper tf32 "
           "8+1, fp8 32+1) driving "
           "a GEMM with k-tiling and split-K; deterministic, no GPU needed";
  }

  std::vector<ParamSpec> instance_params() const override {
    return {
        choice_param("arch", {"volta", "turing", "ampere", "hopper"}, "simulated architecture")
            .require(),
        integer_param("k_tile", 1, 1 << 20,
                      "k elements per main-loop tile, a multiple of the step (default 32; 64 on "
                      "hopper); decides the split-K slice boundaries"),
        integer_param("split_k", 1, 1024, "slices of k accumulated independently, then reduced")
            .defaults_to("1"),
        choice_param("split_k_reduction", {"sequential", "pairwise"},
                     "how the split-K partial sums are added")
            .defaults_to("sequential"),
        choice_param("k_residue", {"first", "last"},
                     "where the partial k-tile goes: first (CUTLASS) or last")
            .defaults_to("first"),
        choice_param("c_placement", {"epilogue", "accumulator"},
                     "where C enters: added by the epilogue, or as the first accumulator")
            .defaults_to("epilogue"),
        integer_param("hopper_extra_bits", 0, 16,
                      "alignment bits Hopper keeps below the significand (default " +
                          std::to_string(kDefaultHopperExtraBits) + ", measured on an H200)"),
    };
  }

  // The case parameters do not depend on the instance, so suites are checked without opening one.
  std::vector<ParamSpec> case_params() const override { return case_param_specs(); }

  // What can be checked without knowing the architecture (formats against each other, C against
  // the output); the dtype against the architecture is checked by the instance when the case runs.
  void validate_case(const Params& params) const override {
    GemmTargetSpec spec = spec_from_params(params, arch_model(Arch::hopper), GemmConfig{});
    spec.config.k_tile = static_cast<std::size_t>(spec.model.products_per_step);
    validate(spec);
  }

  std::unique_ptr<BackendInstance> open(const Params& raw) const override {
    const Params params = resolve_params(instance_params(), raw, "tcsim");
    const Arch arch = *parse_arch(param_str(params, "arch"));
    int extra = kDefaultHopperExtraBits;
    if (params.count("hopper_extra_bits") != 0) {
      if (arch != Arch::hopper)
        throw ConfigError("hopper_extra_bits",
                          "tcsim: 'hopper_extra_bits' applies to arch hopper only");
      extra = static_cast<int>(param_int(params, "hopper_extra_bits"));
    }
    ArchModel model = arch_model(arch, extra);
    GemmConfig config;
    config.k_tile = params.count("k_tile") != 0
                        ? static_cast<std::size_t>(param_int(params, "k_tile"))
                        : default_k_tile(arch);
    config.split_k = static_cast<std::size_t>(param_int(params, "split_k"));
    config.reduction = *parse_split_k_reduction(param_str(params, "split_k_reduction"));
    config.residue = *parse_k_residue(param_str(params, "k_residue"));
    config.c_placement = *parse_c_placement(param_str(params, "c_placement"));
    const auto step = static_cast<std::size_t>(model.products_per_step);
    if (config.k_tile % step != 0) {
      throw ConfigError("k_tile", "tcsim " + model.name + ": 'k_tile' " +
                                      std::to_string(config.k_tile) +
                                      " is not a multiple of the step of " + std::to_string(step) +
                                      " products; allowed values: multiples of " +
                                      std::to_string(step));
    }
    return std::make_unique<TcsimInstance>(std::move(model), config);
  }
};

}  // namespace
}  // namespace tcsim

void register_tcsim_backend(BackendRegistry& registry) {
  registry.add(std::make_unique<tcsim::TcsimBackend>());
}

}  // namespace fprev
