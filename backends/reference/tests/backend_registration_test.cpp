// The "reference" backend as the CLI and the suites see it: registration, parameters, identity,
// errors that name the allowed values.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "fprev/backend.hpp"
#include "fprev/backends/reference.hpp"

namespace fprev {
namespace {

struct Opened {
  BackendRegistry registry;
  std::unique_ptr<BackendInstance> instance;
};

std::unique_ptr<Opened> open_reference() {
  auto opened = std::make_unique<Opened>();
  register_reference_backend(opened->registry);
  const Backend* backend = opened->registry.find("reference");
  if (backend == nullptr) return nullptr;
  opened->instance = backend->open({});
  return opened;
}

std::unique_ptr<Target> make(const BackendInstance& instance, const Params& params) {
  const Params resolved = resolve_params(instance.case_params(), params, "test");
  instance.validate_case(resolved);
  return instance.make_target(resolved);
}

TEST(ReferenceBackend, IsRegisteredAndBuiltIn) {
  auto opened = open_reference();
  ASSERT_NE(opened, nullptr);
  EXPECT_EQ(opened->registry.names(), "reference");
  EXPECT_NE(builtin_backends().find("reference"), nullptr);
  const Backend* backend = opened->registry.find("reference");
  EXPECT_EQ(backend->name(), "reference");
  EXPECT_TRUE(backend->instance_params().empty());
  EXPECT_THROW(backend->open({{"threads", "2"}}), ConfigError);
}

TEST(ReferenceBackend, Identity) {
  auto opened = open_reference();
  const Identity id = opened->instance->identity();
  EXPECT_EQ(id.library, "reference");
  EXPECT_EQ(id.version, "1");
  EXPECT_EQ(id.platform_key, "any");
}

TEST(ReferenceBackend, DefaultsResolve) {
  auto opened = open_reference();
  const Params resolved =
      resolve_params(opened->instance->case_params(), {{"order", "pairwise"}, {"n", "100"}}, "test");
  EXPECT_EQ(resolved.at("op"), "sum");
  EXPECT_EQ(resolved.at("dtype"), "float32");
  EXPECT_EQ(resolved.count("output"), 0u);  // resolved to dtype by the backend
  EXPECT_EQ(resolved.at("lanes"), "8");
  EXPECT_EQ(resolved.at("block"), "64");
  EXPECT_EQ(resolved.at("width"), "5");
  EXPECT_EQ(resolved.at("seed"), "1");
  auto target = make(*opened->instance, {{"order", "pairwise"}, {"n", "100"}});
  EXPECT_EQ(target->info().n, 100u);
  EXPECT_EQ(target->info().max_batch, 1u);
  EXPECT_EQ(target->info().description, "reference pairwise float32 sum, n=100");
  EXPECT_EQ(target->info().traits.input, Format::float32);
  EXPECT_EQ(target->info().traits.output, Format::float32);
  EXPECT_EQ(target->info().traits.summand, SummandKind::plain);
  EXPECT_EQ(target->info().traits.max_fused_width, 2u);
}

TEST(ReferenceBackend, EveryParameterReachesTheTarget) {
  auto opened = open_reference();
  auto dot = make(*opened->instance, {{"op", "dot"}, {"order", "fused"}, {"dtype", "float64"},
                                      {"output", "float16"}, {"n", "33"}, {"width", "9"}});
  EXPECT_EQ(dot->info().description, "reference fused float64 dot, n=33, width=9, output float16");
  EXPECT_EQ(dot->info().traits.summand, SummandKind::product);
  EXPECT_EQ(dot->info().traits.input, Format::float64);
  EXPECT_EQ(dot->info().traits.accumulator, Format::float16);
  EXPECT_EQ(dot->info().traits.output, Format::float16);
  EXPECT_EQ(dot->info().traits.max_fused_width, 9u);
  EXPECT_EQ(dot->info().traits.fused_extra_bits, 0);
  auto strided = make(*opened->instance, {{"order", "strided_pairwise"}, {"n", "10"}, {"lanes", "3"}});
  EXPECT_EQ(strided->info().description, "reference strided_pairwise float32 sum, n=10, lanes=3");
  auto blocked = make(*opened->instance, {{"order", "blocked"}, {"n", "10"}, {"block", "4"}});
  EXPECT_EQ(blocked->info().description, "reference blocked float32 sum, n=10, block=4");
  auto random = make(*opened->instance, {{"order", "random_tree"}, {"n", "10"}, {"seed", "99"}});
  EXPECT_EQ(random->info().description, "reference random_tree float32 sum, n=10, seed=99");
  auto wide = make(*opened->instance, {{"order", "exact"}, {"n", "10"}, {"output", "float64"}});
  EXPECT_EQ(wide->info().traits.accumulator, Format::float32);
  EXPECT_EQ(wide->info().traits.output, Format::float64);
}

TEST(ReferenceBackend, BadOrderListsTheAllowedValues) {
  auto opened = open_reference();
  try {
    make(*opened->instance, {{"order", "zigzag"}, {"n", "10"}});
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.parameter(), "order");
    const std::string message = e.what();
    EXPECT_NE(message.find("zigzag"), std::string::npos) << message;
    for (reference::Order order : reference::all_orders())
      EXPECT_NE(message.find(std::string(reference::to_string(order))), std::string::npos) << message;
  }
}

TEST(ReferenceBackend, MissingAndOutOfRangeParameters) {
  auto opened = open_reference();
  const auto error_parameter = [&](const Params& params) -> std::string {
    try {
      make(*opened->instance, params);
    } catch (const ConfigError& e) {
      return e.parameter();
    }
    return "(none)";
  };
  EXPECT_EQ(error_parameter({{"n", "10"}}), "order");
  EXPECT_EQ(error_parameter({{"order", "sequential"}}), "n");
  EXPECT_EQ(error_parameter({{"order", "sequential"}, {"n", "0"}}), "n");
  EXPECT_EQ(error_parameter({{"order", "sequential"}, {"n", "ten"}}), "n");
  EXPECT_EQ(error_parameter({{"order", "sequential"}, {"n", "4"}, {"lanes", "0"}}), "lanes");
  EXPECT_EQ(error_parameter({{"order", "fused"}, {"n", "4"}, {"width", "1"}}), "width");
  EXPECT_EQ(error_parameter({{"order", "fused"}, {"n", "4"}, {"width", "65"}}), "width");
  EXPECT_EQ(error_parameter({{"order", "sequential"}, {"n", "4"}, {"dtype", "float16"}}), "dtype");
  EXPECT_EQ(error_parameter({{"order", "sequential"}, {"n", "4"}, {"output", "fp8_e4m3"}}), "output");
  EXPECT_EQ(error_parameter({{"order", "sequential"}, {"n", "4"}, {"op", "gemm"}}), "op");
  EXPECT_EQ(error_parameter({{"order", "sequential"}, {"n", "4"}, {"colour", "red"}}), "colour");
  EXPECT_EQ(error_parameter({{"order", "sequential"}, {"n", "4"}, {"lanes", "100"}}), "(none)");
}

TEST(ReferenceSpecApi, OrderNamesRoundTrip) {
  for (reference::Order order : reference::all_orders())
    EXPECT_EQ(reference::parse_order(reference::to_string(order)), order);
  EXPECT_EQ(reference::parse_order("Sequential"), std::nullopt);
  EXPECT_EQ(reference::all_orders().size(), 13u);
  EXPECT_EQ(reference::order_names().substr(0, 30), "sequential, reverse, pairwise,");
}

TEST(ReferenceSpecApi, DirectSpecsAreValidated) {
  reference::ReferenceSpec spec;
  EXPECT_THROW(reference::make_reference_target(spec), ConfigError);  // n = 0
  spec.n = 3;
  spec.dtype = Format::bfloat16;
  EXPECT_THROW(reference::make_reference_target(spec), ConfigError);
  spec.dtype = Format::float64;  // output follows dtype unless set
  EXPECT_EQ(reference::make_reference_target(spec)->info().traits.output, Format::float64);
}

}  // namespace
}  // namespace fprev
