// fprev/processes.hpp (issue 34): a process that left its parent's group and session with setsid()
// is still found below a child subreaper, and killed with the rest of the tree.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "fprev/processes.hpp"

namespace fprev {
namespace {

bool alive(pid_t pid) {
  const auto stat = read_process_stat(pid);
  return stat && !stat->gone();
}

TEST(Processes, ASetsidGrandchildIsFoundAndKilledBelowASubreaper) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t root = ::fork();
  ASSERT_GE(root, 0);
  if (root == 0) {
    // The root: a subreaper whose child starts a grandchild in a session of its own and exits.
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    const pid_t middle = ::fork();
    if (middle == 0) {
      ::setsid();
      const pid_t grandchild = ::fork();
      if (grandchild == 0) {
        for (;;) ::pause();
      }
      [[maybe_unused]] const ssize_t n = ::write(pipe_fds[1], &grandchild, sizeof grandchild);
      ::_exit(0);
    }
    ::waitpid(middle, nullptr, 0);
    for (;;) ::pause();
  }
  pid_t grandchild = 0;
  ASSERT_EQ(::read(pipe_fds[0], &grandchild, sizeof grandchild), static_cast<ssize_t>(sizeof grandchild));
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  // Orphaned when the middle process exited: re-parented to the root, not to PID 1.
  for (int k = 0; k < 200 && read_process_stat(grandchild) && read_process_stat(grandchild)->parent != root; ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(alive(grandchild));
  EXPECT_EQ(read_process_stat(grandchild)->parent, root);
  const auto found = live_descendants(root);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.front().pid, grandchild);

  EXPECT_EQ(kill_descendants(root), 1u);
  for (int k = 0; k < 200 && alive(grandchild); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(alive(grandchild));
  EXPECT_TRUE(alive(root));  // the root itself is not signalled
  ::kill(root, SIGKILL);
  ::waitpid(root, nullptr, 0);
}

}  // namespace
}  // namespace fprev
