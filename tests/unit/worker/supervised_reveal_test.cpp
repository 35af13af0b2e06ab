// Supervised workers (fprev/worker.hpp): a backend served by fprev-golden-worker in another process
// reveals exactly what the same backend reveals in-process (tree, probes, target calls,
// fingerprint: the runs of calls only change the transport), and the worker's replies come back as
// the framework's own exceptions. The worker serves our reference and tcsim kernels here, whose
// ground truth is known; the fault tests (crashes, exits, hangs, memory) are tests/e2e/worker_faults_e2e.sh.
#include <gtest/gtest.h>

#include <cstdlib>

#include "fprev/backend.hpp"
#include "fprev/fingerprint.hpp"
#include "fprev/probe_streams.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"
#include "fprev/worker.hpp"

namespace fprev {
namespace {

class SupervisedReveal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ::setenv("FPREV_WORKER_PROGRAM", FPREV_WORKER_PROGRAM_PATH, 1); }

  const Backend& in_process(std::string_view name) { return *builtin_backends_in_process().find(name); }
  std::unique_ptr<Backend> supervised(std::string_view name) {
    return supervised_backend(in_process(name), native_worker_command(name));
  }

  // Reveals the case both ways and checks that everything the engine counts or returns agrees.
  void expect_same_reveal(std::string_view backend, const Params& settings, const Params& case_params,
                          std::size_t streams = 1) {
    const auto local = in_process(backend).open(settings);
    const auto proxy_backend = supervised(backend);
    const auto remote = proxy_backend->open(settings);
    EXPECT_EQ(local->identity().platform_key, remote->identity().platform_key);
    const Params resolved = resolve_params(local->case_params(), case_params, "test");
    auto local_target = local->make_target(resolved);
    auto remote_target = remote->make_target(resolved);
    EXPECT_EQ(local_target->info().description, remote_target->info().description);
    EXPECT_EQ(local_target->info().n, remote_target->info().n);
    EXPECT_EQ(local_target->info().grid, remote_target->info().grid);
    RevealOptions a, b;
    use_probe_streams(a, streams, *local, resolved);
    use_probe_streams(b, streams, *remote, resolved);
    const RevealResult mine = reveal(*local_target, a);
    const RevealResult theirs = reveal(*remote_target, b);
    ASSERT_EQ(mine.map.classes.size(), theirs.map.classes.size());
    for (std::size_t k = 0; k < mine.map.classes.size(); ++k)
      EXPECT_EQ(to_sexpr(mine.map.classes[k].tree), to_sexpr(theirs.map.classes[k].tree));
    EXPECT_EQ(mine.stats.probes, theirs.stats.probes);
    EXPECT_EQ(mine.stats.target_calls, theirs.stats.target_calls);
    EXPECT_EQ(mine.stats.value_inputs, theirs.stats.value_inputs);
    const auto f1 = measure_map_fingerprints(*local_target, mine.map);
    const auto f2 = measure_map_fingerprints(*remote_target, theirs.map);
    ASSERT_EQ(f1.size(), f2.size());
    for (std::size_t k = 0; k < f1.size(); ++k) EXPECT_EQ(f1[k].digest(), f2[k].digest());
  }
};

TEST_F(SupervisedReveal, SingleOutputOrdersAreThoseOfTheInProcessTarget) {
  for (const char* order : {"sequential", "reverse", "pairwise", "strided_pairwise"})
    expect_same_reveal("reference", {}, {{"op", "sum"}, {"order", order}, {"n", "100"}});
  expect_same_reveal("reference", {}, {{"op", "dot"}, {"order", "strided_pairwise"}, {"n", "333"}});
}

TEST_F(SupervisedReveal, ProbeStreamsAreOneWorkerEach) {
  expect_same_reveal("reference", {}, {{"op", "sum"}, {"order", "strided_pairwise"}, {"n", "2000"}}, 3);
}

TEST_F(SupervisedReveal, GridTargetsGiveTheSameOrderMap) {
  expect_same_reveal("tcsim", {{"arch", "hopper"}},
                     {{"op", "gemm"}, {"dtype", "float16"}, {"m", "16"}, {"n", "8"}, {"k", "40"}});
}

// The fingerprint's packed calls name a block of b for every column (ValueBatch::column_factors,
// the worker protocol's column_calls and column_factors sections): through the worker they give
// the in-process fingerprints, in the same calls, fewer than unpacked.
TEST_F(SupervisedReveal, PackedFingerprintCallsGiveTheInProcessFingerprints) {
  const Params settings = {{"library", "openblas"}};
  std::unique_ptr<BackendInstance> local;
  try {
    local = in_process("blas").open(settings);
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no OpenBLAS here: " << e.what();
  }
  const auto proxy_backend = supervised("blas");
  const auto remote = proxy_backend->open(settings);
  const Params resolved =
      resolve_params(local->case_params(), {{"op", "gemm"}, {"m", "64"}, {"n", "32"}, {"k", "33"}}, "test");
  auto local_target = local->make_target(resolved);
  auto remote_target = remote->make_target(resolved);
  ASSERT_TRUE(remote_target->info().column_right_factors) << "the capability crosses the protocol";
  const RevealResult mine = reveal(*local_target);
  const RevealResult theirs = reveal(*remote_target);
  FingerprintStats local_stats, remote_stats, unpacked_stats;
  const auto f1 = measure_map_fingerprints(*local_target, mine.map, &local_stats, &mine.stats);
  const auto f2 = measure_map_fingerprints(*remote_target, theirs.map, &remote_stats, &theirs.stats);
  measure_map_fingerprints(*remote_target, theirs.map, &unpacked_stats);
  ASSERT_EQ(f1.size(), f2.size());
  for (std::size_t k = 0; k < f1.size(); ++k) {
    EXPECT_EQ(f1[k].digest(), f2[k].digest());
    EXPECT_EQ(f1[k].facts, f2[k].facts);
  }
  EXPECT_EQ(local_stats.target_calls, remote_stats.target_calls);
  EXPECT_LT(remote_stats.target_calls, unpacked_stats.target_calls);
}

TEST_F(SupervisedReveal, ReplyErrorsComeBackAsTheFrameworksExceptions) {
  const auto backend = supervised("reference");
  const auto instance = backend->open({});
  // A case the instance refuses: the worker's ConfigError, with its parameter.
  try {
    instance->validate_case({{"op", "sum"}, {"order", "no_such_order"}, {"n", "100"}});
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.parameter(), "order") << e.what();
  }
  // The same worker still serves the next request.
  EXPECT_NO_THROW(instance->make_target(resolve_params(instance->case_params(),
                                                       {{"op", "sum"}, {"order", "sequential"}, {"n", "5"}}, "t")));
}

TEST_F(SupervisedReveal, AMissingWorkerProgramIsAnUnusableBackendNotACrash) {
  const auto backend = supervised_backend(in_process("reference"),
                                          {{"/nonexistent/fprev-golden-worker", "--backend", "reference"}, {}});
  try {
    backend->open({});
    FAIL() << "opened without a worker";
  } catch (const BackendUnavailable& e) {
    EXPECT_EQ(e.reason(), Unavailability::unusable);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/fprev-golden-worker"), std::string::npos) << e.what();
  }
}

TEST_F(SupervisedReveal, AWorkerThatDiesBeforeItsHelloIsANamedFault) {
  // /bin/true exits at once: it never says hello.
  const auto backend = supervised_backend(in_process("reference"), {{"/bin/true"}, {}});
  try {
    backend->open({});
    FAIL() << "opened without a hello";
  } catch (const TargetFault& e) {
    EXPECT_EQ(e.fault(), "exited (status 0)") << e.what();
  }
}

}  // namespace
}  // namespace fprev
