// What a hostile tester found about the files the gate reads and writes (issue 26), each pinned:
//   * a writer never leaves a golden its reader refuses: the bytes are read back before the rename;
//   * a FIFO at a golden's path is refused at once, never a hang;
//   * a UTF-8 byte order mark is named as such;
//   * a replaced golden keeps its file mode; temporaries of dead writers are removed;
//   * read_golden's digest is that of the bytes it parsed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fprev/golden.hpp"
#include "fprev/pending.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {
namespace fs = std::filesystem;

class GoldenWriterLimits : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fprev-writer-limits-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static Golden small_golden() {
    Golden golden;
    golden.meta.suite = "s";
    golden.meta.case_id = "sum-n8";
    golden.meta.backend = "reference";
    golden.meta.platform_key = "any";
    golden.meta.library = "reference";
    golden.meta.tool_version = "0.1.0";
    golden.meta.created = "2024-01-02T03:04:05Z";
    golden.map = OrderMap::uniform({}, left_deep_tree(8));
    return golden;
  }
  static std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::size_t entries() const {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++n;
    return n;
  }

  fs::path dir_;
};

// A library identity of 2 MB (openblas_get_config can say anything) makes a line longer than the
// reader's 1 MiB: the write is refused and the old golden stays, byte for byte.
TEST_F(GoldenWriterLimits, AGoldenTheReaderWouldRefuseIsNeverWritten) {
  const fs::path path = dir_ / "case.golden";
  write_golden_file(path, small_golden());
  const std::string before = slurp(path);
  Golden huge = small_golden();
  huge.meta.library_configuration = std::string(2u << 20, 'x');
  try {
    write_golden_file(path, huge);
    FAIL() << "a golden with a 2 MB line was written";
  } catch (const GoldenIoError& e) {
    EXPECT_NE(std::string(e.what()).find("would not read back"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(path), before);
  EXPECT_EQ(entries(), 1u);  // no temporary left behind
  huge.map = OrderMap::uniform({}, right_deep_tree(8));  // a change store_golden would write
  EXPECT_THROW(store_golden(path, huge), GoldenIoError);
  EXPECT_EQ(slurp(path), before);
}

TEST_F(GoldenWriterLimits, AFifoAtAGoldensPathIsRefusedWithoutWaiting) {
  const fs::path path = dir_ / "case.golden";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  try {
    (void)read_golden(path);  // blocked forever in open() before the fix
    FAIL() << "a FIFO was read as a golden";
  } catch (const GoldenIoError& e) {
    EXPECT_NE(std::string(e.what()).find("it is a FIFO, not a regular file"), std::string::npos) << e.what();
  }
}

TEST_F(GoldenWriterLimits, AByteOrderMarkIsNamed) {
  const std::string text = write_golden_text(small_golden());
  try {
    (void)parse_golden_text("\xEF\xBB\xBF" + text, "bom.golden");
    FAIL() << "a golden with a BOM parsed";
  } catch (const GoldenParseError& e) {
    EXPECT_EQ(e.line(), 1u);
    EXPECT_NE(e.message().find("UTF-8 byte order mark"), std::string::npos) << e.what();
  }
}

TEST_F(GoldenWriterLimits, AReplacedGoldenKeepsItsFileMode) {
  const fs::path path = dir_ / "case.golden";
  write_golden_file(path, small_golden());
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  Golden other = small_golden();
  other.map = OrderMap::uniform({}, right_deep_tree(8));
  ASSERT_EQ(store_golden(path, other), StoreOutcome::changed);
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0640u);
}

// `.case.golden.tmp-PID-...` of a writer that is gone (an interrupted update) is removed by the
// next write there; one of a live process is not touched.
TEST_F(GoldenWriterLimits, TemporariesOfDeadWritersAreRemoved) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);  // its pid names no process now
  const fs::path stale = dir_ / (".case.golden.tmp-" + std::to_string(child) + "-1f-0");
  const fs::path live = dir_ / ".case.golden.tmp-1-2a-0";  // init: always alive
  std::ofstream(stale) << "half a golden";
  std::ofstream(live) << "another writer's";
  write_golden_file(dir_ / "case.golden", small_golden());
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
}

TEST_F(GoldenWriterLimits, TheDigestIsThatOfTheBytesRead) {
  const fs::path path = dir_ / "case.golden";
  write_golden_file(path, small_golden());
  std::string digest;
  const Golden read = read_golden(path, digest);
  EXPECT_EQ(digest, golden_file_digest(path));
  EXPECT_EQ(digest, golden_text_digest(slurp(path)));
  EXPECT_NE(digest, golden_text_digest(slurp(path) + "\n"));
}

}  // namespace
}  // namespace fprev
