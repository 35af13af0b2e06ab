// fprev-golden review with scripted answers: each pending result is shown (what changed, the diff)
// and accepted, rejected or skipped as answered; pictures are written on request; the end of the
// input or quit leave the rest pending; a refused accept changes nothing and counts as a failure.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fprev/sexpr.hpp"
#include "pending_selection.hpp"
#include "review_session.hpp"

namespace fprev::cli {
namespace {
namespace fs = std::filesystem;

Golden result(const std::string& case_id, const std::string& sexpr) {
  Golden golden;
  golden.meta.suite = "s";
  golden.meta.case_id = case_id;
  golden.meta.backend = "ref";
  golden.meta.platform_key = "any";
  golden.meta.library = "reference";
  golden.meta.library_version = case_id == "c" ? "2.0" : "1.0";
  golden.meta.tool_version = "0.1.0";
  golden.meta.created = "2024-01-02T03:04:05Z";
  golden.map = OrderMap::uniform({}, parse_sexpr(sexpr));
  return golden;
}

Golden finding(const std::string& case_id) {
  Golden golden = result(case_id, "(0 1)");
  golden.map = {};
  golden.finding = RecordedFinding{Finding::nondeterministic, "outputs differ between runs", "", ""};
  return golden;
}

class Review : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("fprev-review-test-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  PendingStore store() const { return PendingStore(dir_ / "golden"); }
  fs::path golden_file(const std::string& case_id) const {
    return golden_path(dir_ / "golden", "s", "ref", "any", case_id);
  }
  // A golden `old` and check's pending result `now` for a case.
  void pending(const std::string& case_id, const std::string& old, const std::string& now) const {
    if (!old.empty()) write_golden_file(golden_file(case_id), result(case_id, old));
    store().keep(result(case_id, now));
  }
  std::string tree_of(const std::string& case_id) const { return to_sexpr(read_golden(golden_file(case_id)).tree()); }

  ReviewCounts review(const std::string& answers, std::string& transcript, ReviewSettings settings = {}) const {
    settings.echo = true;
    if (settings.picture_directory.empty()) settings.picture_directory = dir_ / "pictures";
    fs::create_directories(settings.picture_directory);
    std::istringstream in(answers);
    std::ostringstream out;
    const PendingStore s = store();
    ReviewSession session(s, in, out, settings);
    const ReviewCounts counts = session.run(s.list().files);
    transcript = out.str();
    return counts;
  }

  static std::size_t occurrences(const std::string& text, const std::string& needle) {
    std::size_t count = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
    return count;
  }

  fs::path dir_;
};

TEST_F(Review, ScriptedAnswersAcceptRejectAndSkip) {
  pending("a", "((0 1) (2 3))", "(((0 1) 2) 3)");
  pending("b", "((0 1) (2 3))", "(0 (1 (2 3)))");
  pending("c", "((0 1) (2 3))", "((0 2) (1 3))");
  std::string transcript;
  const ReviewCounts counts = review("a\nr\ns\n", transcript);
  EXPECT_EQ(counts.accepted, 1u);
  EXPECT_EQ(counts.rejected, 1u);
  EXPECT_EQ(counts.left, 1u);
  EXPECT_EQ(counts.failed, 0u);
  EXPECT_EQ(tree_of("a"), "(((0 1) 2) 3)");
  EXPECT_EQ(tree_of("b"), "((0 1) (2 3))");
  EXPECT_EQ(tree_of("c"), "((0 1) (2 3))");
  const PendingListing left = store().list();
  ASSERT_EQ(left.files.size(), 1u);
  EXPECT_EQ(left.files[0].location.case_id, "c");

  EXPECT_NE(transcript.find("[1/3] reproducibility/s/ref/a on platform any"), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("[3/3] reproducibility/s/ref/c"), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("the summation tree changed: 2 of 3 inner nodes agree"), std::string::npos) << transcript;
  // The diff shows both versions of the differing subtree of case c.
  EXPECT_NE(transcript.find("((0 2) (1 3))"), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("pending: reference 2.0, kept by check at 2024-01-02T03:04:05Z"), std::string::npos)
      << transcript;
  EXPECT_NE(transcript.find("accepted: " + golden_file("a").string() + " changed"), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("rejected: removed"), std::string::npos) << transcript;
  EXPECT_EQ(occurrences(transcript, "accept [a], reject [r]"), 3u);
  EXPECT_EQ(review_summary(counts), "1 accepted, 1 rejected, 1 left pending");
}

TEST_F(Review, TheEndOfTheInputOrQuitLeavesTheRestPending) {
  pending("a", "((0 1) (2 3))", "(((0 1) 2) 3)");
  pending("b", "((0 1) (2 3))", "(0 (1 (2 3)))");
  pending("c", "((0 1) (2 3))", "((0 2) (1 3))");
  std::string transcript;
  ReviewCounts counts = review("a\n", transcript);
  EXPECT_EQ(counts.accepted, 1u);
  EXPECT_EQ(counts.left, 2u);
  EXPECT_NE(transcript.find("end of input"), std::string::npos) << transcript;
  EXPECT_EQ(store().list().files.size(), 2u);

  counts = review("quit\n", transcript);
  EXPECT_EQ(counts.left, 2u);
  EXPECT_EQ(counts.accepted + counts.rejected, 0u);
  EXPECT_NE(transcript.find("the remaining 2 pending result(s) stay pending"), std::string::npos) << transcript;
  EXPECT_EQ(store().list().files.size(), 2u);
}

TEST_F(Review, HelpAndUnknownAnswersAskAgain) {
  pending("a", "((0 1) (2 3))", "(((0 1) 2) 3)");
  std::string transcript;
  const ReviewCounts counts = review("?\nyes\n\n  S  \n", transcript);
  EXPECT_EQ(counts.left, 1u);
  EXPECT_NE(transcript.find("unknown answer 'yes'"), std::string::npos) << transcript;
  EXPECT_EQ(occurrences(transcript, "reject: remove the pending file"), 2u) << transcript;
  EXPECT_EQ(occurrences(transcript, "accept [a], reject [r]"), 4u) << transcript;
  EXPECT_EQ(tree_of("a"), "((0 1) (2 3))");
}

TEST_F(Review, APictureIsWrittenOnRequest) {
  pending("a", "((0 1) (2 3))", "(((0 1) 2) 3)");
  std::string transcript;
  review("p\ns\n", transcript);
  std::vector<fs::path> pictures;
  for (const auto& entry : fs::directory_iterator(dir_ / "pictures")) pictures.push_back(entry.path());
  ASSERT_EQ(pictures.size(), 1u) << transcript;
  std::ifstream in(pictures[0]);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  if (pictures[0].extension() == ".svg") {
    EXPECT_NE(text.find("<svg"), std::string::npos);
    EXPECT_NE(transcript.find("picture: " + pictures[0].string()), std::string::npos) << transcript;
  } else {  // no Graphviz here: the DOT text
    EXPECT_EQ(pictures[0].extension(), ".dot");
    EXPECT_EQ(text.rfind("digraph", 0), 0u) << text.substr(0, 80);
    EXPECT_NE(transcript.find(pictures[0].string()), std::string::npos) << transcript;
  }
}

TEST_F(Review, ANewGoldenShowsTheResultAndAcceptingCreatesIt) {
  pending("new", "", "((0 1) 2)");
  std::string transcript;
  const ReviewCounts counts = review("a\n", transcript);
  EXPECT_EQ(counts.accepted, 1u);
  EXPECT_NE(transcript.find("no golden yet: accepting creates " + golden_file("new").string()), std::string::npos)
      << transcript;
  EXPECT_NE(transcript.find("result:  3 leaves"), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("created"), std::string::npos) << transcript;
  EXPECT_EQ(tree_of("new"), "((0 1) 2)");
}

TEST_F(Review, AnAcceptRefusedBecauseTheGoldenChangedChangesNothing) {
  pending("a", "((0 1) (2 3))", "(((0 1) 2) 3)");
  write_golden_file(golden_file("a"), result("a", "(0 (1 (2 3)))"));  // changed since check
  std::string transcript;
  const ReviewCounts counts = review("a\ns\n", transcript);
  EXPECT_EQ(counts.accepted, 0u);
  EXPECT_EQ(counts.left, 1u);
  EXPECT_EQ(counts.failed, 1u);
  EXPECT_NE(transcript.find("note: the golden changed since check kept this result"), std::string::npos)
      << transcript;
  EXPECT_NE(transcript.find("not accepted:"), std::string::npos) << transcript;
  EXPECT_EQ(tree_of("a"), "(0 (1 (2 3)))");
  EXPECT_EQ(store().list().files.size(), 1u);

  ReviewSettings force;
  force.force = true;
  EXPECT_EQ(review("a\n", transcript, force).accepted, 1u);
  EXPECT_EQ(tree_of("a"), "(((0 1) 2) 3)");
}

TEST_F(Review, AFindingIsShownAndHasNoPicture) {
  write_golden_file(golden_file("a"), result("a", "(0 1)"));
  store().keep(finding("a"));
  std::string transcript;
  const ReviewCounts counts = review("p\nr\n", transcript);
  EXPECT_EQ(counts.rejected, 1u);
  EXPECT_NE(transcript.find("the target misbehaves: "), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("nothing to draw: the pending result records a finding"), std::string::npos)
      << transcript;
  EXPECT_TRUE(fs::is_empty(dir_ / "pictures"));
}

TEST_F(Review, AFileThatIsNotAPendingResultIsReportedAndSkipped) {
  pending("b", "((0 1) (2 3))", "(((0 1) 2) 3)");
  const fs::path bad = store().locate("s", "ref", "any", "a").location.path;  // listed first
  std::ofstream(bad) << "not a golden\n";
  std::string transcript;
  const ReviewCounts counts = review("a\n", transcript);
  EXPECT_EQ(counts.failed, 1u);
  EXPECT_EQ(counts.accepted, 1u);  // the answer went to the next, valid one
  EXPECT_NE(transcript.find("cannot review " + bad.string()), std::string::npos) << transcript;
  EXPECT_TRUE(fs::exists(bad));
  EXPECT_EQ(tree_of("b"), "(((0 1) 2) 3)");
}

TEST_F(Review, TheChangeLineNamesWhatAcceptingDoes) {
  write_golden_file(golden_file("a"), result("a", "((0 1) 2)"));
  EXPECT_EQ(pending_change(store().locate("s", "ref", "any", "a"), result("a", "((0 1) 2)")),
            "the golden already holds this result: accepting leaves it as it is");
  EXPECT_EQ(pending_change(store().locate("s", "ref", "any", "a"), finding("a")).rfind("the target misbehaves: ", 0),
            0u);
  write_golden_file(golden_file("b"), finding("b"));
  EXPECT_EQ(pending_change(store().locate("s", "ref", "any", "b"), result("b", "((0 1) 2)"))
                .rfind("the recorded finding changed: ", 0),
            0u);
  std::ofstream(golden_file("a")) << "garbage\n";
  EXPECT_EQ(pending_change(store().locate("s", "ref", "any", "a"), result("a", "((0 1) 2)"))
                .rfind("the golden does not parse: accepting replaces it", 0),
            0u);
}

}  // namespace
}  // namespace fprev::cli

namespace fprev::cli {
namespace {

TEST_F(Review, APictureInTheTemporaryDirectoryIsRemovedWhenTheSessionEnds) {
  pending("a", "((0 1) (2 3))", "(((0 1) 2) 3)");
  const fs::path tmp = dir_ / "tmp";
  fs::create_directories(tmp);
  const char* saved = std::getenv("TMPDIR");
  const std::string saved_value = saved != nullptr ? saved : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  std::ostringstream out;
  {
    std::istringstream in("p\ns\n");
    const PendingStore s = store();
    ReviewSession session(s, in, out, ReviewSettings{});
    session.run(s.list().files);
    EXPECT_FALSE(fs::is_empty(tmp)) << "the picture is there while the session runs";
  }
  if (saved != nullptr) ::setenv("TMPDIR", saved_value.c_str(), 1);
  else ::unsetenv("TMPDIR");
  EXPECT_NE(out.str().find("removed when review ends"), std::string::npos) << out.str();
  EXPECT_TRUE(fs::is_empty(tmp)) << "the session removed its temporary pictures";
}

TEST(PendingOrder, NumbersCompareByValue) {
  EXPECT_TRUE(natural_path_less("g/s/b/dot-n17.golden.new", "g/s/b/dot-n1000.golden.new"));
  EXPECT_FALSE(natural_path_less("g/s/b/dot-n1000.golden.new", "g/s/b/dot-n17.golden.new"));
  EXPECT_TRUE(natural_path_less("dot-n17", "gemm-n1"));  // letters first
  EXPECT_TRUE(natural_path_less("x7-b", "x007-c"));       // leading zeros do not count
  EXPECT_FALSE(natural_path_less("same-n3", "same-n3"));
  EXPECT_TRUE(natural_path_less("a-n3", "a-n3-t2"));       // a prefix first
}

}  // namespace
}  // namespace fprev::cli
