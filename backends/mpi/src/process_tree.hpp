// A launched program and every process it starts (an MPI launcher and its ranks), with its standard
// output and error going to a file, ended as a whole.
//
// MPI launchers do not keep their ranks in their own process group: Open MPI gives every rank a
// group of its own, MPICH's hydra even a session of its own. So the tree is followed through the
// parent links in /proc (pid + start time, so a recycled pid is never touched), and stop() first
// asks the launcher to end its job (SIGTERM: it cleans up its ranks and shared memory), then kills
// whatever of the tree is left. The launcher also gets SIGTERM when the process that started it
// dies (PR_SET_PDEATHSIG), and the probe ranks abort when their connection closes, so no rank
// outlives fprev-golden.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace fprev::mpi {

struct ProcessSpec {
  std::string program;                   // absolute path, or a name looked up in PATH
  std::vector<std::string> arguments;    // without argv[0]
  std::vector<std::string> environment;  // "NAME=value", the complete environment
  std::filesystem::path output_file;     // receives stdout and stderr
};

class ProcessTree {
 public:
  // Starts the program; throws std::runtime_error when it cannot be executed.
  explicit ProcessTree(const ProcessSpec& spec);
  ~ProcessTree();  // stop()
  ProcessTree(const ProcessTree&) = delete;
  ProcessTree& operator=(const ProcessTree&) = delete;

  pid_t pid() const { return pid_; }
  // True once the launcher has exited (it is reaped then); its ranks may still be alive.
  bool exited();
  // Waits up to `limit` for the launcher to exit by itself.
  bool wait_exit(std::chrono::milliseconds limit);
  // "exited with status 3", "killed by signal 9 (Killed)", "still running".
  std::string exit_description() const;
  std::optional<int> exit_code() const;  // set when it exited normally

  // Ends the launcher and every descendant still alive: SIGTERM to the launcher, up to `grace`
  // for the tree to end by itself, then SIGKILL to all that remain. Returns the pids that had
  // to be killed (empty when the launcher cleaned up). Idempotent.
  std::vector<pid_t> stop(std::chrono::milliseconds grace = std::chrono::milliseconds(3000));

  // The descendants currently alive (for tests and diagnostics).
  std::vector<pid_t> live_descendants();

 private:
  struct Known {
    pid_t pid;
    std::uint64_t start_time;
    bool operator<(const Known& other) const {
      return std::pair(pid, start_time) < std::pair(other.pid, other.start_time);
    }
  };
  void track_descendants();
  bool alive(const Known& process) const;

  pid_t pid_ = -1;
  std::uint64_t start_time_ = 0;
  std::optional<int> wait_status_;
  std::set<Known> known_;
  bool stopped_ = false;
};

// Runs a short command (a launcher's --version) to completion, killed after `limit`.
struct CommandResult {
  std::string output;  // stdout and stderr
  std::optional<int> exit_code;
  bool timed_out = false;
  std::string status;  // "exited with status 0", "did not finish within 10 s (killed)"
};
CommandResult run_command(const std::string& program, const std::vector<std::string>& arguments,
                          const std::vector<std::string>& environment,
                          std::chrono::milliseconds limit);

// The last `max_bytes` of a file (whole lines where possible), for error messages.
std::string file_tail(const std::filesystem::path& file, std::size_t max_bytes = 4000);

}  // namespace fprev::mpi
