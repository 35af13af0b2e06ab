#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "fprev/golden.hpp"
#include "fprev/sexpr.hpp"
#include "line_diff.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {
namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class GoldenFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("fprev-golden-test-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static Golden golden_of(Tree tree) {
    Golden golden;
    golden.meta.suite = "suite-a";
    golden.meta.case_id = "sum-float32-n8";
    golden.meta.backend = "reference";
    golden.meta.platform_key = "any";
    golden.meta.library = "reference";
    golden.meta.tool_version = "0.1.0";
    golden.meta.created = "2024-01-02T03:04:05Z";
    golden.map = OrderMap::uniform({}, std::move(tree));
    return golden;
  }

  // Every file under dir_, relative, sorted.
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(dir_))
      if (entry.is_regular_file()) out.push_back(entry.path().lexically_relative(dir_).string());
    std::sort(out.begin(), out.end());
    return out;
  }

  static std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  fs::path dir_;
};

TEST_F(GoldenFiles, WriteCreatesDirectoriesAndLeavesNoTemporaries) {
  const fs::path path = dir_ / "a" / "b" / "case.golden";
  const Golden golden = golden_of(parse_sexpr("((0 1) 2)"));
  write_golden_file(path, golden);
  write_golden_file(path, golden_of(parse_sexpr("(0 (1 2))")));  // overwrite
  EXPECT_EQ(files(), std::vector<std::string>{"a/b/case.golden"});
  EXPECT_TRUE(read_golden(path).tree() == parse_sexpr("(0 (1 2))"));
  EXPECT_EQ(slurp(path), write_golden_text(golden_of(parse_sexpr("(0 (1 2))"))));
}

TEST_F(GoldenFiles, FailedWritesLeaveNothingBehind) {
  Golden bad = golden_of(parse_sexpr("(0 1)"));
  bad.meta.created = "not a date";
  EXPECT_THROW(write_golden_file(dir_ / "x.golden", bad), GoldenIoError);
  // The target's directory is a file: cannot create the temporary there.
  std::ofstream(dir_ / "blocker") << "x";
  EXPECT_THROW(write_golden_file(dir_ / "blocker" / "x.golden", golden_of(parse_sexpr("(0 1)"))),
               GoldenIoError);
  // The target is a non-empty directory: the rename fails after the temporary was written.
  fs::create_directories(dir_ / "target.golden" / "inside");
  EXPECT_THROW(write_golden_file(dir_ / "target.golden", golden_of(parse_sexpr("(0 1)"))),
               GoldenIoError);
  EXPECT_EQ(files(), std::vector<std::string>{"blocker"});
}

TEST_F(GoldenFiles, ReadErrorsNameTheFile) {
  EXPECT_THROW(read_golden(dir_ / "missing.golden"), GoldenIoError);
  std::ofstream(dir_ / "broken.golden") << "# fprev-golden tree v1\nsuite: s\n";
  try {
    read_golden(dir_ / "broken.golden");
    ADD_FAILURE() << "expected a parse error";
  } catch (const GoldenParseError& error) {
    EXPECT_EQ(error.path(), (dir_ / "broken.golden").string());
    EXPECT_EQ(error.line(), 3u);
  }
}

TEST_F(GoldenFiles, ConcurrentWritersNeverExposeAPartialFile) {
  // Four writers replace the same golden with different (large enough) trees while a reader keeps
  // parsing it: every read must be one complete golden.
  const fs::path path = dir_ / "p" / "s" / "b" / "c.golden";
  std::vector<std::string> texts;
  std::mt19937_64 rng(7);
  std::vector<Golden> goldens;
  for (int w = 0; w < 4; ++w) {
    goldens.push_back(golden_of(random_multiway_tree(2000, 2 + static_cast<std::size_t>(w), rng)));
    texts.push_back(write_golden_text(goldens.back()));
  }
  write_golden_file(path, goldens[0]);
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::atomic<int> bad_reads{0};
  std::thread reader([&] {
    while (!done.load() || reads.load() < 20) {
      try {
        const std::string text = slurp(path);
        parse_golden_text(text, path.string());
        if (std::find(texts.begin(), texts.end(), text) == texts.end()) ++bad_reads;
      } catch (const std::exception&) {
        ++bad_reads;
      }
      ++reads;
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&, w] {
      for (int i = 0; i < 25; ++i) write_golden_file(path, goldens[static_cast<std::size_t>(w)]);
    });
  for (auto& writer : writers) writer.join();
  done = true;
  reader.join();
  EXPECT_EQ(bad_reads.load(), 0) << "of " << reads.load() << " reads";
  EXPECT_EQ(files(), std::vector<std::string>{"p/s/b/c.golden"});
}

TEST_F(GoldenFiles, ConcurrentProcessesNeverExposeAPartialFile) {
  const fs::path path = dir_ / "c.golden";
  const Golden first = golden_of(left_deep_tree(3000));
  std::mt19937_64 rng(11);
  const Golden second = golden_of(random_multiway_tree(3000, 2, rng));
  write_golden_file(path, first);
  std::vector<pid_t> children;
  for (int p = 0; p < 2; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int i = 0; i < 20; ++i) write_golden_file(path, p == 0 ? first : second);
      ::_exit(0);
    }
    children.push_back(pid);
  }
  int bad = 0;
  for (int i = 0; i < 40; ++i) {
    const Golden read = read_golden(path);  // throws on a partial file
    if (!(read.tree() == first.tree()) && !(read.tree() == second.tree())) ++bad;
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(files(), std::vector<std::string>{"c.golden"});
}

TEST_F(GoldenFiles, StoreKeepsAnUnchangedGoldenUntouched) {
  const fs::path path = dir_ / "g.golden";
  Golden golden = golden_of(parse_sexpr("((0 1) (2 3))"));
  EXPECT_EQ(store_golden(path, golden), StoreOutcome::created);
  const std::string original = slurp(path);
  const auto written_at = fs::last_write_time(path);

  // Same tree, newer date and library version: not rewritten, the date does not churn.
  golden.meta.created = "2030-01-01T00:00:00Z";
  golden.meta.library_version = "9.9";
  EXPECT_EQ(store_golden(path, golden), StoreOutcome::unchanged);
  EXPECT_EQ(slurp(path), original);
  EXPECT_EQ(fs::last_write_time(path), written_at);

  golden.map = OrderMap::uniform({}, parse_sexpr("(((0 1) 2) 3)"));
  EXPECT_EQ(store_golden(path, golden), StoreOutcome::changed);
  EXPECT_EQ(slurp(path), write_golden_text(golden));

  std::ofstream(path) << "garbage\n";
  EXPECT_EQ(store_golden(path, golden), StoreOutcome::repaired);
  EXPECT_EQ(slurp(path), write_golden_text(golden));
  EXPECT_EQ(to_string(StoreOutcome::unchanged), "unchanged");
}

TEST(GoldenLayout, PathsAndSafeComponents) {
  EXPECT_EQ(golden_path("golden", "blas-cpu", "openblas", "haswell-t1", "gemm-float32-m64n64k256"),
            fs::path("golden/haswell-t1/blas-cpu/openblas/gemm-float32-m64n64k256.golden"));
  EXPECT_TRUE(is_safe_component("sm_90+fast.math-1"));
  for (const char* bad : {"", ".", "..", ".hidden", "-flag", "a/b", "a b", "a\\b", "ü"})
    EXPECT_FALSE(is_safe_component(bad)) << bad;
  EXPECT_FALSE(is_safe_component(std::string(129, 'a')));
  EXPECT_TRUE(is_safe_component(std::string(128, 'a')));
  EXPECT_THROW(golden_path("golden", "s", "b", "../etc", "c"), std::invalid_argument);
  EXPECT_THROW(golden_path("golden", "s", "b", "p", "c/d"), std::invalid_argument);
}

TEST_F(GoldenFiles, ListsGoldensAndStrayFiles) {
  EXPECT_TRUE(list_goldens(dir_ / "absent").goldens.empty());
  const Golden golden = golden_of(parse_sexpr("(0 1)"));
  write_golden_file(golden_path(dir_, "s1", "b1", "p1", "c2"), golden);
  write_golden_file(golden_path(dir_, "s1", "b1", "p1", "c1"), golden);
  write_golden_file(golden_path(dir_, "s2", "b2", "p2", "c3"), golden);
  write_golden_file(golden_path(dir_, "s1", "b1", "p1", "c1", "Lib-2.0-0123abcd"), golden);  // an overlay
  std::ofstream(dir_ / "p1" / "s1" / "b1" / ".c1.golden.tmp-1-2-3") << "partial";
  fs::create_directories(dir_ / "p1" / "s1" / "b1" / "Lib-2.0-0123abcd" / "deeper");
  std::ofstream(dir_ / "p1" / "s1" / "b1" / "Lib-2.0-0123abcd" / "deeper" / "c1.golden") << "x";
  std::ofstream(dir_ / "p1" / "s1" / "b1" / "notes.txt") << "x";
  std::ofstream(dir_ / "p1" / "misplaced.golden") << "x";
  const GoldenListing listing = list_goldens(dir_);
  ASSERT_EQ(listing.goldens.size(), 4u);
  EXPECT_EQ(listing.goldens[0],
            (GoldenLocation{dir_ / "p1/s1/b1/Lib-2.0-0123abcd/c1.golden", "p1", "s1", "b1", "c1", "Lib-2.0-0123abcd"}));
  EXPECT_EQ(listing.goldens[1], (GoldenLocation{dir_ / "p1/s1/b1/c1.golden", "p1", "s1", "b1", "c1", ""}));
  EXPECT_EQ(listing.goldens[2].case_id, "c2");
  EXPECT_EQ(listing.goldens[3], (GoldenLocation{dir_ / "p2/s2/b2/c3.golden", "p2", "s2", "b2", "c3", ""}));
  EXPECT_EQ(listing.stray, (std::vector<fs::path>{dir_ / "p1" / "misplaced.golden",
                                                  dir_ / "p1/s1/b1/Lib-2.0-0123abcd/deeper/c1.golden"}));
}

TEST(LibraryGoldenKey, NamesTheLibraryAndTellsEveryIdentityApart) {
  const std::string key = library_golden_key("OpenBLAS", "0.3.29", "OpenBLAS 0.3.29 DYNAMIC_ARCH Haswell");
  EXPECT_TRUE(key.starts_with("OpenBLAS-0.3.29-")) << key;
  EXPECT_EQ(key.size(), std::string("OpenBLAS-0.3.29-").size() + 8);
  EXPECT_TRUE(is_safe_component(key));
  EXPECT_EQ(key, library_golden_key("OpenBLAS", "0.3.29", "OpenBLAS 0.3.29 DYNAMIC_ARCH Haswell"));
  // Another build of the same version, another version, fields split differently: other folders.
  EXPECT_NE(key, library_golden_key("OpenBLAS", "0.3.29", "OpenBLAS 0.3.29 DYNAMIC_ARCH Sandybridge"));
  EXPECT_NE(key, library_golden_key("OpenBLAS", "0.3.21", "OpenBLAS 0.3.29 DYNAMIC_ARCH Haswell"));
  EXPECT_NE(library_golden_key("a", "b c", ""), library_golden_key("a", "b", " c"));
  // Whatever the library calls itself, the key names a folder.
  EXPECT_TRUE(is_safe_component(library_golden_key("../My lib/", "1.0 (beta)", "")));
  EXPECT_TRUE(is_safe_component(library_golden_key(std::string(300, 'x'), "", "")));
}

TEST(GoldenHelpers, TimestampAndIdentity) {
  const std::string now = utc_timestamp_now();
  ASSERT_EQ(now.size(), 20u);
  EXPECT_EQ(now[10], 'T');
  EXPECT_EQ(now.back(), 'Z');
  GoldenMetadata meta;
  meta.library = "OpenBLAS";
  EXPECT_EQ(golden_identity(meta), "OpenBLAS");
  meta.library_version = "0.3.21";
  meta.library_configuration = "Haswell";
  EXPECT_EQ(golden_identity(meta), "OpenBLAS 0.3.21 (Haswell)");
}

}  // namespace
}  // namespace fprev
