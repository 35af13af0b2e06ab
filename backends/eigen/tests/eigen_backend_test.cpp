// The eigen backend against Eigen 3.4's own source. The trees expected here are derived from
// Eigen/src/Core/Redux.h (redux_impl<LinearVectorizedTraversal, NoUnrolling>: the first
// first_default_aligned() coefficients are peeled, the aligned rest goes through two packet
// accumulators, res0 += res1, one more packet when a single one is left, predux, then the peeled
// head and the scalar tail one at a time) and Eigen/src/Core/arch/SSE/PacketMath.h (predux of a
// Packet4f: (l0 + l2) + (l1 + l3)). On x86-64 the baseline build is SSE2: 4 floats a packet,
// aligned to 16 bytes, so the order of VectorXf::sum() depends on the offset modulo 4.
#include <gtest/gtest.h>

#include <string>

#include "fprev/alignment.hpp"
#include "quick_options.hpp"
#include "fprev/backend.hpp"
#include "fprev/sexpr.hpp"

namespace fprev {
namespace {

RevealOptions quick() { return ::fprev::testing::quick_reveal_options(); }

const Backend& eigen_backend() {
  const Backend* backend = builtin_backends().find("eigen");
  if (backend == nullptr) throw std::runtime_error("the eigen backend is not registered");
  return *backend;
}

std::unique_ptr<Target> make(const BackendInstance& instance, const Params& params) {
  return instance.make_target(resolve_params(instance.case_params(), params, "test"));
}

std::string leaf(std::size_t k) { return std::to_string(k); }
std::string add(const std::string& a, const std::string& b) { return "(" + a + " " + b + ")"; }

// Eigen's SSE2 float redux of x[0..n-1] with `peel` coefficients before the first aligned packet.
std::string sse2_sum(std::size_t n, std::size_t peel) {
  const std::size_t size = n - peel, packets = size / 4, paired = size / 8 * 8;
  std::string lane[4];
  for (std::size_t j = 0; j < 4; ++j) {
    std::string r0 = leaf(peel + j), r1 = leaf(peel + 4 + j);
    for (std::size_t i = peel + 8; i < peel + paired; i += 8) {
      r0 = add(r0, leaf(i + j));
      r1 = add(r1, leaf(i + 4 + j));
    }
    lane[j] = add(r0, r1);
    if (packets * 4 > paired) lane[j] = add(lane[j], leaf(peel + paired + j));
  }
  std::string res = add(add(lane[0], lane[2]), add(lane[1], lane[3]));
  for (std::size_t k = 0; k < peel; ++k) res = add(res, leaf(k));
  for (std::size_t k = peel + packets * 4; k < n; ++k) res = add(res, leaf(k));
  return res;
}

#if defined(__x86_64__)
TEST(EigenBackend, BaselineFloatSumIsAnOrderMapOverOffsetsModuloFour) {
  const auto instance = eigen_backend().open({});
  EXPECT_EQ(instance->identity().platform_key, "x86-64");
  const auto target = make(*instance, {{"op", "sum"}, {"n", "20"}});
  const RevealResult at_zero = reveal(*target, quick());
  EXPECT_EQ(at_zero.tree, parse_sexpr(sse2_sum(20, 0)));
  const AlignmentResult result = check_alignment(*target, at_zero.map, quick());
  ASSERT_EQ(result.verdict, AlignmentVerdict::dependent);
  ASSERT_EQ(result.classes.size(), 4u);
  for (std::size_t c = 0; c < 4; ++c) {
    EXPECT_EQ(result.classes[c].placements.offsets, (std::vector<std::size_t>{c, c + 4, c + 8, c + 12}));
    const std::size_t peel = (4 - c) % 4;
    EXPECT_EQ(result.classes[c].map.classes[0].tree, parse_sexpr(sse2_sum(20, peel))) << "offset " << c;
  }
}

TEST(EigenBackend, V4BuildRunsOnlyWhereTheHostCan) {
  // The backend's own answer (host_facts), so the test and the backend never disagree about the host.
  const auto facts = eigen_backend().host_facts();
  const bool runs_v4 = !facts.empty() && facts[0].second == "this host can run it";
  if (!runs_v4) {
    try {
      eigen_backend().open({{"isa", "x86-64-v4"}});
      ADD_FAILURE() << "opened x86-64-v4 on a host that cannot run it";
    } catch (const BackendUnavailable& e) {
      EXPECT_EQ(e.reason(), Unavailability::host_cannot_run) << e.what();
    }
    GTEST_SKIP() << "this host cannot run x86-64-v4 code";
  }
  const auto instance = eigen_backend().open({{"isa", "x86-64-v4"}});
  EXPECT_EQ(instance->identity().platform_key, "x86-64-v4");
  EXPECT_NE(instance->identity().configuration.find("AVX512"), std::string::npos) << instance->identity().configuration;
  const auto target = make(*instance, {{"op", "sum"}, {"n", "100"}});
  const RevealResult at_zero = reveal(*target, quick());
  const AlignmentResult result = check_alignment(*target, at_zero.map, quick());
  EXPECT_EQ(result.verdict, AlignmentVerdict::dependent);
}
#endif

// Products: the matrix targets place A, x, C at the offset and pad the leading dimensions.
TEST(EigenBackend, GemvAndGemmHonourPlacements) {
  const auto instance = eigen_backend().open({});
  const auto gemv = make(*instance, {{"op", "gemv"}, {"m", "8"}, {"n", "12"}, {"dtype", "float64"}});
  EXPECT_EQ(gemv->info().alignment, AlignmentSupport::honours_offsets);
  EXPECT_TRUE(gemv->info().leading_dimensions);
  const RevealResult at_zero = reveal(*gemv, quick());
  const AlignmentResult result = check_alignment(*gemv, at_zero.map, quick());
  EXPECT_TRUE(result.checked());
  EXPECT_TRUE(result.padded);
  EXPECT_EQ(result.offsets, 8u);
}

TEST(EigenBackend, RefusesShapesThatDoNotApply) {
  const auto instance = eigen_backend().open({});
  EXPECT_THROW(instance->validate_case(resolve_params(instance->case_params(), {{"op", "gemv"}, {"n", "4"}}, "t")),
               ConfigError);
  EXPECT_THROW(instance->validate_case(
                   resolve_params(instance->case_params(), {{"op", "sum"}, {"n", "4"}, {"m", "2"}}, "t")),
               ConfigError);
}

}  // namespace
}  // namespace fprev
