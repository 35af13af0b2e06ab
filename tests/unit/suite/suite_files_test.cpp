// Suite files and directories on disk: reading, missing files, directory scans, suite names that
// collide across files, and problems collected from several files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fprev/suite.hpp"
#include "toy_backends.hpp"

namespace fprev {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class SuiteFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fprev_suite_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path;
  }

  static std::string suite_named(const std::string& name) {
    return "suite: " + name +
           "\nbackends:\n  - name: a\n    use: toy\ncases:\n  - op: dot\n"
           "    n: 8\n";
  }

  static std::vector<std::string> errors_loading(const std::vector<fs::path>& paths) {
    try {
      load_suites(paths, registry_);
    } catch (const SuiteError& error) {
      return error.errors();
    }
    return {};
  }

  fs::path dir_;
  static inline const BackendRegistry registry_ = suite_test::toy_registry();
};

TEST_F(SuiteFiles, LoadsAFileAndNamesItInCases) {
  const fs::path path = write("alpha.yaml", suite_named("alpha"));
  const Suite suite = load_suite(path, registry_);
  EXPECT_EQ(suite.name, "alpha");
  EXPECT_EQ(suite.file, path.string());
  ASSERT_EQ(suite.cases.size(), 1u);
  EXPECT_EQ(suite.cases[0].file, path.string());
  EXPECT_EQ(suite.cases[0].line, 6);
}

TEST_F(SuiteFiles, ErrorsNameTheFile) {
  const fs::path path = write("bad.yaml", suite_named("bad") + "colour: red\n");
  try {
    load_suite(path, registry_);
    FAIL() << "expected a SuiteError";
  } catch (const SuiteError& error) {
    EXPECT_EQ(error.errors(),
              std::vector<std::string>{path.string() +
                                       ":8:1: error: unknown key 'colour'; allowed values: suite, "
                                       "description, backends, cases"});
  }
}

TEST_F(SuiteFiles, MissingFile) {
  const fs::path path = dir_ / "missing.yaml";
  try {
    load_suite(path, registry_);
    FAIL() << "expected a SuiteError";
  } catch (const SuiteError& error) {
    EXPECT_EQ(error.line(), 0);
    EXPECT_EQ(error.errors(), std::vector<std::string>{
                                  path.string() + ": error: cannot read suite file: no such file"});
  }
}

TEST_F(SuiteFiles, DirectoryIsNotASuiteFile) {
  try {
    load_suite(dir_, registry_);
    FAIL() << "expected a SuiteError";
  } catch (const SuiteError& error) {
    EXPECT_EQ(error.errors(),
              std::vector<std::string>{dir_.string() +
                                       ": error: cannot read suite file: it is a directory"});
  }
}

TEST_F(SuiteFiles, DirectoryScanTakesYamlFilesInNameOrder) {
  write("b.yaml", suite_named("beta"));
  write("a.yml", suite_named("alpha"));
  write("notes.txt", "not a suite");
  write(".hidden.yaml", "not: [a suite");
  EXPECT_EQ(find_suite_files(dir_), (std::vector<fs::path>{dir_ / "a.yml", dir_ / "b.yaml"}));
  const auto suites = load_suites({dir_}, registry_);
  ASSERT_EQ(suites.size(), 2u);
  EXPECT_EQ(suites[0].name, "alpha");
  EXPECT_EQ(suites[1].name, "beta");
}

TEST_F(SuiteFiles, FilesAndDirectoriesMix) {
  fs::create_directories(dir_ / "more");
  const fs::path single = write("single.yaml", suite_named("single"));
  write("more/x.yaml", suite_named("x"));
  const auto suites = load_suites({single, dir_ / "more"}, registry_);
  ASSERT_EQ(suites.size(), 2u);
  EXPECT_EQ(suites[0].name, "single");
  EXPECT_EQ(suites[1].name, "x");
}

TEST_F(SuiteFiles, DuplicateSuiteNamesAcrossFiles) {
  const fs::path a = write("a.yaml", suite_named("same"));
  const fs::path b = write("b.yaml", suite_named("same"));
  EXPECT_EQ(errors_loading({dir_}),
            std::vector<std::string>{b.string() +
                                     ":1:8: error: duplicate suite name 'same'; first "
                                     "used at " +
                                     a.string() + ":1:8"});
}

TEST_F(SuiteFiles, ProblemsOfEveryFileAreCollected) {
  const fs::path a = write("a.yaml", suite_named("a") + "colour: red\n");
  const fs::path b = write("b.yaml", "suite: b\n x: 1\n");
  const fs::path missing = dir_ / "missing.yaml";
  EXPECT_EQ(
      errors_loading({a, b, missing}),
      (std::vector<std::string>{
          a.string() + ":8:1: error: unknown key 'colour'; allowed values: suite, description, "
                       "backends, cases",
          b.string() + ":2:3: error: YAML syntax error: illegal map value (check the indentation of this line and the lines "
                       "above it: entries of one map or list start in the same column, a nested one further right, "
                       "with spaces, never tabs)",
          missing.string() + ": error: cannot read suite file: no such file"}));
}

TEST_F(SuiteFiles, DirectoryWithoutSuites) {
  EXPECT_EQ(errors_loading({dir_}),
            std::vector<std::string>{dir_.string() +
                                     ": error: no suite files (*.yaml, *.yml) in this directory"});
}

// Issue 34: the case limit is a total across the suite files of a run (50 files of 10,000 cases
// took 30 s and 587 MB to list). Loading stops at the file that passes it: the files after it are
// not read, and the error names the limit and how to raise it.
TEST_F(SuiteFiles, TheCaseLimitIsATotalAcrossFiles) {
  const auto four_cases = [](const std::string& name) {
    return "suite: " + name + "\nbackends:\n  - name: a\n    use: toy\ncases:\n  - op: dot\n    n: [1, 2, 3, 4]\n";
  };
  write("a.yaml", four_cases("a"));
  write("b.yaml", four_cases("b"));
  const fs::path third = write("c.yaml", four_cases("c"));
  write("d.yaml", "not: a suite\n");  // after the limit: never read, so no error of its own
  EXPECT_EQ(load_suites({dir_ / "a.yaml", dir_ / "b.yaml", third}, registry_, 12).size(), 3u);
  try {
    load_suites({dir_}, registry_, 11);
    FAIL() << "12 cases loaded under a limit of 11";
  } catch (const SuiteError& error) {
    ASSERT_EQ(error.errors().size(), 1u) << error.errors().front();
    EXPECT_EQ(error.errors().front(),
              third.string() +
                  ": error: the suite files of this run expand to more than 11 cases together (12 up to this "
                  "file, 1 more files not read), the most one run may have; select fewer files, or raise "
                  "the limit with --max-cases N");
  }
}

}  // namespace
}  // namespace fprev
