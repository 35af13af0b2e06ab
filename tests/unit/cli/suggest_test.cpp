// "did you mean": typos of option and command names are matched, unrelated words are not.
#include "suggest.hpp"

#include <gtest/gtest.h>

namespace fprev::cli {
namespace {

const std::vector<std::string> kOptions = {"--suites", "--suite", "--golden", "--backend", "--case",
                                           "--json", "--strict", "--exclude-label"};

TEST(Suggest, EditDistanceCountsSwapsAsOne) {
  EXPECT_EQ(edit_distance("suite", "suite"), 0u);
  EXPECT_EQ(edit_distance("suite", "suit"), 1u);
  EXPECT_EQ(edit_distance("suite", "suiet"), 1u);  // two neighbours swapped
  EXPECT_EQ(edit_distance("golden", "gloden"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Suggest, TyposOfOptionsAreMatched) {
  EXPECT_EQ(closest_name("--suit", kOptions), "--suite");
  EXPECT_EQ(closest_name("--siute", kOptions), "--suite");
  EXPECT_EQ(closest_name("--gloden", kOptions), "--golden");
  EXPECT_EQ(closest_name("--backends", kOptions), "--backend");
  EXPECT_EQ(closest_name("--exclude-lable", kOptions), "--exclude-label");
  EXPECT_EQ(closest_name("--excl", kOptions), "--exclude-label");  // an abbreviation
  EXPECT_EQ(closest_name("--suit", kOptions), "--suite");  // not --suites, of which it is a prefix too
}

TEST(Suggest, UnrelatedWordsAreNotMatched) {
  EXPECT_EQ(closest_name("--colour", kOptions), std::nullopt);
  EXPECT_EQ(closest_name("--x", kOptions), std::nullopt);
  EXPECT_EQ(closest_name("--verbose", kOptions), std::nullopt);
}

TEST(Suggest, TwoEquallyCloseNamesGiveNoGuess) {
  // "--suitex" is one letter from both.
  EXPECT_EQ(closest_name("--suitex", {"--suitea", "--suiteb"}), std::nullopt);
}

TEST(Suggest, DidYouMeanPhrase) {
  EXPECT_EQ(did_you_mean("chek", {"check", "update", "list"}), " (did you mean check?)");
  EXPECT_EQ(did_you_mean("frobnicate", {"check", "update", "list"}), "");
}

}  // namespace
}  // namespace fprev::cli
