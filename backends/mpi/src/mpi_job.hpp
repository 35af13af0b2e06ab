// One launched MPI job running the probe program: started for a launch (launcher, rank count,
// environment) and kept for every case of that launch (job_pool.hpp): a launch costs about half a
// second, a collective call milliseconds. Each case configures the collective it runs (op, dtype,
// count) before its calls. Every rank
// connects to a Unix socket in a private temporary directory, or over TCP with the job's token
// when ranks may run on other nodes (rank_listener.hpp, probe/wire.hpp).
//
// Anything that goes wrong — the launcher cannot start, exits, a rank crashes, a call takes longer
// than the time limit, a rank sends something malformed — stops the whole process tree and throws
// JobFailure with what happened and the end of the launcher's output.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fprev/target.hpp"
#include "node_layout.hpp"
#include "process_tree.hpp"
#include "rank_listener.hpp"
#include "wire.hpp"

namespace fprev::mpi {

class JobFailure : public TargetError {
 public:
  using TargetError::TargetError;
};

struct JobConfig {
  std::string launcher;                     // absolute path
  std::vector<std::string> launcher_args;   // up to the program: -np 8 --oversubscribe ...
  std::vector<std::string> environment;     // complete, "NAME=value"
  std::string probe;                        // absolute path of the probe program
  std::vector<std::string> probe_args;      // --cvar NAME ... (the identification job)
  int ranks = 1;
  std::chrono::milliseconds timeout{60000};  // for the start and for each call
  std::string what;                         // "Open MPI job of 8 ranks", for messages (configure() sets the case's)
  // Ranks may run on other nodes: they connect over TCP (the launcher must pass the token
  // variable on to them, launcher.hpp).
  bool over_tcp = false;
  // Where the ranks must run; checked from their processor names when they connect.
  std::optional<NodeLayout> layout;
};

// What rank 0 reported when it connected.
struct JobHello {
  std::string library_version;              // MPI_Get_library_version()
  int mpi_version = 0, mpi_subversion = 0;  // MPI_Get_version()
  std::map<std::string, std::string> cvars; // the MPI_T control variables asked for
  std::vector<std::string> processor_names;  // every rank's MPI_Get_processor_name(), by rank
};

class MpiJob {
 public:
  // Creates the socket directory, starts the launcher and waits until every rank has connected.
  explicit MpiJob(JobConfig config);
  ~MpiJob();  // quit(), or stop the tree when that fails
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;

  const JobHello& hello() const { return hello_; }
  const JobConfig& config() const { return config_; }

  // Whether the job can take requests: not failed or quit, and its launcher still running.
  bool running();

  // The collective the following calls run, and `what` names it in messages from now on. Every
  // rank must acknowledge it.
  void configure(const wire::Configuration& configuration, const std::string& what);

  // One collective call: rank r's send buffer is filled from values[r * width, (r + 1) * width)
  // (element e gets value e % width). Returns what every rank sent back, by rank.
  std::vector<std::vector<double>> call(std::span<const double> values, std::size_t width);

  // Asks every rank to leave and waits for the launcher to exit with status 0.
  void quit();
  // quit() in two steps, so that several jobs end side by side: ask, then wait.
  void request_quit();
  void await_quit();
  // Ends the job at once (SIGTERM to the launcher, then SIGKILL), without asking its ranks: for
  // a job whose last case failed, which may be in any state.
  void stop();

  // The descendants of the launcher still alive (tests check that none remain).
  std::vector<int> live_processes();

  // How often the ranks gave their cores up while waiting in a collective, added up over the ranks
  // as of their last answers (the probe's --idle-yield on: wire::Response::idle_yields).
  std::uint64_t idle_yields() const;

 private:
  [[noreturn]] void fail(const std::string& what);
  void check_not_ended(const std::string& what) const;
  void release();  // the tree, the connections, the directory
  void check_running(const char* while_doing);
  void accept_ranks();
  // Reads a TCP connection's token; false (and the connection closed) when it is not the job's.
  bool authenticate(int fd, std::chrono::steady_clock::time_point deadline);
  void receive_greeting(int fd, std::chrono::steady_clock::time_point deadline);
  // Returns when `fd` is ready for `events`; fails when the launcher ends meanwhile or the
  // deadline passes (with timeout_message()).
  void await(int fd, short events, std::chrono::steady_clock::time_point deadline,
             const char* while_doing, const std::function<std::string()>& timeout_message);
  void send_all(int rank, const void* data, std::size_t size,
                std::chrono::steady_clock::time_point deadline);
  // A rank's Response and the values after it; fails (`refused` says what the rank did) when it
  // reports an error.
  std::vector<double> receive_response(std::size_t rank, std::chrono::steady_clock::time_point deadline,
                                       const char* while_doing, const char* refused);
  void receive_all(int fd, void* data, std::size_t size,
                   std::chrono::steady_clock::time_point deadline, const std::string& what,
                   const char* while_doing);

  JobConfig config_;
  std::filesystem::path directory_;
  std::filesystem::path socket_path_;
  std::filesystem::path output_path_;
  std::optional<RankListener> listener_;
  std::vector<int> rank_fds_;
  std::unique_ptr<ProcessTree> tree_;
  JobHello hello_;
  bool finished_ = false;
  bool quit_requested_ = false;
  std::string failure_;  // what fail() reported
  std::size_t cases_served_ = 0;  // configurations so far, the current case's included
  std::vector<std::uint64_t> idle_yields_;  // by rank, from its last answer
};

}  // namespace fprev::mpi
