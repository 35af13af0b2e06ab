// Probe streams on a real library: OpenBLAS (Sandybridge kernels, one thread) revealed with several
// instances of a dot target measuring probes at once gives the serial reveal's tree, probes and
// calls; instances with more than one library thread are never run side by side.
#include <gtest/gtest.h>

#include "blas_test_support.hpp"
#include "fprev/probe_streams.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"

namespace fprev::blas {
namespace {

using testing::open_openblas_family;
using testing::resolved;

TEST(BlasProbeStreams, ParallelRevealEqualsSerial) {
  const auto instance = open_openblas_family("Sandybridge");
  for (const char* dtype : {"float32", "float64"}) {
    const Params params = resolved(*instance, {{"op", "dot"}, {"dtype", dtype}, {"n", "20000"}});
    const auto serial_target = instance->make_target(params);
    const RevealResult serial = reveal(*serial_target);

    RevealOptions options;
    use_probe_streams(options, 3, *instance, params);
    ASSERT_EQ(options.streams, 3u);
    const auto target = instance->make_target(params);
    const RevealResult parallel = reveal(*target, options);
    EXPECT_EQ(parallel.stats.streams, 3u) << dtype;
    EXPECT_EQ(parallel.tree, serial.tree) << dtype << ": " << to_sexpr(parallel.tree).substr(0, 200);
    EXPECT_EQ(parallel.stats.probes, serial.stats.probes) << dtype;
    EXPECT_EQ(parallel.stats.target_calls, serial.stats.target_calls) << dtype;
  }
}

TEST(BlasProbeStreams, TwoLibraryThreadsMeanOneStream) {
  std::unique_ptr<BackendInstance> instance;
  try {
    instance = open_openblas_family("Sandybridge", 2);
  } catch (const BackendUnavailable& e) {
    GTEST_SKIP() << e.what();
  }
  const Params params = resolved(*instance, {{"op", "dot"}, {"n", "1000"}});
  EXPECT_EQ(instance->concurrent_targets(params), 1u);
  EXPECT_EQ(choose_streams(8, *instance, params), 1u);
  EXPECT_EQ(open_openblas_family("Sandybridge", 1)->concurrent_targets(params), BackendInstance::kUnboundedTargets);
}

}  // namespace
}  // namespace fprev::blas
