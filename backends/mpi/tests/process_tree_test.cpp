// Process trees: a launcher and everything it starts end together, also the parts that left its
// process group or session, and exit statuses and output are reported.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "launcher.hpp"
#include "mpi_test_support.hpp"
#include "process_tree.hpp"

namespace fprev::mpi {
namespace {

using test::process_alive;
using test::TempDir;

ProcessSpec shell(const std::string& script, const std::filesystem::path& output) {
  return {"/bin/sh", {"-c", script}, current_environment(), output};
}

std::vector<pid_t> read_pids(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<pid_t> pids;
  for (pid_t pid; in >> pid;) pids.push_back(pid);
  return pids;
}

TEST(MpiProcessTree, ReportsExitStatusAndOutput) {
  TempDir dir;
  ProcessTree tree(shell("echo one; echo two >&2; exit 3", dir.path / "out"));
  ASSERT_TRUE(tree.wait_exit(std::chrono::seconds(10)));
  EXPECT_EQ(tree.exit_code(), 3);
  EXPECT_EQ(tree.exit_description(), "exited with status 3");
  EXPECT_EQ(file_tail(dir.path / "out"), "one\ntwo");
}

TEST(MpiProcessTree, ReportsASignal) {
  TempDir dir;
  ProcessTree tree(shell("kill -9 $$", dir.path / "out"));
  ASSERT_TRUE(tree.wait_exit(std::chrono::seconds(10)));
  EXPECT_EQ(tree.exit_code(), std::nullopt);
  EXPECT_NE(tree.exit_description().find("signal 9"), std::string::npos) << tree.exit_description();
}

TEST(MpiProcessTree, AProgramThatCannotRunIsAnError) {
  TempDir dir;
  EXPECT_THROW(ProcessTree({"/nonexistent/launcher", {}, {}, dir.path / "out"}), std::runtime_error);
}

TEST(MpiProcessTree, StopEndsDescendantsInOtherGroupsAndSessions) {
  TempDir dir;
  const auto pids = dir.path / "pids";
  // Children in a session of their own and one that ignores SIGTERM: like MPICH's proxies, they
  // are beyond the reach of a signal to the launcher's process group.
  ProcessTree tree(shell("setsid sleep 600 & echo $! >> " + pids.string() +
                             "; (trap '' TERM; exec sleep 600) & echo $! >> " + pids.string() +
                             "; sleep 600",
                         dir.path / "out"));
  for (int i = 0; i < 500 && read_pids(pids).size() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const std::vector<pid_t> children = read_pids(pids);
  ASSERT_EQ(children.size(), 2u);
  for (pid_t pid : children) EXPECT_TRUE(process_alive(pid));
  EXPECT_GE(tree.live_descendants().size(), 3u);  // both, and the shell's own sleep
  const auto killed = tree.stop(std::chrono::milliseconds(300));
  EXPECT_FALSE(killed.empty());  // the sleeps ignore the launcher's end
  for (pid_t pid : children) EXPECT_FALSE(process_alive(pid)) << pid;
  EXPECT_FALSE(process_alive(tree.pid()));
  EXPECT_TRUE(tree.live_descendants().empty());
  EXPECT_TRUE(tree.stop().empty());  // idempotent
}

TEST(MpiProcessTree, ALauncherThatCleansUpNeedsNoKill) {
  TempDir dir;
  ProcessTree tree(shell("exec sleep 600", dir.path / "out"));
  EXPECT_TRUE(tree.stop(std::chrono::seconds(5)).empty());
  EXPECT_NE(tree.exit_description().find("signal 15"), std::string::npos);
}

TEST(MpiProcessTree, RunCommandKillsACommandThatHangs) {
  const CommandResult done = run_command("/bin/sh", {"-c", "echo hello"}, current_environment(),
                                         std::chrono::seconds(10));
  EXPECT_EQ(done.output, "hello");
  EXPECT_EQ(done.exit_code, 0);
  EXPECT_FALSE(done.timed_out);
  const CommandResult hung = run_command("/bin/sh", {"-c", "echo started; sleep 600"},
                                         current_environment(), std::chrono::milliseconds(300));
  EXPECT_TRUE(hung.timed_out);
  EXPECT_EQ(hung.output, "started");
}

}  // namespace
}  // namespace fprev::mpi
