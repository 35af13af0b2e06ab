// Backends for the suite loader tests: they declare parameters like the real ones but can never be
// opened, so the tests also show that loading a suite does not open anything.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/suite.hpp"

namespace fprev::suite_test {

inline std::atomic<int> open_calls{0};

// Short forms of the public builders (fprev/backend.hpp) for the many declarations below.
inline ParamSpec choice(std::string name, std::vector<std::string> choices, bool required = false,
                        std::string default_value = "") {
  ParamSpec spec = choice_param(std::move(name), std::move(choices), "");
  spec.required = required;
  return std::move(spec).defaults_to(std::move(default_value));
}

inline ParamSpec integer(std::string name, std::int64_t min_value, std::int64_t max_value,
                         std::string default_value = "") {
  return integer_param(std::move(name), min_value, max_value, "").defaults_to(std::move(default_value));
}

inline ParamSpec boolean(std::string name) { return boolean_param(std::move(name), ""); }

inline ParamSpec text(std::string name, std::string default_value, bool required = false) {
  ParamSpec spec = string_param(std::move(name), "").defaults_to(std::move(default_value));
  spec.required = required;
  return spec;
}

// "toy": sum/dot/gemm with shapes, an order and a boolean, like the reference and blas backends.
class ToyBackend : public Backend {
 public:
  std::string_view name() const override { return "toy"; }
  std::string_view summary() const override { return "test backend"; }
  std::vector<ParamSpec> instance_params() const override {
    return {integer("threads", 1, 64, "1"), path_param("library", "").defaults_to("libtoy"),
            choice("mode", {"fast", "exact"}, false, "exact")};
  }
  std::vector<ParamSpec> case_params() const override {
    return {choice("op", {"sum", "dot", "gemm"}, true),
            choice("dtype", {"float32", "float64"}, false, "float32"),
            integer("n", 1, 1 << 20),
            integer("m", 1, 1 << 20),
            integer("k", 1, 1 << 20),
            choice("order", {"sequential", "reverse", "pairwise"}),
            boolean("fused"),
            integer("lanes", 1, 64)};
  }
  // gemm needs m, n and k; sum and dot need n and take no m or k.
  void validate_case(const Params& p) const override {
    const bool gemm = p.at("op") == "gemm";
    for (const char* dim : {"m", "k"}) {
      if (gemm && !p.contains(dim))
        throw ConfigError(dim, std::string("op 'gemm' needs '") + dim + "'");
      if (!gemm && p.contains(dim))
        throw ConfigError(dim, "op '" + p.at("op") + "' takes no '" + dim + "'");
    }
    if (!p.contains("n")) throw ConfigError("n", "op '" + p.at("op") + "' needs 'n'");
  }
  std::unique_ptr<BackendInstance> open(const Params&) const override {
    ++open_calls;
    throw BackendUnavailable("toy backends never open");
  }
};

// "other": a second backend with different parameters, and a required setting.
class OtherBackend : public Backend {
 public:
  std::string_view name() const override { return "other"; }
  std::string_view summary() const override { return "second test backend"; }
  std::vector<ParamSpec> instance_params() const override {
    auto device = integer("device", 0, 7);
    device.required = true;
    return {device};
  }
  std::vector<ParamSpec> case_params() const override {
    return {choice("op", {"sum", "scan"}, true), choice("dtype", {"float32"}, false, "float32"),
            integer("n", 1, 1 << 20)};
  }
  std::unique_ptr<BackendInstance> open(const Params&) const override {
    ++open_calls;
    throw BackendUnavailable("toy backends never open");
  }
};

inline BackendRegistry toy_registry() {
  BackendRegistry registry;
  registry.add(std::make_unique<ToyBackend>());
  registry.add(std::make_unique<OtherBackend>());
  return registry;
}

// Error lines of a suite given as text, named "t.yaml"; empty when it loads.
inline std::vector<std::string> errors_of(const std::string& yaml) {
  const auto registry = toy_registry();
  try {
    parse_suite(yaml, "t.yaml", registry);
  } catch (const SuiteError& error) {
    return error.errors();
  }
  return {};
}

}  // namespace fprev::suite_test
