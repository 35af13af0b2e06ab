// Launchers that die, hang or are no MPI launcher at all (fake launcher scripts in tests/fake):
// failures with the launcher's output, never a skip and never a process left behind.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "mpi_test_support.hpp"

namespace fprev::mpi {
namespace {

using test::contains;
using test::fake_launcher;
using test::open_mpi;
using test::process_alive;

Params case_params() { return {{"op", "allreduce"}, {"ranks", "2"}, {"dtype", "float64"}}; }

TEST(MpiLauncherFailures, ADyingLauncherFailsEveryCaseWithItsOutput) {
  const std::string launcher = fake_launcher("dying-launcher");
  auto instance = open_mpi({{"library", launcher}, {"probe", launcher}});
  const Identity identity = instance->identity();
  EXPECT_EQ(identity.library, "Open MPI");
  EXPECT_EQ(identity.version, "unknown");
  EXPECT_EQ(identity.platform_key, "openmpi");
  EXPECT_TRUE(contains(identity.details.at("launch_failure"), "no slots, no cheese"));
  try {
    instance->make_target(case_params());
    FAIL() << "a target of a launcher that dies";
  } catch (const TargetError& e) {
    EXPECT_TRUE(contains(e.what(), "exited with status 3")) << e.what();
    EXPECT_TRUE(contains(e.what(), "fake launcher: cannot start the job (no slots, no cheese)"))
        << e.what();
  }
}

TEST(MpiLauncherFailures, AHangingLauncherIsKilledWithEverythingItStarted) {
  const std::string launcher = fake_launcher("hanging-launcher");
  const std::filesystem::path pid_file =
      std::filesystem::temp_directory_path() / ("fprev-mpi-test-" + std::to_string(::getpid()));
  ::setenv("FPREV_MPI_TEST_PIDFILE", pid_file.c_str(), 1);
  const auto start = std::chrono::steady_clock::now();
  auto instance = open_mpi({{"library", launcher}, {"probe", launcher}, {"timeout", "1"}});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::unsetenv("FPREV_MPI_TEST_PIDFILE");
  EXPECT_GE(seconds, 1.0);  // the time limit was waited for, not skipped
  pid_t helper = 0;
  std::ifstream(pid_file) >> helper;
  std::filesystem::remove(pid_file);
  ASSERT_GT(helper, 0) << "the fake launcher did not start its helper";
  EXPECT_FALSE(process_alive(helper)) << "the launcher's helper (own session) survived";
  try {
    instance->make_target(case_params());
    FAIL() << "a target of a launcher that hangs";
  } catch (const TargetError& e) {
    EXPECT_TRUE(contains(e.what(), "only 0 of 1 ranks connected within 1 s")) << e.what();
    EXPECT_TRUE(contains(e.what(), "fake launcher: started, waiting for nothing")) << e.what();
    EXPECT_TRUE(contains(e.what(), "fprev-golden stopped the job")) << e.what();
  }
}

TEST(MpiLauncherFailures, AProgramThatIsNoMpiLauncherIsAConfigError) {
  try {
    open_mpi({{"library", fake_launcher("unknown-launcher")}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.parameter(), "library");
    EXPECT_TRUE(contains(e.what(), "frobnicator 2.0")) << e.what();
  }
}

TEST(MpiLauncherFailures, ALauncherThatDoesNotAnswerVersionIsAConfigError) {
  try {
    open_mpi({{"library", fake_launcher("hanging-version-launcher")}, {"timeout", "1"}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "did not finish")) << e.what();
  }
}

TEST(MpiLauncherFailures, WithoutMpiInstalledTheBackendIsUnavailableAndSaysWhy) {
  const std::string saved_path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  ::setenv("PATH", "/nonexistent-fprev-test-dir", 1);
  for (const auto& [library, package] :
       std::vector<std::pair<std::string, std::string>>{{"openmpi", "openmpi-bin"},
                                                        {"mpich", "mpich"}}) {
    try {
      open_mpi({{"library", library}});
      ADD_FAILURE() << library << " opened without a launcher in PATH";
    } catch (const BackendUnavailable& e) {
      EXPECT_TRUE(contains(e.what(), "is not installed")) << e.what();
      EXPECT_TRUE(contains(e.what(), "install " + package)) << e.what();
    }
  }
  ::setenv("PATH", saved_path.c_str(), 1);
  // The backend is registered all the same, and suites naming it validate.
  const Backend* backend = builtin_backends().find("mpi");
  ASSERT_NE(backend, nullptr);
  EXPECT_NO_THROW(backend->validate_case(
      resolve_params(backend->case_params(), {{"op", "reduce"}, {"ranks", "3"}}, "test")));
}

TEST(MpiLauncherFailures, BadLibraryOrProbeSettingsAreConfigErrors) {
  for (const Params& settings : std::vector<Params>{
           {{"library", "/nonexistent/mpirun"}},
           {{"library", "lam"}},
           {{"library", fake_launcher("dying-launcher")}, {"probe", "/nonexistent/probe"}},
           {{"library", fake_launcher("dying-launcher")},
            {"tuning", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring"}},  // MPICH's, for Open MPI
       }) {
    EXPECT_THROW(open_mpi(settings), ConfigError) << settings.begin()->second;
  }
}

}  // namespace
}  // namespace fprev::mpi
