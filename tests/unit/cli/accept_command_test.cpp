// The printed accept command: quoting, repeated selection arguments, environment overrides.
#include "accept_command.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace fprev::cli {
namespace {

TEST(AcceptCommand, ShellQuoting) {
  EXPECT_EQ(shell_quote("gemm-float32-m64n64k256"), "gemm-float32-m64n64k256");
  EXPECT_EQ(shell_quote("/opt/x_y/lib.so.0"), "/opt/x_y/lib.so.0");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
  EXPECT_EQ(shell_quote("a=b"), "'a=b'");  // never read as an assignment
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(AcceptCommand, ProgramAsInvoked) {
  EXPECT_EQ(program_as_invoked("build/framework/cli/fprev-golden"), "build/framework/cli/fprev-golden");
  EXPECT_EQ(program_as_invoked("fprev-golden"), "fprev-golden");
  EXPECT_EQ(running_executable("x").front(), '/');
}

Suite tiny_suite(const std::string& use) {
  Suite suite;
  suite.name = "my suite";
  suite.backends.push_back({"inst", use, {}, 0, 0});
  SuiteCase c;  // by member, so that a new field of SuiteCase needs no edit here
  c.id = "dot-float32-n8";
  c.backend_instance = "inst";
  suite.cases.push_back(c);
  return suite;
}

TEST(AcceptCommand, RepeatsTheSelectionAndQuotes) {
  const Suite suite = tiny_suite("reference");
  const AcceptCommand accept("/path with space/fprev-golden", {"--suites", "/p/suites", "--golden", "/p/golden"});
  EXPECT_EQ(accept.for_case(suite, suite.cases[0]),
            "'/path with space/fprev-golden' update --suites /p/suites --golden /p/golden "
            "--suite 'my suite' --backend inst --case dot-float32-n8");
}

// A case labelled long is left out of update unless named: its command names the label, and the
// whole suite's command does not (the suite's long cases stay opt-in).
TEST(AcceptCommand, NamesTheLongLabelOfALongCase) {
  Suite suite = tiny_suite("reference");
  suite.cases[0].labels = {"long", "mine"};
  const std::string command = AcceptCommand("fprev-golden", {}).for_case(suite, suite.cases[0]);
  EXPECT_EQ(command, "fprev-golden update --suite 'my suite' --backend inst --case dot-float32-n8 --label long");
  EXPECT_EQ(AcceptCommand::for_whole_suite(command), "fprev-golden update --suite 'my suite'");
}

TEST(AcceptCommand, SetsTheOverridesOfTheCasesBackend) {
  const Suite suite = tiny_suite("tcsim");
  ::setenv("FPREV_TCSIM_ARCH", "ampere", 1);
  ::setenv("FPREV_BLAS_LIBRARY", "blis", 1);  // another backend's: not part of this command
  const std::string command = AcceptCommand("fprev-golden", {}).for_case(suite, suite.cases[0]);
  ::unsetenv("FPREV_TCSIM_ARCH");
  ::unsetenv("FPREV_BLAS_LIBRARY");
  EXPECT_EQ(command, "FPREV_TCSIM_ARCH=ampere fprev-golden update --suite 'my suite' --backend inst "
                     "--case dot-float32-n8");
}

TEST(AcceptCommand, SetsTheBackendModulePathInEffect) {
  const Suite suite = tiny_suite("reference");
  ::setenv("FPREV_BACKEND_PATH", "/p/build:/opt/my modules", 1);
  const std::string command = AcceptCommand("fprev-golden", {}).for_case(suite, suite.cases[0]);
  ::unsetenv("FPREV_BACKEND_PATH");
  EXPECT_EQ(command, "FPREV_BACKEND_PATH='/p/build:/opt/my modules' fprev-golden update --suite "
                     "'my suite' --backend inst --case dot-float32-n8");
  EXPECT_EQ(AcceptCommand("fprev-golden", {}).for_case(suite, suite.cases[0]),
            "fprev-golden update --suite 'my suite' --backend inst --case dot-float32-n8");
}

}  // namespace
}  // namespace fprev::cli
