// check keeps the revealed result of every case that needs accepting as a pending file, and only
// those: what it keeps is what update would write (accepting it makes check pass again), a case
// that passes leaves none behind, update removes the case's pending file. Obsolete goldens are
// deleted only when they read as goldens of their paths.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fprev/runner.hpp"
#include "gate_fixture.hpp"
#include "fprev/sexpr.hpp"

namespace fprev {
namespace {
namespace fs = std::filesystem;

using gate_test::pairwise_sum_suite;

class PendingGate : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = gate_test::scratch_directory("fprev-pending-gate");
    suite_ = pairwise_sum_suite();
    ASSERT_EQ(suite_.cases.size(), 1u);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path golden_root() const { return dir_ / "golden"; }
  PendingStore store() const { return PendingStore(golden_root()); }
  Runner runner(bool pending) const {
    RunnerOptions options;
    options.golden_root = golden_root();
    options.tool_version = "test";
    if (pending) options.pending = store();
    return Runner(builtin_backends(), options);
  }
  CaseResult check(bool pending = true) const { return runner(pending).check(suite_, suite_.cases[0]); }
  CaseResult update(bool pending = true) const { return runner(pending).update(suite_, suite_.cases[0]); }
  fs::path golden_file() const { return golden_path(golden_root(), "s", "ref", "any", suite_.cases[0].id); }
  fs::path pending_file() const { return store().locate("s", "ref", "any", suite_.cases[0].id).location.path; }

  // Replaces the golden's tree by another one over the same leaves (an older library's order).
  void record_other_tree() const {
    Golden golden = read_golden(golden_file());
    golden.map = OrderMap::uniform(golden.map.grid, parse_sexpr("(((((((0 1) 2) 3) 4) 5) 6) 7)"));
    golden.fingerprints.clear();
    write_golden_file(golden_file(), golden);
  }

  fs::path dir_;
  Suite suite_;
};

TEST_F(PendingGate, AMissingGoldenKeepsWhatUpdateWouldWrite) {
  const CaseResult r = check();
  ASSERT_EQ(r.status, CaseStatus::missing_golden) << r.message;
  EXPECT_EQ(r.pending_path, pending_file());
  EXPECT_TRUE(r.pending_error.empty()) << r.pending_error;
  const Golden pending = read_golden(pending_file());
  EXPECT_EQ(pending.meta.extra.at(std::string(kPendingDigestKey)), "none");
  const Golden written = *golden_of(r, "test");
  EXPECT_TRUE(same_result(accepted_golden(pending), written));
  Golden without_dates = accepted_golden(pending);
  without_dates.meta.created = written.meta.created;
  EXPECT_EQ(without_dates.meta, written.meta);
  EXPECT_FALSE(fs::exists(golden_file()));  // check never writes a golden
}

TEST_F(PendingGate, AcceptingTheKeptResultMakesCheckPass) {
  ASSERT_EQ(update(false).status, CaseStatus::created);
  record_other_tree();
  const CaseResult differs = check();
  ASSERT_EQ(differs.status, CaseStatus::differs);
  ASSERT_EQ(differs.pending_path, pending_file());
  EXPECT_EQ(store().accept(store().list().files.at(0), false), StoreOutcome::changed);
  const CaseResult passes = check();
  EXPECT_EQ(passes.status, CaseStatus::passed);
  EXPECT_TRUE(passes.pending_path.empty());
  EXPECT_TRUE(store().list().files.empty());
}

TEST_F(PendingGate, ACaseThatPassesAgainLeavesNoPendingFile) {
  ASSERT_EQ(update(false).status, CaseStatus::created);
  const std::string good = [&] {
    std::ifstream in(golden_file(), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  record_other_tree();
  ASSERT_EQ(check().status, CaseStatus::differs);
  ASSERT_TRUE(fs::exists(pending_file()));
  std::ofstream(golden_file(), std::ios::binary | std::ios::trunc) << good;  // restored from version control
  EXPECT_EQ(check().status, CaseStatus::passed);
  EXPECT_FALSE(fs::exists(pending_file()));
}

TEST_F(PendingGate, ACheckWithoutAPendingStoreTouchesNone) {
  ASSERT_EQ(check(false).status, CaseStatus::missing_golden);
  EXPECT_FALSE(fs::exists(pending_file()));
  ASSERT_EQ(check().status, CaseStatus::missing_golden);
  ASSERT_TRUE(fs::exists(pending_file()));
  ASSERT_EQ(update(false).status, CaseStatus::created);
  EXPECT_TRUE(fs::exists(pending_file()));  // left as it was
  ASSERT_EQ(check(false).status, CaseStatus::passed);
  EXPECT_TRUE(fs::exists(pending_file()));
}

TEST_F(PendingGate, UpdateRemovesThePendingFile) {
  ASSERT_EQ(check().status, CaseStatus::missing_golden);
  ASSERT_TRUE(fs::exists(pending_file()));
  EXPECT_EQ(update().status, CaseStatus::created);
  EXPECT_FALSE(fs::exists(pending_file()));
}

TEST_F(PendingGate, ABrokenGoldenIsNotRevealedAndItsPendingFileStays) {
  ASSERT_EQ(check().status, CaseStatus::missing_golden);
  fs::create_directories(golden_file().parent_path());
  std::ofstream(golden_file()) << "# fprev-golden tree v2\n";
  EXPECT_EQ(check().status, CaseStatus::broken_golden);
  EXPECT_TRUE(fs::exists(pending_file()));
}

TEST_F(PendingGate, AnUnwritablePendingDirectoryIsAWarningNotAVerdict) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  RunnerOptions options;
  options.golden_root = golden_root();
  options.tool_version = "test";
  options.pending = PendingStore(golden_root(), dir_ / "file");  // a file, not a directory
  const CaseResult r = Runner(builtin_backends(), options).check(suite_, suite_.cases[0]);
  EXPECT_EQ(r.status, CaseStatus::missing_golden);
  EXPECT_TRUE(r.pending_path.empty());
  EXPECT_FALSE(r.pending_error.empty());
}

TEST_F(PendingGate, ObsoleteGoldensAreDeletedOnlyWhenTheyReadAsTheGoldensOfTheirPaths) {
  ASSERT_EQ(update(false).status, CaseStatus::created);
  Golden gone = read_golden(golden_file());
  gone.meta.case_id = "sum-float64-pairwise-n9";
  const fs::path gone_path = golden_path(golden_root(), "s", "ref", "any", gone.meta.case_id);
  write_golden_file(gone_path, gone);
  const fs::path misnamed = golden_path(golden_root(), "s", "ref", "any", "misnamed");
  write_golden_file(misnamed, gone);  // says it is sum-float64-pairwise-n9
  const fs::path garbled = golden_path(golden_root(), "s", "old", "any", "garbled");
  fs::create_directories(garbled.parent_path());
  std::ofstream(garbled) << "<<<<<<< HEAD\n";

  const std::vector<GoldenLocation> obsolete = obsolete_goldens(golden_root(), {suite_});
  ASSERT_EQ(obsolete.size(), 3u);
  std::map<std::string, std::string> kept;
  for (const GoldenLocation& g : obsolete) kept[g.case_id] = delete_obsolete_golden(golden_root(), g);
  EXPECT_EQ(kept.at("sum-float64-pairwise-n9"), "");
  EXPECT_FALSE(fs::exists(gone_path));
  EXPECT_NE(kept.at("misnamed").find("names another case"), std::string::npos) << kept.at("misnamed");
  EXPECT_TRUE(fs::exists(misnamed));
  EXPECT_NE(kept.at("garbled").find("does not read as a golden"), std::string::npos) << kept.at("garbled");
  EXPECT_TRUE(fs::exists(garbled));
  EXPECT_TRUE(fs::exists(golden_file()));  // a case of the suite: never obsolete
}

TEST_F(PendingGate, DeletingTheLastGoldenOfABackendRemovesItsEmptyDirectories) {
  ASSERT_EQ(update(false).status, CaseStatus::created);
  Golden gone = read_golden(golden_file());
  gone.meta.backend = "retired";
  const fs::path gone_path = golden_path(golden_root(), "s", "retired", "any", gone.meta.case_id);
  write_golden_file(gone_path, gone);
  const std::vector<GoldenLocation> obsolete = obsolete_goldens(golden_root(), {suite_});
  ASSERT_EQ(obsolete.size(), 1u);
  EXPECT_EQ(delete_obsolete_golden(golden_root(), obsolete[0]), "");
  EXPECT_FALSE(fs::exists(gone_path.parent_path()));
  EXPECT_TRUE(fs::exists(golden_file()));
}

}  // namespace
}  // namespace fprev
