#include "mpi_job.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>

#include "wire.hpp"

namespace fprev::mpi {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPollSlice = std::chrono::milliseconds(100);

std::filesystem::path make_private_directory() {
  // sun_path holds 108 bytes: a long TMPDIR would not fit the socket's path.
  std::string base = "/tmp";
  if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && *tmp != '\0' &&
                                               std::strlen(tmp) < 60)
    base = tmp;
  std::string pattern = base + "/fprev-mpi-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw JobFailure("cannot create a directory for the MPI job's socket under " + base + ": " +
                     std::strerror(errno));
  return pattern;
}

std::string seconds_text(std::chrono::milliseconds d) {
  std::ostringstream os;
  os << static_cast<double>(d.count()) / 1000.0 << " s";
  return os.str();
}

}  // namespace

MpiJob::MpiJob(JobConfig config) : config_(std::move(config)) {
  if (config_.ranks < 1) throw JobFailure("an MPI job needs at least one rank");
  directory_ = make_private_directory();
  socket_path_ = directory_ / "ranks.sock";
  output_path_ = directory_ / "launcher.log";
  try {
    const int backlog = config_.ranks + 8;
    listener_ = config_.over_tcp ? RankListener::tcp(backlog)
                                 : RankListener::unix_socket(socket_path_, backlog);
    ProcessSpec spec;
    spec.program = config_.launcher;
    spec.arguments = config_.launcher_args;
    spec.arguments.push_back(config_.probe);
    spec.arguments.insert(spec.arguments.end(), config_.probe_args.begin(), config_.probe_args.end());
    spec.arguments.insert(spec.arguments.end(), listener_->probe_args().begin(),
                          listener_->probe_args().end());
    const std::string token_entry = std::string(wire::kTokenVariable) + "=";
    for (const std::string& entry : config_.environment)
      if (entry.rfind(token_entry, 0) != 0) spec.environment.push_back(entry);
    if (!listener_->token().empty()) spec.environment.push_back(token_entry + listener_->token());
    spec.output_file = output_path_;
    try {
      tree_ = std::make_unique<ProcessTree>(spec);
    } catch (const std::runtime_error& e) {
      throw JobFailure(config_.what + ": " + e.what());
    }
    accept_ranks();
  } catch (...) {
    finished_ = true;
    release();
    throw;
  }
}

MpiJob::~MpiJob() {
  try {
    quit();
  } catch (const std::exception&) {
    // quit() stopped the tree already; nothing is left to report to.
  }
  release();
}

void MpiJob::release() {
  tree_.reset();  // stops whatever is left of the job
  for (int& fd : rank_fds_) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  listener_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

void MpiJob::fail(const std::string& what) {
  finished_ = true;
  std::string message = config_.what + ": " + what;
  if (tree_) {
    // A launcher whose rank died ends the job by itself and says which rank and why: let it.
    const bool ended_by_itself = tree_->wait_exit(std::chrono::seconds(1));
    const std::vector<pid_t> killed = tree_->stop();
    if (ended_by_itself) {
      message += "; the launcher " + tree_->exit_description();
    } else {
      message += "; fprev-golden stopped the job (SIGTERM to the launcher";
      if (!killed.empty())
        message += ", then SIGKILL to " + std::to_string(killed.size()) + " remaining process(es)";
      message += "), and the launcher " + tree_->exit_description();
    }
  }
  // The launcher forwards the ranks' output when it gets to it: what it wrote cannot be told apart
  // by case, so the tail is the job's, and says so when the job served earlier cases.
  const std::string output = file_tail(output_path_);
  const std::string cases =
      cases_served_ > 1 ? " (the job's, which served " + std::to_string(cases_served_ - 1) +
                              " earlier case(s) before this one)"
                        : "";
  message += output.empty() ? "; the launcher printed nothing" + cases
                            : "; launcher output" + cases + ":\n" + output;
  failure_ = message;
  throw JobFailure(message);
}

void MpiJob::check_running(const char* while_doing) {
  if (!tree_->exited()) return;
  fail(std::string("the launcher ended while ") + while_doing);
}

void MpiJob::await(int fd, short events, Clock::time_point deadline, const char* while_doing,
                   const std::function<std::string()>& timeout_message) {
  for (;;) {
    pollfd pfd{fd, events, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(kPollSlice.count()));
    if (ready > 0) return;
    if (ready < 0 && errno != EINTR) fail(std::string("poll(): ") + std::strerror(errno));
    check_running(while_doing);
    if (Clock::now() >= deadline) fail(timeout_message());
  }
}

void MpiJob::send_all(int rank, const void* data, std::size_t size, Clock::time_point deadline) {
  const char* p = static_cast<const char*>(data);
  const int fd = rank_fds_[static_cast<std::size_t>(rank)];
  while (size > 0) {
    await(fd, POLLOUT, deadline, "a request was being sent", [&] {
      return "rank " + std::to_string(rank) + " did not take its request within " +
             seconds_text(config_.timeout);
    });
    const ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0)
      fail("rank " + std::to_string(rank) + " closed its connection (" + std::strerror(errno) +
           "): it crashed or called MPI_Abort");
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

void MpiJob::receive_all(int fd, void* data, std::size_t size, Clock::time_point deadline,
                         const std::string& what, const char* while_doing) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    await(fd, POLLIN, deadline, while_doing, [&] {
      return "timed out after " + seconds_text(config_.timeout) + " (the time limit) waiting for " +
             what;
    });
    const ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      fail("the connection closed while waiting for " + what +
           " (the rank crashed, called MPI_Abort, or the launcher ended the job)");
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

void MpiJob::accept_ranks() {
  const auto deadline = Clock::now() + config_.timeout;
  rank_fds_.assign(static_cast<std::size_t>(config_.ranks), -1);
  idle_yields_.assign(static_cast<std::size_t>(config_.ranks), 0);
  hello_.processor_names.assign(static_cast<std::size_t>(config_.ranks), "");
  for (int connected = 0; connected < config_.ranks;) {
    await(listener_->fd(), POLLIN, deadline, "the ranks were starting", [&] {
      return "only " + std::to_string(connected) + " of " + std::to_string(config_.ranks) +
             " ranks connected within " + seconds_text(config_.timeout);
    });
    const int fd = ::accept4(listener_->fd(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      fail(std::string("accept(): ") + std::strerror(errno));
    }
    listener_->accepted(fd);
    if (!listener_->token().empty() && !authenticate(fd, deadline)) continue;
    receive_greeting(fd, deadline);
    ++connected;
  }
  if (!config_.layout) return;
  const std::string misplaced = check_node_layout(*config_.layout, hello_.processor_names);
  if (!misplaced.empty()) fail(misplaced);
}

bool MpiJob::authenticate(int fd, Clock::time_point deadline) {
  std::string token(wire::kTokenBytes, '\0');
  for (std::size_t got = 0; got < token.size();) {
    try {
      await(fd, POLLIN, deadline, "the ranks were starting", [&] {
        return "a connection to the job's TCP port did not present the job's token within " +
               seconds_text(config_.timeout);
      });
    } catch (...) {
      ::close(fd);
      throw;
    }
    const ssize_t n = ::read(fd, token.data() + got, token.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // someone else's connection, gone
    got += static_cast<std::size_t>(n);
  }
  if (listener_->token_matches(token)) return true;
  ::close(fd);  // not one of our ranks: ignored
  return false;
}

void MpiJob::receive_greeting(int fd, Clock::time_point deadline) {
  const char* starting = "the ranks were starting";
  wire::Hello hello{};
  try {
    receive_all(fd, &hello, sizeof hello, deadline, "a rank's greeting", starting);
  } catch (...) {
    ::close(fd);
    throw;
  }
  const auto reject = [&](const std::string& why) {
    ::close(fd);
    fail("a rank sent a bad greeting: " + why);
  };
  if (std::memcmp(hello.magic, wire::kMagic, sizeof hello.magic) != 0)
    reject("not the fprev-mpi-probe protocol");
  if (hello.protocol_version != wire::kProtocolVersion)
    reject("protocol version " + std::to_string(hello.protocol_version) + ", expected " +
           std::to_string(wire::kProtocolVersion) + " (a probe program from another build?)");
  if (hello.ranks != static_cast<std::uint32_t>(config_.ranks))
    reject("the job has " + std::to_string(hello.ranks) + " ranks, " +
           std::to_string(config_.ranks) + " were asked for (the launcher ignored -np?)");
  if (hello.rank >= hello.ranks || rank_fds_[hello.rank] >= 0)
    reject("rank " + std::to_string(hello.rank) + " connected twice or is out of range");
  if (hello.library_version_bytes > wire::kMaxText || hello.cvar_bytes > wire::kMaxText ||
      hello.processor_name_bytes > wire::kMaxText)
    reject("oversized text");
  rank_fds_[hello.rank] = fd;
  std::string library(hello.library_version_bytes, '\0');
  std::string cvars(hello.cvar_bytes, '\0');
  std::string& node = hello_.processor_names[hello.rank];
  node.assign(hello.processor_name_bytes, '\0');
  receive_all(fd, library.data(), library.size(), deadline, "the library version", starting);
  receive_all(fd, cvars.data(), cvars.size(), deadline, "the control variables", starting);
  receive_all(fd, node.data(), node.size(), deadline, "the rank's processor name", starting);
  if (hello.rank != 0) return;
  while (!library.empty() &&
         (library.back() == '\n' || library.back() == '\0' || library.back() == ' '))
    library.pop_back();
  hello_.library_version = library;
  hello_.mpi_version = static_cast<int>(hello.mpi_version);
  hello_.mpi_subversion = static_cast<int>(hello.mpi_subversion);
  std::istringstream lines(cvars);
  for (std::string line; std::getline(lines, line);) {
    const auto tab = line.find('\t');
    if (tab != std::string::npos) hello_.cvars[line.substr(0, tab)] = line.substr(tab + 1);
  }
}

std::vector<double> MpiJob::receive_response(std::size_t rank, Clock::time_point deadline,
                                             const char* while_doing, const char* refused) {
  const int fd = rank_fds_[rank];
  const std::string whose = "rank " + std::to_string(rank) + "'s answer";
  wire::Response response{};
  receive_all(fd, &response, sizeof response, deadline, whose, while_doing);
  if (response.outputs > wire::kMaxValues || response.message_bytes > wire::kMaxText)
    fail(whose + " announces an oversized answer");
  idle_yields_[rank] = response.idle_yields;
  std::vector<double> values(response.outputs);
  receive_all(fd, values.data(), values.size() * sizeof(double), deadline, whose, while_doing);
  std::string message(response.message_bytes, '\0');
  receive_all(fd, message.data(), message.size(), deadline, whose, while_doing);
  if (response.status != static_cast<std::uint32_t>(wire::Status::ok))
    fail("rank " + std::to_string(rank) + " " + refused + ": " + message);
  return values;
}

std::uint64_t MpiJob::idle_yields() const {
  std::uint64_t total = 0;
  for (const std::uint64_t yields : idle_yields_) total += yields;
  return total;
}

bool MpiJob::running() { return !finished_ && tree_ && !tree_->exited(); }

void MpiJob::configure(const wire::Configuration& configuration, const std::string& what) {
  check_not_ended(what);
  config_.what = what;
  ++cases_served_;
  const auto deadline = Clock::now() + config_.timeout;
  const wire::Request request{static_cast<std::uint32_t>(wire::RequestKind::configure), 0};
  for (std::size_t r = 0; r < rank_fds_.size(); ++r) {
    send_all(static_cast<int>(r), &request, sizeof request, deadline);
    send_all(static_cast<int>(r), &configuration, sizeof configuration, deadline);
  }
  for (std::size_t r = 0; r < rank_fds_.size(); ++r)
    if (!receive_response(r, deadline, "the ranks were being configured", "refused the configuration").empty())
      fail("rank " + std::to_string(r) + " answered the configuration with values");
}

void MpiJob::check_not_ended(const std::string& what) const {
  if (!finished_) return;
  // A reveal that follows a failed confirmation calls again: it fails with the first failure.
  throw JobFailure(failure_.empty() ? what + ": the job has already ended"
                                    : "the job ended earlier in this case: " + failure_);
}

std::vector<std::vector<double>> MpiJob::call(std::span<const double> values, std::size_t width) {
  check_not_ended(config_.what);
  const auto ranks = static_cast<std::size_t>(config_.ranks);
  if (width == 0 || values.size() != ranks * width)
    throw JobFailure(config_.what + ": a call needs ranks x width values");
  const auto deadline = Clock::now() + config_.timeout;
  const wire::Request request{static_cast<std::uint32_t>(wire::RequestKind::evaluate),
                              static_cast<std::uint32_t>(width)};
  for (std::size_t r = 0; r < ranks; ++r) {
    send_all(static_cast<int>(r), &request, sizeof request, deadline);
    send_all(static_cast<int>(r), values.data() + r * width, width * sizeof(double), deadline);
  }
  std::vector<std::vector<double>> results(ranks);
  for (std::size_t r = 0; r < ranks; ++r)
    results[r] = receive_response(r, deadline, "the collective was running", "could not serve the call");
  return results;
}

void MpiJob::quit() {
  request_quit();
  await_quit();
}

void MpiJob::request_quit() {
  if (finished_ || quit_requested_) return;
  quit_requested_ = true;
  const auto deadline = Clock::now() + config_.timeout;
  const wire::Request request{static_cast<std::uint32_t>(wire::RequestKind::quit), 0};
  for (std::size_t r = 0; r < rank_fds_.size(); ++r)
    send_all(static_cast<int>(r), &request, sizeof request, deadline);
  for (int& fd : rank_fds_) {
    ::close(fd);
    fd = -1;
  }
}

void MpiJob::await_quit() {
  if (finished_) return;
  if (!quit_requested_) request_quit();
  finished_ = true;
  if (!tree_->wait_exit(config_.timeout)) fail("the job did not end within the time limit after being asked to");
  if (tree_->exit_code() != 0) fail("the job did not end cleanly");
  if (!tree_->stop().empty()) fail("processes of the job were still running after the launcher exited");
}

void MpiJob::stop() {
  finished_ = true;
  if (tree_) tree_->stop();
}

std::vector<int> MpiJob::live_processes() {
  std::vector<int> out;
  if (!tree_) return out;
  for (pid_t pid : tree_->live_descendants()) out.push_back(static_cast<int>(pid));
  if (!tree_->exited()) out.push_back(static_cast<int>(tree_->pid()));
  return out;
}

}  // namespace fprev::mpi
