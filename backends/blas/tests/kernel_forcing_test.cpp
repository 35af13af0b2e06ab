// Forcing kernel families: several families in one process, each confirmed after loading, each
// giving its own trees; a family the library cannot force is an error that says what it runs; a
// library without families keeps the key of the family the instance names.
//
// The fake OpenBLAS (tests/toy/fake_openblas.cpp) makes this independent of the CPU: it reads
// OPENBLAS_CORETYPE when loaded, can be forced to Haswell (sums forwards) or Sandybridge
// (backwards), and runs Prescott (pairs) for any other name. The real OpenBLAS is checked against
// what it reports (openblas_get_corename) and against OpenBLAS's own forcing in separate processes
// by tests/e2e/blas_kernels_e2e.sh.
#include <gtest/gtest.h>

#include <cstdlib>

#include "blas_test_support.hpp"
#include "fprev/blas/kernel_family.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"

namespace fprev::blas {
namespace {

using testing::blas_backend;
using testing::iota_order;
using testing::sequential_tree;

std::unique_ptr<BackendInstance> open_kernel(const std::string& library, const std::string& kernel,
                                             int threads = 1) {
  unsetenv(kLibraryEnvironmentVariable);
  Params settings{{"library", library}, {"threads", std::to_string(threads)}};
  if (!kernel.empty()) settings["kernel"] = kernel;
  return blas_backend().open(settings);
}

Tree reveal_params(const BackendInstance& instance, const Params& params) {
  const auto target =
      instance.make_target(resolve_params(instance.case_params(), params, "test case"));
  return reveal(*target).tree;
}

Tree reveal_dot(const BackendInstance& instance, std::size_t n) {
  return reveal_params(instance, {{"op", "dot"}, {"n", std::to_string(n)}});
}

#define SKIP_UNLESS_THIS_CPU_RUNS(kernel)                                                      \
  if (!missing_features(*find_kernel_family(kernel), describe_cpu()).empty())                 \
  GTEST_SKIP() << "this CPU cannot run the " << kernel << " kernels"

std::vector<std::uint32_t> reversed(std::size_t n) {
  std::vector<std::uint32_t> order = iota_order(n);
  std::reverse(order.begin(), order.end());
  return order;
}

TEST(KernelForcing, TwoFamiliesInOneProcessRunTheirOwnKernels) {
  SKIP_UNLESS_THIS_CPU_RUNS("Haswell");
  const auto haswell = open_kernel(testing::fake_openblas(), "Haswell");
  const auto sandybridge = open_kernel(testing::fake_openblas(), "Sandybridge");
  // Interleaved: each instance keeps calling its own copy.
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(reveal_dot(*haswell, 9), sequential_tree(iota_order(9)));
    EXPECT_EQ(reveal_dot(*sandybridge, 9), sequential_tree(reversed(9)));
  }
  EXPECT_EQ(haswell->identity().platform_key, "haswell-t1");
  EXPECT_EQ(sandybridge->identity().platform_key, "sandybridge-t1");
  EXPECT_EQ(haswell->identity().details.at("kernel_family"), "Haswell");
  EXPECT_EQ(haswell->identity().details.at("kernel_forced_with"), "OPENBLAS_CORETYPE=Haswell");
  EXPECT_EQ(haswell->identity().details.at("kernel_confirmed_by"), "openblas_get_corename()");
}

TEST(KernelForcing, TheUnforcedCopyAndTheProcessEnvironmentAreLeftAlone) {
  SKIP_UNLESS_THIS_CPU_RUNS("Haswell");
  unsetenv("OPENBLAS_CORETYPE");
  const auto forced = open_kernel(testing::fake_openblas(), "Haswell");
  EXPECT_EQ(std::getenv("OPENBLAS_CORETYPE"), nullptr);
  const auto own = open_kernel(testing::fake_openblas(), "");
  EXPECT_EQ(own->identity().details.at("kernel_family"), "Prescott");
  EXPECT_EQ(own->identity().platform_key, "prescott-t1");
  // Prescott adds pairs, then the pairs one after the other.
  TreeBuilder pairs(4);
  const NodeId first = pairs.add_node({0, 1});
  const NodeId second = pairs.add_node({2, 3});
  pairs.add_node({first, second});
  EXPECT_EQ(reveal_dot(*own, 4), pairs.build());
  EXPECT_EQ(reveal_dot(*forced, 4), sequential_tree(iota_order(4)));
}

TEST(KernelForcing, AFamilyTheLibraryDoesNotRunIsAnErrorSayingWhatItRuns) {
  SKIP_UNLESS_THIS_CPU_RUNS("Nehalem");
  for (int attempt = 0; attempt < 2; ++attempt) {  // the second from the cache: the same answer
    try {
      open_kernel(testing::fake_openblas(), "Nehalem");
      FAIL() << "the fake OpenBLAS cannot run Nehalem, yet the instance opened";
    } catch (const BackendUnavailable& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.reason(), Unavailability::unusable) << message;
      EXPECT_NE(message.find("asked for the Nehalem kernels (OPENBLAS_CORETYPE=Nehalem) but runs "
                             "'Prescott'"),
                std::string::npos)
          << message;
      EXPECT_NE(message.find(testing::fake_openblas()), std::string::npos) << message;
    }
  }
}

TEST(KernelForcing, OpenBlasRunsEachRequestedFamilyInOneProcess) {
  std::vector<std::string> families;
  for (const std::string kernel : {"Haswell", "SkylakeX", "Sandybridge"})
    if (missing_features(*find_kernel_family(kernel), describe_cpu()).empty())
      families.push_back(kernel);
  if (families.size() < 2) GTEST_SKIP() << "this CPU runs fewer than two of the families";
  std::vector<Tree> trees;
  for (const auto& kernel : families) {
    const auto instance = open_kernel("openblas", kernel, 2);
    const Identity id = instance->identity();
    EXPECT_EQ(id.details.at("core"), kernel);
    EXPECT_EQ(id.details.at("kernel_family"), kernel);
    EXPECT_NE(id.configuration.find(kernel), std::string::npos) << id.configuration;
    EXPECT_EQ(id.platform_key, std::string(find_kernel_family(kernel)->key) + "-t2");
    EXPECT_EQ(id.details.at("threads"), "2");
    // The k-blocking of sgemm differs between these families (GEMM_Q and the small-matrix path).
    trees.push_back(reveal_params(*open_kernel("openblas", kernel),
                                  {{"op", "gemm"}, {"m", "64"}, {"n", "8"}, {"k", "1001"}}));
  }
  for (std::size_t a = 0; a < trees.size(); ++a)
    for (std::size_t b = a + 1; b < trees.size(); ++b)
      EXPECT_NE(trees[a], trees[b]) << families[a] << " and " << families[b];
}

TEST(KernelForcing, BlisRunsTheConfigurationOfTheFamily) {
  SKIP_UNLESS_THIS_CPU_RUNS("Haswell");
  std::unique_ptr<BackendInstance> haswell;
  try {
    haswell = open_kernel("blis", "Haswell");
  } catch (const BackendUnavailable& e) {
    if (e.reason() != Unavailability::not_installed) throw;
    GTEST_SKIP() << "BLIS is not installed: " << e.what();
  }
  EXPECT_EQ(haswell->identity().details.at("kernel_family"), "haswell");
  EXPECT_EQ(haswell->identity().details.at("arch"), "haswell");
  EXPECT_EQ(haswell->identity().platform_key, "haswell-t1");
  EXPECT_EQ(haswell->identity().details.at("kernel_confirmed_by"),
            "bli_arch_query_id() after bli_init");
  if (missing_features(*find_kernel_family("SkylakeX"), describe_cpu(), true).empty()) {
    const auto skx = open_kernel("blis", "SkylakeX", 2);
    EXPECT_EQ(skx->identity().details.at("kernel_family"), "skx");
    EXPECT_EQ(skx->identity().platform_key, "skylakex-t2");
    EXPECT_EQ(skx->identity().details.at("threads"), "2");
  }
  try {
    open_kernel("blis", "Cooperlake");
    ADD_FAILURE() << "BLIS has no Cooperlake configuration, yet the instance opened";
  } catch (const BackendUnavailable& e) {
    // On a CPU without AVX-512 BF16 the feature check answers first.
    EXPECT_TRUE(e.reason() == Unavailability::unsupported_setting ||
                e.reason() == Unavailability::host_cannot_run)
        << e.what();
  }
}

TEST(KernelForcing, ALibraryWithoutFamiliesKeepsTheKeyOfTheFamilyNamed) {
  // The toy (like the netlib reference BLAS) runs one code path on every CPU: compared with the
  // goldens of the family the instance names, which makes swapping it in a test on any runner.
  SKIP_UNLESS_THIS_CPU_RUNS("Haswell");
  const Identity id = open_kernel(testing::toy_library(), "Haswell")->identity();
  EXPECT_EQ(id.platform_key, "haswell-t1");
  EXPECT_NE(id.details.at("kernel_family").find("none to select"), std::string::npos);
  EXPECT_EQ(open_kernel(testing::toy_library(), "")->identity().platform_key, "generic-t1");
}

}  // namespace
}  // namespace fprev::blas
