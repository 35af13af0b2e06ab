#include "process_tree.hpp"

#include "fprev/processes.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <thread>

namespace fprev::mpi {
namespace {

using Clock = std::chrono::steady_clock;

// The process list is the framework's (fprev/processes.hpp).
using ProcStat = ProcessStat;
std::optional<ProcStat> read_stat(pid_t pid) { return read_process_stat(pid); }
std::vector<ProcStat> all_processes() { return list_processes(); }

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

[[noreturn]] void report_errno_and_exit(int error_pipe) {
  const int error = errno;
  [[maybe_unused]] const ssize_t n = ::write(error_pipe, &error, sizeof error);
  ::_exit(127);
}

// In the child between fork and exec: only async-signal-safe calls. Reports errno through
// `error_pipe` when something fails.
[[noreturn]] void exec_child(const char* program, char* const* argv, char* const* envp,
                             const char* output, pid_t parent, int error_pipe) {
  ::setpgid(0, 0);  // signals aimed at fprev-golden's group (Ctrl-C) reach us, not the job directly
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) ::_exit(126);  // the parent died before prctl
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int sig : {SIGPIPE, SIGTERM, SIGINT, SIGCHLD}) ::sigaction(sig, &default_action, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  const int in = ::open("/dev/null", O_RDONLY);
  const int out = ::open(output, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (in < 0 || out < 0) report_errno_and_exit(error_pipe);
  if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(out, 2) < 0)
    report_errno_and_exit(error_pipe);
  ::close(in);
  ::close(out);
  ::execve(program, argv, envp);
  report_errno_and_exit(error_pipe);
}

}  // namespace

ProcessTree::ProcessTree(const ProcessSpec& spec) {
  std::vector<std::string> argv_storage{spec.program};
  argv_storage.insert(argv_storage.end(), spec.arguments.begin(), spec.arguments.end());
  std::vector<std::string> env_storage = spec.environment;
  std::vector<char*> argv = c_strings(argv_storage);
  std::vector<char*> envp = c_strings(env_storage);
  const std::string output = spec.output_file.string();

  int error_pipe[2];
  if (::pipe2(error_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    const int error = errno;
    ::close(error_pipe[0]);
    ::close(error_pipe[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(error));
  }
  if (pid_ == 0) exec_child(spec.program.c_str(), argv.data(), envp.data(), output.c_str(), parent,
                            error_pipe[1]);
  ::close(error_pipe[1]);
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(error_pipe[0], &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  ::close(error_pipe[0]);
  if (n > 0) {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    stopped_ = true;
    throw std::runtime_error("cannot execute " + spec.program + ": " + std::strerror(child_errno));
  }
  if (auto stat = read_stat(pid_)) start_time_ = stat->start_time;
}

ProcessTree::~ProcessTree() { stop(); }

bool ProcessTree::exited() {
  if (wait_status_) return true;
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == pid_ || (r < 0 && errno == ECHILD)) {
    wait_status_ = r == pid_ ? status : 0;
    return true;
  }
  return false;
}

bool ProcessTree::wait_exit(std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!exited()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

std::optional<int> ProcessTree::exit_code() const {
  if (wait_status_ && WIFEXITED(*wait_status_)) return WEXITSTATUS(*wait_status_);
  return std::nullopt;
}

std::string ProcessTree::exit_description() const {
  if (!wait_status_) return "still running";
  if (WIFEXITED(*wait_status_)) return "exited with status " + std::to_string(WEXITSTATUS(*wait_status_));
  if (WIFSIGNALED(*wait_status_)) {
    const int sig = WTERMSIG(*wait_status_);
    return "was killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  return "ended with wait status " + std::to_string(*wait_status_);
}

bool ProcessTree::alive(const Known& process) const {
  const auto stat = read_stat(process.pid);
  return stat && stat->start_time == process.start_time && stat->state != 'Z' &&
         stat->state != 'X';
}

void ProcessTree::track_descendants() {
  const std::vector<ProcStat> processes = all_processes();
  std::multimap<pid_t, const ProcStat*> children;
  for (const ProcStat& p : processes) children.emplace(p.parent, &p);
  std::vector<pid_t> work;
  if (!wait_status_) work.push_back(pid_);
  for (const Known& k : known_)
    if (alive(k)) work.push_back(k.pid);
  while (!work.empty()) {
    const pid_t parent = work.back();
    work.pop_back();
    auto [begin, end] = children.equal_range(parent);
    for (auto it = begin; it != end; ++it) {
      const ProcStat& child = *it->second;
      if (child.state == 'Z' || child.state == 'X') continue;
      if (known_.insert({child.pid, child.start_time}).second) work.push_back(child.pid);
    }
  }
}

std::vector<pid_t> ProcessTree::live_descendants() {
  track_descendants();
  std::vector<pid_t> out;
  for (const Known& k : known_)
    if (alive(k)) out.push_back(k.pid);
  return out;
}

std::vector<pid_t> ProcessTree::stop(std::chrono::milliseconds grace) {
  std::vector<pid_t> killed;
  if (stopped_) return killed;
  stopped_ = true;
  track_descendants();
  if (!exited()) ::kill(pid_, SIGTERM);
  const auto any_alive = [this] {
    for (const Known& k : known_)
      if (alive(k)) return true;
    return false;
  };
  const auto deadline = Clock::now() + grace;
  while (Clock::now() < deadline) {
    track_descendants();
    if (exited() && !any_alive()) return killed;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  track_descendants();
  for (const Known& k : known_) {
    if (alive(k)) {
      ::kill(k.pid, SIGKILL);
      killed.push_back(k.pid);
    }
  }
  if (!exited()) {
    ::kill(pid_, SIGKILL);
    killed.push_back(pid_);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    wait_status_ = status;
  }
  // Processes that are not our children are reaped by whoever adopted them; wait until they are
  // gone (a zombie counts as gone).
  const auto kill_deadline = Clock::now() + std::chrono::seconds(2);
  while (any_alive() && Clock::now() < kill_deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return killed;
}

CommandResult run_command(const std::string& program, const std::vector<std::string>& arguments,
                          const std::vector<std::string>& environment,
                          std::chrono::milliseconds limit) {
  std::string base = "/tmp";
  if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && *tmp != '\0') base = tmp;
  std::string path = base + "/fprev-command-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) throw std::runtime_error("cannot create a temporary file under " + base);
  ::close(fd);
  CommandResult result;
  try {
    ProcessTree tree(ProcessSpec{program, arguments, environment, path});
    if (tree.wait_exit(limit)) {
      tree.stop();
      result.status = tree.exit_description();
    } else {
      tree.stop(std::chrono::milliseconds(500));
      result.timed_out = true;
      result.status = "did not finish within " + std::to_string(limit.count()) + " ms (killed)";
    }
    result.exit_code = tree.exit_code();
  } catch (...) {
    ::unlink(path.c_str());
    throw;
  }
  result.output = file_tail(path, 64 * 1024);
  ::unlink(path.c_str());
  return result;
}

std::string file_tail(const std::filesystem::path& file, std::size_t max_bytes) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(std::max<std::streamoff>(0, in.tellg()));
  const std::size_t start = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string text(size - start, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (start > 0) {
    const auto newline = text.find('\n');
    text = "..." + (newline == std::string::npos ? text : text.substr(newline));
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace fprev::mpi
