// The pending-result store (fprev/pending.hpp): where pending files live, that they are never
// taken for goldens, and that accepting one writes exactly the result check kept, atomically, and
// only over the golden check compared with.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fprev/pending.hpp"
#include "fprev/sexpr.hpp"

namespace fprev {
namespace {
namespace fs = std::filesystem;

class PendingFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("fprev-pending-test-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static Golden result(const std::string& sexpr, const std::string& case_id = "sum-n4") {
    Golden golden;
    golden.meta.suite = "s";
    golden.meta.case_id = case_id;
    golden.meta.backend = "ref";
    golden.meta.platform_key = "any";
    golden.meta.library = "reference";
    golden.meta.tool_version = "0.1.0";
    golden.meta.created = "2024-01-02T03:04:05Z";
    golden.meta.extra["target"] = "sum of 4";
    golden.map = OrderMap::uniform({}, parse_sexpr(sexpr));
    return golden;
  }

  static std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void spit(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }

  // Every file under `root`, relative, sorted.
  static std::vector<std::string> files(const fs::path& root) {
    std::vector<std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(root))
      if (entry.is_regular_file()) out.push_back(entry.path().lexically_relative(root).string());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path golden_root() const { return dir_ / "golden"; }
  fs::path golden_file(const std::string& case_id = "sum-n4") const {
    return golden_path(golden_root(), "s", "ref", "any", case_id);
  }

  fs::path dir_;
};

TEST_F(PendingFiles, BesideTheGoldenTheNameAddsNew) {
  const PendingStore store(golden_root());
  EXPECT_TRUE(store.beside_goldens());
  const PendingFile file = store.locate("s", "ref", "any", "sum-n4");
  EXPECT_EQ(file.golden_path, golden_root() / "any" / "s" / "ref" / "sum-n4.golden");
  EXPECT_EQ(file.location.path, golden_root() / "any" / "s" / "ref" / "sum-n4.golden.new");
  EXPECT_EQ(file.location.case_id, "sum-n4");
  EXPECT_THROW(store.locate("s", "../ref", "any", "sum-n4"), std::invalid_argument);
}

TEST_F(PendingFiles, AnotherDirectoryMirrorsTheGoldenLayout) {
  const PendingStore store(golden_root(), dir_ / "pending");
  EXPECT_FALSE(store.beside_goldens());
  const PendingFile file = store.locate("s", "ref", "any", "sum-n4");
  EXPECT_EQ(file.location.path, dir_ / "pending" / "any" / "s" / "ref" / "sum-n4.golden.new");
  EXPECT_EQ(file.golden_path, golden_file());
  EXPECT_TRUE(PendingStore(golden_root(), golden_root()).beside_goldens());
}

TEST_F(PendingFiles, KeptResultsAreNeverListedAsGoldens) {
  const PendingStore store(golden_root());
  write_golden_file(golden_file("other"), result("((0 1) (2 3))", "other"));
  const fs::path kept = store.keep(result("(((0 1) 2) 3)"));
  EXPECT_TRUE(fs::exists(kept));
  const GoldenListing goldens = list_goldens(golden_root());
  ASSERT_EQ(goldens.goldens.size(), 1u);
  EXPECT_EQ(goldens.goldens[0].case_id, "other");
  EXPECT_TRUE(goldens.stray.empty());
  const PendingListing pending = store.list();
  ASSERT_EQ(pending.files.size(), 1u);
  EXPECT_EQ(pending.files[0].location.path, kept);
  EXPECT_EQ(pending.files[0].golden_path, golden_file());
}

TEST_F(PendingFiles, AKeptResultRecordsTheDigestOfTheGoldenItWasComparedWith) {
  const PendingStore store(golden_root());
  const fs::path first = store.keep(result("(((0 1) 2) 3)"));
  EXPECT_EQ(read_golden(first).meta.extra.at(std::string(kPendingDigestKey)), "none");

  write_golden_file(golden_file(), result("((0 1) (2 3))"));
  const std::string digest = golden_file_digest(golden_file());
  EXPECT_EQ(digest.size(), 16u);
  EXPECT_NE(digest, "none");
  const Golden kept = read_golden(store.keep(result("(((0 1) 2) 3)")));
  EXPECT_EQ(kept.meta.extra.at(std::string(kPendingDigestKey)), digest);
  // One byte more is another digest.
  std::ofstream(golden_file(), std::ios::app) << "\n";
  EXPECT_NE(golden_file_digest(golden_file()), digest);
}

TEST_F(PendingFiles, AcceptingWritesTheKeptResultWithoutThePendingMetadata) {
  const PendingStore store(golden_root());
  write_golden_file(golden_file(), result("((0 1) (2 3))"));
  const Golden revealed = result("(((0 1) 2) 3)");
  store.keep(revealed);
  const PendingFile file = store.list().files.at(0);
  EXPECT_EQ(store.accept(file, false), StoreOutcome::changed);
  const Golden golden = read_golden(golden_file());
  EXPECT_TRUE(same_result(golden, revealed));
  EXPECT_EQ(golden.meta, revealed.meta);  // the digest line is gone, everything else as kept
  EXPECT_FALSE(fs::exists(file.location.path));
  EXPECT_EQ(files(golden_root()), std::vector<std::string>{"any/s/ref/sum-n4.golden"});
}

TEST_F(PendingFiles, AcceptingCreatesAMissingGolden) {
  const PendingStore store(golden_root(), dir_ / "pending");
  store.keep(result("(((0 1) 2) 3)"));
  EXPECT_EQ(store.accept(store.list().files.at(0), false), StoreOutcome::created);
  EXPECT_EQ(to_sexpr(read_golden(golden_file()).tree()), "(((0 1) 2) 3)");
  // The mirrored directories the file was in are gone; the pending root stays.
  EXPECT_TRUE(fs::is_directory(dir_ / "pending"));
  EXPECT_TRUE(fs::is_empty(dir_ / "pending"));
}

TEST_F(PendingFiles, AcceptingRefusesAGoldenThatChangedSinceCheck) {
  const PendingStore store(golden_root());
  write_golden_file(golden_file(), result("((0 1) (2 3))"));
  store.keep(result("(((0 1) 2) 3)"));
  write_golden_file(golden_file(), result("((0 (1 2)) 3)"));  // a pull brought another golden
  const std::string bytes = slurp(golden_file());
  const PendingFile file = store.list().files.at(0);
  try {
    store.accept(file, false);
    FAIL() << "accepted over a golden that changed";
  } catch (const PendingError& e) {
    EXPECT_NE(std::string(e.what()).find("changed since check"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(golden_file()), bytes);
  EXPECT_TRUE(fs::exists(file.location.path));
  EXPECT_EQ(store.accept(file, true), StoreOutcome::changed);
  EXPECT_EQ(to_sexpr(read_golden(golden_file()).tree()), "(((0 1) 2) 3)");
}

TEST_F(PendingFiles, AcceptingRefusesAGoldenCreatedOrDeletedSinceCheck) {
  const PendingStore store(golden_root());
  store.keep(result("(((0 1) 2) 3)"));
  write_golden_file(golden_file(), result("((0 1) (2 3))"));
  EXPECT_THROW(store.accept(store.list().files.at(0), false), PendingError);

  store.keep(result("(((0 1) 2) 3)"));
  fs::remove(golden_file());
  try {
    store.accept(store.list().files.at(0), false);
    FAIL() << "accepted although the golden was deleted since check";
  } catch (const PendingError& e) {
    EXPECT_NE(std::string(e.what()).find("was deleted"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(golden_file()));
}

TEST_F(PendingFiles, AFileMovedToAnotherCasesNameIsNotAccepted) {
  const PendingStore store(golden_root());
  const fs::path kept = store.keep(result("(((0 1) 2) 3)"));
  const fs::path other = store.locate("s", "ref", "any", "other").location.path;
  fs::rename(kept, other);
  const PendingFile file = store.list().files.at(0);
  ASSERT_EQ(file.location.case_id, "other");
  try {
    store.accept(file, true);  // not even with force
    FAIL() << "accepted a pending result of another case";
  } catch (const PendingError& e) {
    EXPECT_NE(std::string(e.what()).find("its case is 'sum-n4' but its path names 'other'"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(golden_file("other")));
  EXPECT_TRUE(fs::exists(other));
}

TEST_F(PendingFiles, OnlyFilesCheckWroteAreAccepted) {
  const PendingStore store(golden_root());
  const PendingFile file = store.locate("s", "ref", "any", "sum-n4");
  write_golden_file(file.location.path, result("(((0 1) 2) 3)"));  // a golden copied to the pending name
  EXPECT_THROW(store.accept(file, true), PendingError);
  spit(file.location.path, "# fprev-golden tree v2\nsuite: s\n");  // truncated
  try {
    store.read(file);
    FAIL() << "read a truncated pending file";
  } catch (const PendingError& e) {
    EXPECT_NE(std::string(e.what()).find("not a pending result"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(golden_file()));
}

TEST_F(PendingFiles, AnIdenticalResultLeavesTheGoldenUntouched) {
  const PendingStore store(golden_root());
  Golden old = result("((0 1) (2 3))");
  old.meta.created = "2020-01-01";
  write_golden_file(golden_file(), old);
  const std::string bytes = slurp(golden_file());
  store.keep(result("((0 1) (2 3))"));
  EXPECT_EQ(store.accept(store.list().files.at(0), false), StoreOutcome::unchanged);
  EXPECT_EQ(slurp(golden_file()), bytes);
  EXPECT_TRUE(store.list().files.empty());
}

TEST_F(PendingFiles, RejectingRemovesTheFileAndTheDirectoriesItLeavesEmpty) {
  const PendingStore store(golden_root(), dir_ / "pending");
  store.keep(result("(((0 1) 2) 3)"));
  store.keep(result("(((0 1) 2) 3)", "other"));
  const PendingListing listing = store.list();
  ASSERT_EQ(listing.files.size(), 2u);
  store.reject(listing.files[0]);
  EXPECT_EQ(files(dir_ / "pending"), std::vector<std::string>{"any/s/ref/sum-n4.golden.new"});
  store.reject(listing.files[1]);
  EXPECT_TRUE(fs::is_empty(dir_ / "pending"));
  EXPECT_FALSE(fs::exists(golden_root()));  // rejecting never touches goldens
}

TEST_F(PendingFiles, DiscardRemovesOnlyThatCase) {
  const PendingStore store(golden_root());
  store.keep(result("(((0 1) 2) 3)"));
  store.keep(result("(((0 1) 2) 3)", "other"));
  EXPECT_TRUE(store.discard("s", "ref", "any", "sum-n4"));
  EXPECT_FALSE(store.discard("s", "ref", "any", "sum-n4"));
  ASSERT_EQ(store.list().files.size(), 1u);
  EXPECT_EQ(store.list().files[0].location.case_id, "other");
}

TEST_F(PendingFiles, ListingSkipsTemporariesAndReportsStrayFiles) {
  const PendingStore store(golden_root());
  store.keep(result("(((0 1) 2) 3)"));
  spit(golden_root() / "any" / "s" / "ref" / ".sum-n4.golden.new.tmp-1-2-3", "partial");
  spit(golden_root() / "loose.golden.new", "x");
  spit(golden_root() / "any" / "s" / "ref" / "notes.txt", "x");
  const PendingListing listing = store.list();
  ASSERT_EQ(listing.files.size(), 1u);
  EXPECT_EQ(listing.stray, std::vector<fs::path>{golden_root() / "loose.golden.new"});
  EXPECT_TRUE(PendingStore(dir_ / "nowhere").list().files.empty());
}

TEST_F(PendingFiles, AcceptedGoldensLoseOnlyThePendingKeys) {
  Golden pending = result("(0 1)");
  pending.meta.extra["pending.golden-digest"] = "none";
  pending.meta.extra["pendingness"] = "kept";
  const Golden accepted = accepted_golden(pending);
  EXPECT_EQ(accepted.meta.extra.count("pending.golden-digest"), 0u);
  EXPECT_EQ(accepted.meta.extra.at("pendingness"), "kept");
  EXPECT_EQ(accepted.meta.extra.at("target"), "sum of 4");
}

}  // namespace
}  // namespace fprev
