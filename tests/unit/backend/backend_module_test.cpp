// Backend modules (fprev/backend_module.hpp): finding them on the search path, loading them through
// a registry, sharing the framework with them, and refusing broken ones with a message that names
// the file and the cause. The test modules are built into FPREV_TEST_MODULE_DIR
// (modules/*.cpp, tests/CMakeLists.txt); CTest runs every test in its own process, so each test
// starts with nothing loaded.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "fprev/backend_module.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"

namespace fprev {
namespace {

namespace fs = std::filesystem;

const fs::path kModuleDir = FPREV_TEST_MODULE_DIR;

class BackendModules : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("FPREV_BACKEND_PATH", kModuleDir.c_str(), 1); }
  void TearDown() override { ::unsetenv("FPREV_BACKEND_PATH"); }

  static BackendRegistry registry_with_modules() {
    BackendRegistry registry;
    registry.offer_backend_modules();
    return registry;
  }
};

std::string message_of_loading(std::string_view name) {
  try {
    (void)load_backend_module(name);
  } catch (const BackendModuleError& error) {
    return error.what();
  }
  return "loaded";
}

TEST_F(BackendModules, SearchPathIsTheVariableThenBesideTheFrameworkThenBesideTheExecutable) {
  ::setenv("FPREV_BACKEND_PATH", ("/nonexistent/a::" + kModuleDir.string()).c_str(), 1);
  const auto path = backend_module_search_path();
  ASSERT_GE(path.size(), 3u);
  EXPECT_EQ(path[0], fs::path("/nonexistent/a"));  // empty entries are skipped
  EXPECT_EQ(path[1], kModuleDir);
  // lib/fprev-golden beside libfprev_framework.so: the framework is a shared library.
  EXPECT_EQ(path[2].filename(), "fprev-golden");
  bool framework_there = false;
  for (const auto& entry : fs::directory_iterator(path[2].parent_path()))
    framework_there |= entry.path().filename().string().starts_with("libfprev_framework.so");
  EXPECT_TRUE(framework_there) << path[2].parent_path();
  EXPECT_EQ(path.back(), fs::read_symlink("/proc/self/exe").parent_path());
}

TEST_F(BackendModules, TheRegistryLoadsAModuleWhenItsBackendIsAskedFor) {
  const BackendRegistry registry = registry_with_modules();
  EXPECT_NE(registry.names().find("modtest"), std::string::npos) << registry.names();
  const Backend* backend = registry.find("modtest");
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->name(), "modtest");
  EXPECT_EQ(registry.find("modtest"), backend);  // loaded once
  EXPECT_EQ(load_backend_module("modtest").file, kModuleDir / "fprev_backend_modtest.so");
  EXPECT_EQ(registry.find("no_such_backend"), nullptr);
  EXPECT_EQ(registry.find("../modtest"), nullptr);  // never a path
}

TEST_F(BackendModules, APlainRegistryDoesNotLookForModules) {
  const BackendRegistry registry;
  EXPECT_EQ(registry.find("modtest"), nullptr);
  EXPECT_EQ(registry.names(), "");
  EXPECT_TRUE(registry.all().empty());
}

TEST_F(BackendModules, AModuleTargetIsRevealedThroughTheSharedFramework) {
  const Backend* backend = registry_with_modules().find("modtest");
  ASSERT_NE(backend, nullptr);
  const auto instance = backend->open(resolve_params(backend->instance_params(), {}, "test"));
  const std::uint64_t before = Background::next_id();
  const auto target = instance->make_target({{"n", "6"}});
  const std::uint64_t after = Background::next_id();
  // The module took its id from the same counter as the program: one framework per process.
  const std::string description = target->info().description;
  const std::uint64_t module_id = std::stoull(description.substr(description.rfind(' ') + 1));
  EXPECT_GT(module_id, before) << description;
  EXPECT_LT(module_id, after) << description;
  EXPECT_EQ(to_sexpr(reveal(*target).tree), "(((((0 1) 2) 3) 4) 5)");
}

TEST_F(BackendModules, ExceptionsThrownInAModuleAreCaughtByType) {
  const Backend* backend = registry_with_modules().find("modtest");
  ASSERT_NE(backend, nullptr);
  EXPECT_THROW(backend->open({{"mode", "unavailable"}}), BackendUnavailable);
  try {
    backend->open({{"mode", "misconfigured"}});
    FAIL() << "open() did not throw";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.parameter(), "mode");
  }
}

TEST_F(BackendModules, AMissingModuleListsTheDirectoriesSearched) {
  const std::string message = message_of_loading("absent");
  EXPECT_NE(message.find("fprev_backend_absent.so"), std::string::npos) << message;
  EXPECT_NE(message.find(kModuleDir.string()), std::string::npos) << message;
  EXPECT_NE(message.find("FPREV_BACKEND_PATH"), std::string::npos) << message;
  EXPECT_NE(message_of_loading("../modtest").find("cannot name a backend module"), std::string::npos);
}

TEST_F(BackendModules, ADlopenFailureNamesTheFileAndDlerror) {
  const std::string message = message_of_loading("undefined_symbol");
  EXPECT_NE(message.find((kModuleDir / "fprev_backend_undefined_symbol.so").string()),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("fprev_test_symbol_nobody_defines"), std::string::npos) << message;
}

TEST_F(BackendModules, ALibraryWithoutEntryPointsIsNotAModule) {
  const std::string message = message_of_loading("not_a_module");
  EXPECT_NE(message.find("fprev_backend_not_a_module.so is not an fprev-golden backend module"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("FPREV_BACKEND_MODULE"), std::string::npos) << message;
}

TEST_F(BackendModules, AModuleBuiltForAnotherVersionIsRefusedBeforeItRuns) {
  const std::string message = message_of_loading("other_version");
  EXPECT_NE(message.find("was built for fprev-golden 0.0.1 libstdc++"), std::string::npos) << message;
  EXPECT_NE(message.find(FPREV_BACKEND_MODULE_ABI), std::string::npos) << message;
}

TEST_F(BackendModules, AModuleOfThisVersionBuiltAgainstOtherHeadersIsRefusedBeforeItRuns) {
  const std::string message = message_of_loading("other_headers");
  EXPECT_NE(message.find("was built for fprev-golden " FPREV_VERSION_STRING " headers 0123456789abcdef"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("the same version, other framework headers"), std::string::npos) << message;
  EXPECT_NE(message.find(FPREV_BACKEND_MODULE_ABI), std::string::npos) << message;
}

// The program's digest is that of the headers it was built from (a stale one would let a module of
// other headers through): 16 hex digits, recomputed from the sources by headers_digest_test.sh.
TEST(BackendModuleAbi, NamesTheVersionAndTheHeadersDigest) {
  const std::string abi = FPREV_BACKEND_MODULE_ABI;
  const std::string digest = FPREV_HEADERS_DIGEST;
  EXPECT_EQ(digest.size(), 16u);
  EXPECT_EQ(digest.find_first_not_of("0123456789abcdef"), std::string::npos) << digest;
  EXPECT_NE(abi.find(std::string(FPREV_VERSION_STRING) + " headers " + digest), std::string::npos) << abi;
}

TEST_F(BackendModules, ARegistrationThatFailsOrAddsNothingIsRefused) {
  EXPECT_NE(message_of_loading("throws").find("failed to register its backends: registration refused"),
            std::string::npos)
      << message_of_loading("throws");
  EXPECT_NE(message_of_loading("registers_nothing").find("registered no backend"), std::string::npos);
  // fprev_backend_misnamed.so registers "modtest": the file name promises "misnamed".
  EXPECT_NE(message_of_loading("misnamed").find("registers modtest but no backend named 'misnamed'"),
            std::string::npos)
      << message_of_loading("misnamed");
}

TEST_F(BackendModules, AModuleThatCannotBeLoadedStaysVisibleWithTheReason) {
  const BackendRegistry registry = registry_with_modules();
  const Backend* backend = registry.find("undefined_symbol");
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->name(), "undefined_symbol");
  EXPECT_EQ(registry.find("undefined_symbol"), backend);  // not retried
  try {
    backend->open({});
    FAIL() << "open() of an unloadable module succeeded";
  } catch (const BackendUnavailable& error) {
    EXPECT_NE(std::string(error.what()).find("fprev_test_symbol_nobody_defines"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW((void)backend->case_params(), BackendModuleError);
  // all() lists every module on the path, loadable or not.
  std::vector<std::string> names;
  for (const Backend* b : registry.all()) names.emplace_back(b->name());
  for (const char* expected : {"modtest", "undefined_symbol", "not_a_module", "other_version"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
}

}  // namespace
}  // namespace fprev
