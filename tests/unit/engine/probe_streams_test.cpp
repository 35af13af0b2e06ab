// Probe streams: the independent probes of a wave measured on several target instances at once
// give the tree, the probes and the target calls of a serial reveal, and a failure the serial
// reveal's diagnostic.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "engine_test_helpers.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

TEST(ProbeStreams, SameTreeProbesAndCallsAsSerial) {
  for (const Tree& truth : {left_deep_tree(3000), right_deep_tree(2000), balanced_tree(4096),
                            random_binary_tree(2500, 7), random_multiway_tree(2000, 6, 11)}) {
    for (std::size_t batch : {std::size_t{1}, std::size_t{7}}) {
      TreeOracleTarget serial_target(truth, std::nullopt, batch);
      RevealOptions serial_options;
      const RevealResult serial = reveal(serial_target, serial_options);

      TreeOracleTarget target(truth, std::nullopt, batch);
      std::atomic<std::size_t> made{0};
      RevealOptions options;
      options.streams = 4;
      options.make_worker = [&] {
        ++made;
        return std::unique_ptr<Target>(std::make_unique<TreeOracleTarget>(truth, std::nullopt, batch));
      };
      const RevealResult parallel = reveal(target, options);
      EXPECT_EQ(parallel.tree, truth);
      EXPECT_EQ(parallel.tree, serial.tree);
      EXPECT_EQ(parallel.stats.probes, serial.stats.probes);
      EXPECT_EQ(parallel.stats.target_calls, serial.stats.target_calls);
      EXPECT_EQ(parallel.stats.value_inputs, serial.stats.value_inputs);
      EXPECT_EQ(parallel.stats.streams, 4u);
      EXPECT_EQ(made.load(), 3u);
      // The caller's target answered only part of the probes: the workers took the rest.
      EXPECT_LT(target.probes_evaluated, parallel.stats.probes);
    }
  }
}

TEST(ProbeStreams, SmallWavesStaySerialAndMakeNoWorkers) {
  const Tree truth = balanced_tree(16);
  TreeOracleTarget target(truth);
  std::size_t made = 0;
  RevealOptions options;
  options.streams = 8;
  options.make_worker = [&] {
    ++made;
    return std::unique_ptr<Target>(std::make_unique<TreeOracleTarget>(truth));
  };
  const RevealResult result = reveal(target, options);
  EXPECT_EQ(result.tree, truth);
  EXPECT_EQ(made, 0u);
  EXPECT_EQ(result.stats.streams, 1u);
  EXPECT_EQ(target.probes_evaluated, result.stats.probes);
}

TEST(ProbeStreams, OneStreamOrNoFactoryIsSerial) {
  const Tree truth = left_deep_tree(2000);
  TreeOracleTarget target(truth);
  RevealOptions options;
  options.streams = 4;  // no factory: nothing to run the other streams on
  const RevealResult result = reveal(target, options);
  EXPECT_EQ(result.tree, truth);
  EXPECT_EQ(result.stats.streams, 1u);
  EXPECT_EQ(target.probes_evaluated, result.stats.probes);
}

// A count beyond the active units for one pair, met in a worker's part of the first wave (the pair
// (0, 1500) of 2000 leaves falls to the third of three streams): the exception crosses the thread
// and is the serial reveal's diagnostic, probe and raw output included.
TEST(ProbeStreams, AFailureOnAWorkerIsTheSerialDiagnostic) {
  const Tree truth = left_deep_tree(2000);
  TreeOracleTarget serial_target(truth);
  serial_target.set_wrong_count(0, 1500, 5000);
  std::string serial_message;
  try {
    reveal(serial_target);
    FAIL() << "the wrong count went unnoticed";
  } catch (const RevealFailure& e) {
    serial_message = e.what();
    EXPECT_EQ(e.diagnostic().finding, Finding::count_out_of_range);
  }

  TreeOracleTarget target(truth);
  target.set_wrong_count(0, 1500, 5000);
  RevealOptions options;
  options.streams = 3;
  options.make_worker = [&] {
    auto worker = std::make_unique<TreeOracleTarget>(truth);
    worker->set_wrong_count(0, 1500, 5000);
    return std::unique_ptr<Target>(std::move(worker));
  };
  try {
    reveal(target, options);
    FAIL() << "the wrong count went unnoticed with streams";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(std::string(e.what()), serial_message);
  }
}

TEST(ProbeStreams, AWorkerOfAnotherShapeIsRefused) {
  TreeOracleTarget target(left_deep_tree(2000));
  RevealOptions options;
  options.streams = 2;
  options.make_worker = [] { return std::unique_ptr<Target>(std::make_unique<TreeOracleTarget>(left_deep_tree(1999))); };
  try {
    reveal(target, options);
    FAIL() << "a worker with another n was used";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::target_error);
  }
}

TEST(ProbeStreams, AnExhaustedBudgetStopsTheReveal) {
  TreeOracleTarget target(left_deep_tree(4000));
  RevealOptions options;
  options.max_seconds = 1e-9;  // past before the first probe call returns
  EXPECT_THROW(reveal(target, options), RevealOverBudget);
}

}  // namespace
}  // namespace fprev
