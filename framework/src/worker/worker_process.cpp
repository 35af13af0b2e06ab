#include "worker/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>

#include "fprev/processes.hpp"
#include "worker/limits.hpp"

extern char** environ;

namespace fprev::worker {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kOutputKeptBytes = 16 * 1024;  // of what the worker wrote, the last bytes
constexpr std::size_t kTailLines = 20;
constexpr std::size_t kTailLineChars = 240;
constexpr auto kMemoryPollInterval = std::chrono::milliseconds(20);

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

std::string signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    default: return "signal " + std::to_string(signal);
  }
}

// Control characters shown escaped: a library's output must not drive the terminal.
std::string printable(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\t') {
      out += "    ";
    } else if (c < 0x20 || c == 0x7f) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
      out += buffer;
    } else {
      out += ch;
    }
  }
  return out;
}

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string format_seconds(double seconds) {
  std::ostringstream os;
  os.precision(seconds < 10 ? 2 : 3);
  os << seconds << " s";
  return os.str();
}

// Variables by which an MPI launcher tells its ranks who they are, when the gate is itself a rank
// (distributed mode). A worker is never one of the job's ranks, and an MPI launcher that a worker
// starts (the mpi backend's) must start a job of its own, not join the gate's.
bool inside_mpi_job() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_RANK") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

bool is_mpi_job_variable(std::string_view entry) {
  for (const char* prefix : {"OMPI_", "PMIX_", "PMI_", "HYDRA_", "MPIR_", "OPAL_", "PRTE_", "MPI_LOCAL"})
    if (entry.starts_with(prefix)) return true;
  return false;
}

std::atomic<WorkerPlacement> worker_placement_hook{nullptr};

struct ChildSetup {
  char** argv;
  char** envp;
  int output;  // becomes stdout and stderr
  int socket;  // becomes kSocketFd
  int shared_memory;  // becomes kSharedMemoryFd
};

// In the child between fork and exec: async-signal-safe calls only (the gate has threads). The
// worker dies with the thread that started it (PR_SET_PDEATHSIG survives exec; checked against a
// gate that died before the call), is a child subreaper (PR_SET_CHILD_SUBREAPER survives exec
// too: a process its code starts and orphans, even one that called setsid(), stays below it, where
// the supervisor finds and kills it), and leads its own process group, so that a kill reaches what
// it started. Signals at their defaults (the gate ignores SIGPIPE; a worker must not inherit that).
[[noreturn]] void become_worker(const ChildSetup& setup, pid_t supervisor, int error_pipe) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != supervisor) ::_exit(127);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD}) ::sigaction(s, &default_action, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  const int null_input = ::open("/dev/null", O_RDONLY);
  if (null_input < 0 || ::dup2(null_input, 0) < 0 || ::dup2(setup.output, 1) < 0 || ::dup2(setup.output, 2) < 0 ||
      ::dup2(setup.socket, kSocketFd) < 0 || ::dup2(setup.shared_memory, kSharedMemoryFd) < 0) {
    const int error = errno;
    [[maybe_unused]] const ssize_t n = ::write(error_pipe, &error, sizeof error);
    ::_exit(127);
  }
  ::execvpe(setup.argv[0], setup.argv, setup.envp);
  const int error = errno;
  [[maybe_unused]] const ssize_t n = ::write(error_pipe, &error, sizeof error);
  ::_exit(127);
}

// Starts the worker; returns 0, or the errno of what failed (fork, or exec in the child, which
// reports it through a close-on-exec pipe: end of file there means the exec succeeded).
int spawn_worker(const ChildSetup& setup, pid_t& pid) {
  int error_pipe[2];
  if (::pipe2(error_pipe, O_CLOEXEC) != 0) return errno;
  // Above the descriptors the child sets up (a free 3 or 4 would be overwritten there).
  error_pipe[0] = high_fd(error_pipe[0]);
  error_pipe[1] = high_fd(error_pipe[1]);
  const pid_t supervisor = ::getpid();
  pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(error_pipe[0]);
    ::close(error_pipe[1]);
    return error;
  }
  if (pid == 0) become_worker(setup, supervisor, error_pipe[1]);
  ::close(error_pipe[1]);
  int child_error = 0;
  ssize_t got = 0;
  while ((got = ::read(error_pipe[0], &child_error, sizeof child_error)) < 0 && errno == EINTR) {
  }
  ::close(error_pipe[0]);
  if (got == static_cast<ssize_t>(sizeof child_error)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return child_error;
  }
  return 0;
}

// The resident memory of every worker this process runs, as each last measured its own: the memory
// limit is a total across them (--worker-memory), not a limit per worker, so that N probe streams
// cannot take N times the limit. A worker measures itself only while it works on a call; an idle
// worker's memory does not grow, so its last measure stands.
class WorkerMemoryLedger {
 public:
  void set(const void* worker, std::size_t bytes) {
    const std::lock_guard lock(mutex_);
    resident_[worker] = bytes;
  }
  void remove(const void* worker) {
    const std::lock_guard lock(mutex_);
    resident_.erase(worker);
  }
  std::size_t total() const {
    const std::lock_guard lock(mutex_);
    std::size_t sum = 0;
    for (const auto& [worker, bytes] : resident_) sum += bytes;
    return sum;
  }

 private:
  mutable std::mutex mutex_;
  std::map<const void*, std::size_t> resident_;
};

// Never destroyed: a worker owned by an object of static storage (a benchmark's backend instance)
// is destroyed at exit after this ledger would be (it is constructed later, at the first call), and
// its destructor still removes itself from the ledger: a use after free that corrupted the heap.
WorkerMemoryLedger& memory_ledger() {
  static WorkerMemoryLedger* const ledger = new WorkerMemoryLedger;
  return *ledger;
}

std::string mebibytes(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

void set_worker_placement(WorkerPlacement chosen) { worker_placement_hook = chosen; }

std::unique_ptr<WorkerChannel> start_worker(const WorkerCommand& command, const std::string& subject) {
  if (const WorkerPlacement chosen = worker_placement_hook.load()) return chosen(command, subject);
  return std::make_unique<WorkerProcess>(command, subject);
}

WorkerProcess::WorkerProcess(const WorkerCommand& command, std::string subject)
    : subject_(std::move(subject)) {
  if (command.argv.empty()) throw TargetError("internal: an empty worker command");
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    throw std::system_error(errno, std::generic_category(), "socketpair");
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    ::close(sockets[0]);
    ::close(sockets[1]);
    throw std::system_error(errno, std::generic_category(), "pipe2");
  }
  socket_ = high_fd(sockets[0]);
  const int child_socket = high_fd(sockets[1]);
  output_ = high_fd(pipe_fds[0]);
  const int child_output = high_fd(pipe_fds[1]);
  shm_.create(1u << 20);

  std::vector<std::string> environment_strings;
  const bool scrub = inside_mpi_job();
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const bool replaced = std::any_of(command.environment.begin(), command.environment.end(),
                                      [&](const auto& v) { return entry.starts_with(v.first + "="); });
    if (!replaced && !(scrub && is_mpi_job_variable(entry))) environment_strings.emplace_back(entry);
  }
  for (const auto& [name, value] : command.environment) environment_strings.push_back(name + "=" + value);
  // Who supervises it: a worker (the Python one) checks that this process still lives.
  environment_strings.push_back("FPREV_SUPERVISOR_PID=" + std::to_string(::getpid()));
  std::vector<char*> envp, argv;
  for (auto& s : environment_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arguments = command.argv;
  for (auto& s : arguments) argv.push_back(s.data());
  argv.push_back(nullptr);

  const int error = spawn_worker(ChildSetup{argv.data(), envp.data(), child_output, child_socket, shm_.fd()}, pid_);
  ::close(child_socket);
  ::close(child_output);
  if (error != 0) {
    pid_ = -1;
    throw BackendUnavailable("cannot start the worker program " + command.argv[0] + ": " + std::strerror(error),
                             Unavailability::unusable);
  }
  set_nonblocking(socket_);
  set_nonblocking(output_);
  // The hello: the worker is up and speaks our protocol version.
  Json hello;
  const auto start = Clock::now();
  const double floor = worker_limits().watchdog_floor_seconds;
  const Wait waited = wait_for_reply(start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(floor)), hello);
  const InFlight starting{"starting (before its first message)", subject_, 0};
  if (waited != Wait::reply) fault(waited, starting, seconds_between(start, Clock::now()), floor);
  if (hello.value("protocol", 0) != kProtocolVersion) {
    faulted_ = true;
    kill_group();
    throw TargetFault("protocol error",
                      "the worker of " + subject_ + " speaks protocol " + hello.value("protocol", Json()).dump() +
                          ", this program " + std::to_string(kProtocolVersion),
                      "a worker program from another version of fprev-golden");
  }
}

WorkerProcess::~WorkerProcess() {
  memory_ledger().remove(this);
  if (pid_ > 0) kill_group();
  if (socket_ >= 0) ::close(socket_);
  if (output_ >= 0) ::close(output_);
}

void WorkerProcess::kill_group() {
  memory_ledger().remove(this);
  if (pid_ <= 0) return;
  // What it started first, while it lives: as a subreaper it holds every orphan of its tree, also
  // those that left its group with setsid().
  kill_descendants(pid_);
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

std::string WorkerProcess::reap_status() {
  memory_ledger().remove(this);
  kill_descendants(pid_);  // while it is still exiting, its tree is below it
  int status = 0;
  pid_t got = 0;
  // The socket closed: the worker is exiting; give it a moment before calling it hung in exit.
  for (int k = 0; k < 200 && (got = ::waitpid(pid_, &status, WNOHANG)) == 0; ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (got == 0) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return "closed its socket and hung";
  }
  ::kill(-pid_, SIGKILL);  // whatever it started
  pid_ = -1;
  if (WIFSIGNALED(status)) return "crashed (" + signal_name(WTERMSIG(status)) + ")";
  if (WIFEXITED(status)) return "exited (status " + std::to_string(WEXITSTATUS(status)) + ")";
  return "stopped";
}

void WorkerProcess::drain_output() {
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::read(output_, buffer, sizeof buffer);
    if (n <= 0) return;
    output_buffer_.append(buffer, static_cast<std::size_t>(n));
    if (output_buffer_.size() > 2 * kOutputKeptBytes)
      output_buffer_.erase(0, output_buffer_.size() - kOutputKeptBytes);
  }
}

std::string WorkerProcess::output_tail() const {
  std::string_view text(output_buffer_);
  if (text.size() > kOutputKeptBytes) text = text.substr(text.size() - kOutputKeptBytes);
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  const std::size_t first = lines.size() > kTailLines ? lines.size() - kTailLines : 0;
  std::string tail;
  if (first > 0) tail += "    [" + std::to_string(first) + " earlier lines not shown]\n";
  for (std::size_t k = first; k < lines.size(); ++k) {
    std::string line = printable(lines[k]);
    if (line.size() > kTailLineChars) line = line.substr(0, kTailLineChars) + " [cut]";
    tail += "    " + line + "\n";
  }
  return tail;
}

std::size_t WorkerProcess::resident_bytes() const {
  std::ifstream statm("/proc/" + std::to_string(pid_) + "/statm");
  std::size_t total = 0, resident = 0;
  if (!(statm >> total >> resident)) return 0;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

bool WorkerProcess::send_all(const std::string& bytes, Clock::time_point deadline) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(socket_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      drain_output();
      if (Clock::now() >= deadline) return false;
      pollfd p{socket_, POLLOUT, 0};
      ::poll(&p, 1, 20);
      continue;
    }
    return false;  // EPIPE, ECONNRESET: it died; the wait below names how
  }
  return true;
}

WorkerProcess::Wait WorkerProcess::wait_for_reply(Clock::time_point watchdog, Json& reply) {
  const auto case_deadline = active_case_deadline();
  const std::size_t memory_limit = worker_memory_limit();
  auto next_memory_check = Clock::now() + kMemoryPollInterval;
  for (;;) {
    // A whole frame received?
    if (received_.size() >= 4) {
      const auto* p = reinterpret_cast<const unsigned char*>(received_.data());
      const std::uint32_t size = p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
      if (size > kMaxFrameBytes) throw ProtocolError("a reply frame of " + std::to_string(size) + " bytes");
      if (received_.size() >= 4 + static_cast<std::size_t>(size)) {
        reply = Json::parse(received_.begin() + 4, received_.begin() + 4 + size, nullptr, false);
        received_.erase(0, 4 + static_cast<std::size_t>(size));
        if (reply.is_discarded() || !reply.is_object()) throw ProtocolError("a reply that is not a JSON object");
        return Wait::reply;
      }
    }
    const auto now = Clock::now();
    if (case_deadline && now >= case_deadline->at) return Wait::hung_case_deadline;
    if (now >= watchdog) return Wait::hung_watchdog;
    if (now >= next_memory_check) {
      memory_ledger().set(this, resident_bytes());
      if (memory_ledger().total() > memory_limit) return Wait::out_of_memory;
      next_memory_check = now + kMemoryPollInterval;
    }
    auto until = std::min(watchdog, next_memory_check);
    if (case_deadline) until = std::min(until, case_deadline->at);
    const int timeout_ms = static_cast<int>(
        std::clamp<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1, 1, 1000));
    pollfd fds[2] = {{socket_, POLLIN, 0}, {output_, POLLIN, 0}};
    const int ready = ::poll(fds, 2, timeout_ms);
    if (ready < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "poll");
    if (fds[1].revents != 0) drain_output();
    if (fds[0].revents != 0) {
      char buffer[65536];
      const ssize_t n = ::recv(socket_, buffer, sizeof buffer, 0);
      if (n > 0) {
        received_.append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        return Wait::died;
      }
    }
  }
}

void WorkerProcess::fault(Wait why, const InFlight& in_flight, double waited, double allowed) {
  faulted_ = true;
  std::string name, cause;
  switch (why) {
    case Wait::died:
      name = reap_status();
      cause = name.starts_with("exited")
                  ? "the library ended the process (exit() or a library that exits when it rejects a "
                    "parameter, e.g. netlib's xerbla)"
                  : "the library crashed inside the call (a bug in the library for this shape, data or CPU)";
      if (name == "crashed (SIGKILL)") cause = "killed from outside, often by the kernel's out-of-memory killer";
      break;
    case Wait::out_of_memory: {
      const std::size_t own = resident_bytes();
      const std::size_t total = memory_ledger().total();
      kill_group();
      name = "crashed (out of memory)";
      cause = "the library allocated too much: this worker held " + mebibytes(own) + ", and the workers of this run " +
              mebibytes(total) + " together, more than the worker memory limit of " +
              mebibytes(worker_memory_limit()) + " (--worker-memory, a total across all workers of the run)";
      break;
    }
    case Wait::hung_case_deadline: {
      kill_group();
      const auto deadline = active_case_deadline();
      name = "hung";
      cause = "no answer before the case's time budget of " +
              format_seconds(deadline ? deadline->budget_seconds : waited) +
              " ran out (max_seconds, --max-seconds); the worker was killed";
      break;
    }
    case Wait::hung_watchdog:
      kill_group();
      name = "hung";
      cause = "no answer within " + format_seconds(allowed) +
              " (the watchdog: the larger of --watchdog and 50 x the slowest call so far x the calls "
              "in flight); the worker was killed";
      break;
    case Wait::reply: break;
  }
  drain_output();
  std::string message = name + " while " + in_flight.what + " of " + in_flight.subject;
  message += " (after " + format_seconds(waited) + ")";
  const std::string tail = output_tail();
  message += tail.empty() ? "; it wrote nothing to stdout or stderr" : "; the last lines it wrote:\n" + tail;
  if (!message.empty() && message.back() == '\n') message.pop_back();
  throw TargetFault(name, message, cause);
}

Json WorkerProcess::call(Json request, const InFlight& in_flight) {
  if (!usable()) throw TargetFault("unusable", "the worker of " + subject_ + " is gone after an earlier fault", "");
  request["shm"] = shm_.size();
  const auto start = Clock::now();
  const WorkerLimits limits = worker_limits();
  double allowed = limits.watchdog_floor_seconds;
  if (in_flight.calls > 0)
    allowed = std::max(allowed, limits.watchdog_factor * static_cast<double>(in_flight.calls) * slowest_call_seconds_);
  const auto watchdog = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(allowed));
  Json reply;
  Wait waited = Wait::died;
  try {
    if (send_all(encode_frame(request), watchdog)) waited = wait_for_reply(watchdog, reply);
    else if (Clock::now() >= watchdog) waited = Wait::hung_watchdog;
  } catch (const ProtocolError& e) {
    faulted_ = true;
    kill_group();
    drain_output();
    throw TargetFault("protocol error", "the worker of " + subject_ + " broke the protocol while " + in_flight.what +
                                            ": " + e.what() + "\n" + output_tail(),
                      "something in the worker wrote to its message socket");
  }
  const double seconds = seconds_between(start, Clock::now());
  if (waited != Wait::reply) fault(waited, in_flight, seconds, allowed);
  if (in_flight.calls > 0)
    slowest_call_seconds_ = std::max(slowest_call_seconds_, seconds / static_cast<double>(in_flight.calls));
  return reply;
}

}  // namespace fprev::worker
