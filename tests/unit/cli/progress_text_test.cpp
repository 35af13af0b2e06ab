// The progress line of a long case: probes done of the model's expectation, the time so far, and
// the time left at the rate so far; past the expectation it says so instead of a negative time.
#include <gtest/gtest.h>

#include "report/progress_text.hpp"

namespace fprev::cli {
namespace {

Progress progress(std::size_t done, std::size_t expected, double seconds) {
  Progress p;
  p.probes_done = done;
  p.probes_expected = expected;
  p.seconds = seconds;
  return p;
}

TEST(ProgressText, TimeLeftFromTheRateSoFar) {
  EXPECT_EQ(progress_text(progress(500000, 2000000, 120)), "500000 of ~2000000 probes, 2 min, about 6 min left");
}

TEST(ProgressText, PastTheEstimate) {
  EXPECT_EQ(progress_text(progress(2500000, 2000000, 42)), "2500000 of ~2000000 probes, 42 s, past the estimate");
}

TEST(ProgressText, NothingDoneYetGivesNoTimeLeft) {
  EXPECT_EQ(progress_text(progress(0, 2000000, 1.5)), "0 of ~2000000 probes, 2 s");
}

}  // namespace
}  // namespace fprev::cli
