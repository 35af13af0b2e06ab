// Overlays (fprev/golden.hpp): a golden recorded for one library identity stands in for the case's
// default golden only where the running library is exactly that identity. update --overlay
// records only what differs from the default golden; check --no-overlays compares with the
// default goldens alone; a pending result of an overlay case is accepted into the overlay.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "fprev/runner.hpp"
#include "gate_fixture.hpp"
#include "fprev/sexpr.hpp"

namespace fprev {
namespace {
namespace fs = std::filesystem;

using gate_test::pairwise_sum_suite;

class OverlayGate : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = gate_test::scratch_directory("fprev-overlay-gate");
    suite_ = pairwise_sum_suite();
    ASSERT_EQ(suite_.cases.size(), 1u);
    // The default golden describes another release of the library: another order (and another
    // version), as Debian 12's goldens do for Debian 13's OpenBLAS.
    ASSERT_EQ(run(Mode::update).status, CaseStatus::created);
    Golden old = read_golden(default_file());
    running_ = old.meta;
    old.meta.library_version = "0.9-older";
    old.map = OrderMap::uniform(old.map.grid, parse_sexpr("(((((((0 1) 2) 3) 4) 5) 6) 7)"));
    old.fingerprints.clear();
    write_golden_file(default_file(), old);
  }
  void TearDown() override { fs::remove_all(dir_); }

  enum class Mode { check, check_without_overlays, update, update_overlay };
  CaseResult run(Mode mode, bool pending = false) const {
    RunnerOptions options;
    options.golden_root = dir_;
    options.tool_version = "test";
    options.use_overlays = mode != Mode::check_without_overlays;
    options.write_overlay = mode == Mode::update_overlay;
    if (pending) options.pending = PendingStore(dir_);
    Runner runner(builtin_backends(), options);
    return mode == Mode::update || mode == Mode::update_overlay ? runner.update(suite_, suite_.cases[0])
                                                                 : runner.check(suite_, suite_.cases[0]);
  }
  fs::path default_file() const { return golden_path(dir_, "s", "ref", "any", suite_.cases[0].id); }
  fs::path overlay_file(const GoldenMetadata& identity) const {
    return golden_path(dir_, "s", "ref", "any", suite_.cases[0].id, library_golden_key(identity));
  }

  fs::path dir_;
  Suite suite_;
  GoldenMetadata running_;  // the running library's identity, as a golden records it
};

TEST_F(OverlayGate, WithoutAnOverlayTheDefaultGoldenDecides) {
  const CaseResult r = run(Mode::check);
  EXPECT_EQ(r.status, CaseStatus::differs);
  EXPECT_EQ(r.golden_path, default_file());
  EXPECT_TRUE(r.library_key.empty());
}

TEST_F(OverlayGate, UpdateOverlayRecordsWhatDiffersBesideTheDefaultAndCheckUsesIt) {
  const CaseResult u = run(Mode::update_overlay);
  ASSERT_EQ(u.status, CaseStatus::created) << u.message;
  EXPECT_EQ(u.golden_path, overlay_file(running_));
  EXPECT_TRUE(u.golden_path.parent_path().filename().string().starts_with(running_.library + "-"));
  EXPECT_EQ(read_golden(default_file()).meta.library_version, "0.9-older");  // the default stays
  EXPECT_TRUE(same_library_identity(read_golden(overlay_file(running_)).meta, running_));

  const CaseResult c = run(Mode::check);
  EXPECT_EQ(c.status, CaseStatus::passed) << c.message;
  EXPECT_EQ(c.golden_path, overlay_file(running_));
  EXPECT_EQ(c.library_key, library_golden_key(running_));
  // The upgrade report: against the default goldens the change shows.
  const CaseResult without = run(Mode::check_without_overlays);
  EXPECT_EQ(without.status, CaseStatus::differs);
  EXPECT_EQ(without.golden_path, default_file());
}

TEST_F(OverlayGate, AnOverlayOfAnotherIdentityIsNeverUsed) {
  ASSERT_EQ(run(Mode::update_overlay).status, CaseStatus::created);
  // The same overlay, recorded for another build of the library, in that build's folder.
  Golden other = read_golden(overlay_file(running_));
  fs::remove_all(overlay_file(running_).parent_path());
  other.meta.library_configuration += " (another build)";
  write_golden_file(overlay_file(other.meta), other);
  const CaseResult c = run(Mode::check);
  EXPECT_EQ(c.status, CaseStatus::differs);  // held to the default golden: nothing masked
  EXPECT_EQ(c.golden_path, default_file());
}

TEST_F(OverlayGate, AnOverlayRecordingAnotherLibraryThanItsFolderIsBroken) {
  ASSERT_EQ(run(Mode::update_overlay).status, CaseStatus::created);
  Golden edited = read_golden(overlay_file(running_));
  edited.meta.library_version = "9.9";
  write_golden_file(overlay_file(running_), edited);
  const CaseResult c = run(Mode::check);
  EXPECT_EQ(c.status, CaseStatus::broken_golden);
  EXPECT_NE(c.message.find("records the library"), std::string::npos) << c.message;
}

TEST_F(OverlayGate, UpdateOverlayWritesNoOverlayForAResultTheDefaultHoldsAndRemovesAStaleOne) {
  ASSERT_EQ(run(Mode::update_overlay).status, CaseStatus::created);
  const fs::path overlay = overlay_file(running_);
  // The default golden is re-recorded with this library's result: the overlay repeats it.
  ASSERT_EQ(run(Mode::check_without_overlays).status, CaseStatus::differs);
  {
    RunnerOptions options;
    options.golden_root = dir_;
    options.tool_version = "test";
    options.use_overlays = false;
    Runner(builtin_backends(), options).update(suite_, suite_.cases[0]);
  }
  ASSERT_EQ(run(Mode::check_without_overlays).status, CaseStatus::passed);
  const CaseResult u = run(Mode::update_overlay);
  EXPECT_EQ(u.status, CaseStatus::changed) << u.message;
  EXPECT_FALSE(fs::exists(overlay));
  EXPECT_FALSE(fs::exists(overlay.parent_path()));
  EXPECT_EQ(run(Mode::update_overlay).status, CaseStatus::unchanged);
  EXPECT_FALSE(fs::exists(overlay));
}

TEST_F(OverlayGate, APendingResultOfAnOverlayCaseIsAcceptedIntoTheOverlay) {
  ASSERT_EQ(run(Mode::update_overlay).status, CaseStatus::created);
  Golden changed = read_golden(overlay_file(running_));
  changed.map = OrderMap::uniform(changed.map.grid, parse_sexpr("(0 (1 (2 (3 (4 (5 (6 7)))))))"));
  changed.fingerprints.clear();
  write_golden_file(overlay_file(running_), changed);
  const CaseResult c = run(Mode::check, true);
  ASSERT_EQ(c.status, CaseStatus::differs);
  const PendingStore store(dir_);
  const PendingListing listing = store.list();
  ASSERT_EQ(listing.files.size(), 1u);
  EXPECT_EQ(listing.files[0].location.path, c.pending_path);
  EXPECT_EQ(listing.files[0].golden_path, overlay_file(running_));
  store.accept(listing.files[0], false);
  EXPECT_EQ(run(Mode::check).status, CaseStatus::passed);
  EXPECT_EQ(read_golden(default_file()).meta.library_version, "0.9-older");  // untouched
}

}  // namespace
}  // namespace fprev
