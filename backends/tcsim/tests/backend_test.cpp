// The tcsim backend through the registry, with parameters as strings (as the CLI and suites pass
// them).
#include <gtest/gtest.h>

#include "fprev/backend.hpp"
#include "fprev/backends/tcsim.hpp"

namespace {

using fprev::ConfigError;
using fprev::Params;

const fprev::Backend& tcsim_backend() {
  const fprev::Backend* backend = fprev::builtin_backends().find("tcsim");
  if (backend == nullptr) throw std::runtime_error("tcsim is not registered");
  return *backend;
}

std::unique_ptr<fprev::BackendInstance> open(const Params& params) {
  const fprev::Backend& b = tcsim_backend();
  return b.open(fprev::resolve_params(b.instance_params(), params, "test"));
}

Params resolved_case(const fprev::BackendInstance& instance, const Params& params) {
  return fprev::resolve_params(instance.case_params(), params, "test");
}

std::string config_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.parameter() + ": " + e.what();
  }
  return "no error";
}

TEST(TcsimBackend, IsRegistered) {
  EXPECT_EQ(tcsim_backend().name(), "tcsim");
  EXPECT_FALSE(tcsim_backend().summary().empty());
}

TEST(TcsimBackend, Identity) {
  const auto instance = open({{"arch", "hopper"}, {"split_k", "2"}});
  const fprev::Identity id = instance->identity();
  EXPECT_EQ(id.library, "tcsim");
  EXPECT_EQ(id.version, "2");
  EXPECT_EQ(id.platform_key, "any");
  EXPECT_EQ(id.details.at("arch"), "hopper");
  EXPECT_EQ(id.details.at("products_per_step"), "16; tf32 8; fp8_e4m3 32; fp8_e5m2 32");
  EXPECT_EQ(open({{"arch", "ampere"}})->identity().details.at("products_per_step"), "8");
  EXPECT_EQ(id.details.at("extra_bits"), std::to_string(fprev::tcsim::kDefaultHopperExtraBits));
  EXPECT_EQ(id.details.at("k_tile"), "64");  // the Hopper default
  EXPECT_EQ(id.details.at("split_k"), "2");
  EXPECT_EQ(id.details.at("split_k_reduction"), "sequential");
  EXPECT_NE(id.configuration.find("hopper"), std::string::npos);
  EXPECT_EQ(open({{"arch", "volta"}})->identity().details.at("k_tile"), "32");
  EXPECT_EQ(open({{"arch", "hopper"}, {"hopper_extra_bits", "3"}})->identity().details.at("extra_bits"),
            "3");
}

TEST(TcsimBackend, InstanceParameterErrors) {
  const std::string missing = config_error([] { open({}); });
  EXPECT_EQ(missing.rfind("arch: ", 0), 0u) << missing;
  EXPECT_NE(missing.find("volta, turing, ampere, hopper"), std::string::npos) << missing;
  EXPECT_EQ(config_error([] { open({{"arch", "blackwell"}}); }).rfind("arch: ", 0), 0u);
  const std::string tile = config_error([] { open({{"arch", "ampere"}, {"k_tile", "12"}}); });
  EXPECT_EQ(tile.rfind("k_tile: ", 0), 0u) << tile;
  EXPECT_NE(tile.find("multiples of 8"), std::string::npos) << tile;
  EXPECT_EQ(config_error([] { open({{"arch", "volta"}, {"split_k", "0"}}); }).rfind("split_k: ", 0), 0u);
  EXPECT_EQ(config_error([] { open({{"arch", "volta"}, {"hopper_extra_bits", "2"}}); })
                .rfind("hopper_extra_bits: ", 0),
            0u);
  EXPECT_EQ(config_error([] { open({{"arch", "volta"}, {"split_k_reduction", "tree"}}); })
                .rfind("split_k_reduction: ", 0),
            0u);
}

TEST(TcsimBackend, CaseParameters) {
  const auto instance = open({{"arch", "ampere"}});
  // The CLI form: --op gemm --dtype float16 --m 16 --n 16 --k 32.
  const Params p = resolved_case(*instance, {{"op", "gemm"}, {"dtype", "float16"}, {"k", "32"}});
  EXPECT_EQ(p.at("m"), "16");
  EXPECT_EQ(p.at("n"), "16");
  EXPECT_EQ(p.at("beta"), "0");
  instance->validate_case(p);
  const auto target = instance->make_target(p);
  EXPECT_EQ(target->info().n, 32u);
  EXPECT_EQ(target->info().max_batch, 16u);
  EXPECT_EQ(target->info().traits.output, fprev::Format::float32);

  const Params f64 = resolved_case(*instance, {{"op", "gemm"}, {"dtype", "float64"}, {"k", "8"}});
  EXPECT_EQ(instance->make_target(f64)->info().traits.output, fprev::Format::float64);

  const Params half = resolved_case(
      *instance, {{"op", "gemm"}, {"dtype", "bfloat16"}, {"output", "float16"}, {"k", "8"}, {"m", "4"}});
  EXPECT_EQ(instance->make_target(half)->info().traits.output, fprev::Format::float16);
  EXPECT_EQ(instance->make_target(half)->info().max_batch, 4u);

  const Params with_c =
      resolved_case(*instance, {{"op", "gemm"}, {"dtype", "tf32"}, {"k", "8"}, {"beta", "1"}});
  EXPECT_EQ(instance->make_target(with_c)->info().n, 9u);
}

TEST(TcsimBackend, CaseErrorsNameTheAllowedValues) {
  const auto volta = open({{"arch", "volta"}});
  const std::string fp8 = config_error([&] {
    volta->validate_case(resolved_case(*volta, {{"op", "gemm"}, {"dtype", "fp8_e4m3"}, {"k", "8"}}));
  });
  EXPECT_EQ(fp8.rfind("dtype: ", 0), 0u) << fp8;
  EXPECT_NE(fp8.find("allowed values: float16, bfloat16"), std::string::npos) << fp8;
  EXPECT_EQ(config_error([&] {
              volta->validate_case(resolved_case(*volta, {{"op", "gemm"}, {"dtype", "float64"}, {"k", "8"}}));
            }).rfind("dtype: ", 0),
            0u);
  EXPECT_EQ(config_error([&] { resolved_case(*volta, {{"op", "gemv"}, {"dtype", "float16"}, {"k", "8"}}); })
                .rfind("op: ", 0),
            0u);
  EXPECT_EQ(config_error([&] { resolved_case(*volta, {{"op", "gemm"}, {"dtype", "float16"}}); })
                .rfind("k: ", 0),
            0u);
  EXPECT_EQ(config_error([&] {
              volta->validate_case(resolved_case(
                  *volta, {{"op", "gemm"}, {"dtype", "float16"}, {"k", "8"}, {"output", "float16"}, {"beta", "1"}}));
            }).rfind("beta: ", 0),
            0u);
  const auto hopper = open({{"arch", "hopper"}});
  hopper->validate_case(resolved_case(*hopper, {{"op", "gemm"}, {"dtype", "fp8_e5m2"}, {"k", "8"}}));
}

}  // namespace
