// The processes of this machine as /proc lists them, for the code that must end every process it
// started, including those that left its process group or session (an MPI launcher's ranks; a
// target that calls setsid() and forks). Linux only.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace fprev {

struct ProcessStat {
  pid_t pid = 0;
  pid_t parent = 0;
  char state = '?';              // 'Z': a zombie, 'X': dead
  std::uint64_t start_time = 0;  // clock ticks after boot: with the pid, identifies a process
  bool gone() const { return state == 'Z' || state == 'X'; }
};

// /proc/<pid>/stat of one process; nullopt when it does not exist (any more).
std::optional<ProcessStat> read_process_stat(pid_t pid);

// Every process /proc shows.
std::vector<ProcessStat> list_processes();

// The live descendants of `root` (not `root` itself), found through the parent links.
std::vector<ProcessStat> live_descendants(pid_t root);

// Sends SIGKILL to every live descendant of `root`, again until none is left (a process may fork
// while its siblings are killed; at most a few rounds). `root` is not signalled. Returns how many
// processes were killed. A descendant whose parent dies is reparented to the nearest "child subreaper"
// (PR_SET_CHILD_SUBREAPER) above it: call this while `root`, a subreaper, still lives, and no
// descendant can escape.
std::size_t kill_descendants(pid_t root);

}  // namespace fprev
