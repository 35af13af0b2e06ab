// Suite files and directories on disk: reading, missing files, directory scans, suite names that
// collide across files, and problems collected from several files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
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
                                       "description, environment_overrides, backends, cases"});
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
                       "environment_overrides, backends, cases",
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

// Issue 34: a file that does not load stands in for its suite (a failing CTest test under its
// labels), so loading goes on past it and says what could still be read of it.
TEST_F(SuiteFiles, KeepingGoingListsInvalidFilesWithWhatCouldBeRead) {
  write("good.yaml", suite_named("good"));
  // One entry is wrong; the other still expands on the valid instance.
  write("partly.yaml",
        "suite: partly\nbackends:\n  - name: a\n    use: toy\n  - name: b\n    use: nosuch\n"
        "cases:\n  - op: dot\n    n: 8\n    backends: a\n    labels: [nightly]\n  - op: nosuchop\n    n: 8\n");
  write("garbled.yaml", "suite: garbled   # named here\nbackends: [\n");
  write("Name Less.yml", "backends: {\n");
  write("again.yaml", suite_named("good"));
  const LoadedSuites loaded = load_suites_keeping_going({dir_}, registry_);
  ASSERT_EQ(loaded.suites.size(), 1u);
  EXPECT_EQ(loaded.suites[0].name, "good");  // the first of its name (again.yaml sorts before)
  std::vector<std::string> names;
  for (const InvalidSuiteFile& invalid : loaded.invalid) names.push_back(invalid.readable.name);
  EXPECT_EQ(names, (std::vector<std::string>{"name_less", "garbled", "partly", "good"}));
  const Suite& partly = loaded.invalid[2].readable;
  ASSERT_EQ(partly.backends.size(), 2u);
  EXPECT_EQ(partly.backends[0].name, "a");
  EXPECT_EQ(partly.backends[1].name, "b");  // its backend is unknown, its name is still read
  ASSERT_EQ(partly.cases.size(), 1u);
  EXPECT_EQ(partly.cases[0].id, "dot-float32-n8");
  EXPECT_EQ(partly.cases[0].labels, std::vector<std::string>{"nightly"});
  EXPECT_FALSE(loaded.invalid[2].diagnostics.empty());
  EXPECT_NE(loaded.invalid[3].diagnostics.front().message.find("duplicate suite name"), std::string::npos);
}

TEST_F(SuiteFiles, KeepingGoingNamesAnEmptyDirectoryAfterIt) {
  const LoadedSuites loaded = load_suites_keeping_going({dir_}, registry_);
  ASSERT_EQ(loaded.invalid.size(), 1u);
  std::string expected = dir_.filename().string();  // lower case, as a case id would be
  for (char& c : expected) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_EQ(loaded.invalid[0].readable.name, expected);
}

// Issue 34.12: a relative path in a suite is relative to the suite file, never to the directory the
// gate runs in (ParamType::path); a bare name stays a name; an instance expanded from a list of
// paths is named from them as written.
TEST_F(SuiteFiles, RelativePathSettingsAreRelativeToTheSuiteFile) {
  const fs::path path = write("rel.yaml",
                              "suite: rel\nbackends:\n  - name: a\n    use: toy\n    library: ./lib/x.so\n"
                              "  - name: b\n    use: toy\n    library: [one/x.so, /abs/y.so]\n"
                              "  - name: c\n    use: toy\ncases:\n  - op: dot\n    n: 8\n");
  const Suite suite = load_suite(path, registry_);
  ASSERT_EQ(suite.backends.size(), 4u);
  EXPECT_EQ(suite.backends[0].settings.at("library"), (dir_ / "lib/x.so").string());
  EXPECT_EQ(suite.backends[1].name, "b-one_x.so");
  EXPECT_EQ(suite.backends[1].settings.at("library"), (dir_ / "one/x.so").string());
  EXPECT_EQ(suite.backends[2].settings.at("library"), "/abs/y.so");
  EXPECT_EQ(suite.backends[3].settings.at("library"), "libtoy");
}

TEST(PathParameters, ARelativePathOutsideASuiteIsAConfigurationError) {
  const std::vector<ParamSpec> specs{path_param("library", "").defaults_to(".")};
  EXPECT_THROW(resolve_params(specs, {{"library", "./x.so"}}, "t"), ConfigError);
  EXPECT_THROW(resolve_params(specs, {{"library", "venv/bin/python"}}, "t"), ConfigError);
  EXPECT_EQ(resolve_params(specs, {{"library", "/x.so"}}, "t").at("library"), "/x.so");
  EXPECT_EQ(resolve_params(specs, {{"library", "openblas"}}, "t").at("library"), "openblas");
  EXPECT_EQ(resolve_params(specs, {}, "t").at("library"), ".");  // the backend's own default
}

TEST_F(SuiteFiles, EnvironmentOverridesAcceptedByTheSuite) {
  const fs::path good = write("a.yaml", "suite: a\nenvironment_overrides: [FPREV_TOY_LIBRARY, FPREV_GOLDEN_DIR]\n" +
                                            suite_named("a").substr(std::string("suite: a\n").size()));
  EXPECT_EQ(load_suite(good, registry_).environment_overrides,
            (std::vector<std::string>{"FPREV_TOY_LIBRARY", "FPREV_GOLDEN_DIR"}));
  const fs::path bad = write("b.yaml", "suite: b\nenvironment_overrides: [PATH]\n" +
                                           suite_named("b").substr(std::string("suite: b\n").size()));
  const std::vector<std::string> errors = errors_loading({bad});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find(":2:25: error: environment override 'PATH' is not the name of an FPREV_ variable"),
            std::string::npos)
      << errors[0];
}

}  // namespace
}  // namespace fprev
