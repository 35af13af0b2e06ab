// The shipped goldens are current: each is what the current writer writes for it, byte for byte,
// and carries every line `update` records today, so that `update` of a shipped suite on its
// platform changes no file (a reader would otherwise see 84 goldens rewritten by a format change,
// not by a change of order). Checked by reading, not revealing: cheap.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "fprev/golden.hpp"

namespace fprev {
namespace {

namespace fs = std::filesystem;
const fs::path kGolden = FPREV_SHIPPED_GOLDEN_DIR;

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The hour-long cases (label `long`, 10^6 summands): recorded before the alignment check existed,
// and re-recorded only with `update --label long` (an hour each); their orders are current.
const std::set<std::string> kRecordedBeforeAlignment = {
    "haswell-t1/blas-cpu/openblas-haswell/dot-float64-n1000000.golden",
    "sandybridge-t1/blas-cpu/openblas-sandybridge/dot-float64-n1000000.golden",
};

TEST(ShippedGoldens, AreWhatTheCurrentWriterWrites) {
  const GoldenListing listing = list_goldens(kGolden);
  ASSERT_GT(listing.goldens.size(), 500u);
  EXPECT_TRUE(listing.stray.empty());
  // The current version: what the writer puts on the first line of any golden.
  const Golden sample = read_golden(listing.goldens.front().path);
  const std::string current_version = first_line(write_golden_text(sample));
  for (const GoldenLocation& location : listing.goldens) {
    const std::string relative = location.path.lexically_relative(kGolden).generic_string();
    SCOPED_TRACE(relative);
    const std::string text = bytes_of(location.path);
    EXPECT_EQ(first_line(text), current_version);
    const Golden golden = parse_golden_text(text, relative);
    EXPECT_EQ(write_golden_text(golden), text) << "not in the current writer's canonical form";
    if (golden.finding) continue;  // a recorded finding has neither fingerprint nor alignment
    // update records the fingerprint of every class and the alignment verdict (docs/alignment.md)
    EXPECT_EQ(golden.fingerprints.size(), golden.map.classes.size()) << "no fingerprint (an older update)";
    if (kRecordedBeforeAlignment.count(relative) == 0) {
      EXPECT_TRUE(golden.alignment.has_value()) << "no alignment: line (recorded by an older update)";
    }
  }
}

}  // namespace
}  // namespace fprev
