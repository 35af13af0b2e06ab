#include "rank_listener.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "mpi_job.hpp"
#include "wire.hpp"

namespace fprev::mpi {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw JobFailure(what + ": " + std::strerror(errno));
}

std::string random_token() {
  unsigned char bytes[wire::kTokenBytes / 2];
  for (std::size_t got = 0; got < sizeof bytes;) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot draw the MPI job's token (getrandom)");
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

// A socket on every interface, IPv6 and IPv4 alike where the kernel has IPv6, on a port the
// kernel picks. Returns the port.
int listen_everywhere(int& fd, int backlog) {
  fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    const int zero = 0;
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_addr = in6addr_any;
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  if (fd < 0) {  // no IPv6 here
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) fail("cannot open a TCP socket for the MPI job's ranks");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
      fail("cannot bind a TCP port for the MPI job's ranks");
  }
  if (::listen(fd, backlog) != 0) fail("cannot listen on a TCP port for the MPI job's ranks");
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0)
    fail("cannot tell the TCP port the MPI job's ranks connect to");
  if (bound.ss_family == AF_INET6) {
    sockaddr_in6 address{};
    std::memcpy(&address, &bound, sizeof address);
    return ntohs(address.sin6_port);
  }
  sockaddr_in address{};
  std::memcpy(&address, &bound, sizeof address);
  return ntohs(address.sin_port);
}

}  // namespace

RankListener RankListener::unix_socket(const std::filesystem::path& path, int backlog) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string text = path.string();
  if (text.size() >= sizeof address.sun_path) throw JobFailure("socket path too long: " + text);
  std::memcpy(address.sun_path, text.c_str(), text.size() + 1);
  RankListener listener;
  listener.fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener.fd_ < 0) fail("socket()");
  if (::bind(listener.fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener.fd_, backlog) != 0)
    fail("cannot listen on " + text);
  listener.probe_args_ = {"--socket", text};
  return listener;
}

RankListener RankListener::tcp(int backlog) {
  RankListener listener;
  const int port = listen_everywhere(listener.fd_, backlog);
  char host[HOST_NAME_MAX + 1] = {};
  if (::gethostname(host, sizeof host - 1) != 0) fail("cannot tell this machine's host name");
  listener.probe_args_ = {"--connect", std::string(host) + ":" + std::to_string(port)};
  listener.token_ = random_token();
  return listener;
}

RankListener::~RankListener() {
  if (fd_ >= 0) ::close(fd_);
}

RankListener::RankListener(RankListener&& other) noexcept
    : fd_(other.fd_), probe_args_(std::move(other.probe_args_)), token_(std::move(other.token_)) {
  other.fd_ = -1;
}

RankListener& RankListener::operator=(RankListener&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
    probe_args_ = std::move(other.probe_args_);
    token_ = std::move(other.token_);
  }
  return *this;
}

void RankListener::accepted(int connection) const {
  if (token_.empty()) return;
  const int one = 1;
  ::setsockopt(connection, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

bool RankListener::token_matches(const std::string& received) const {
  if (token_.empty() || received.size() != token_.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < token_.size(); ++i)
    difference |= static_cast<unsigned char>(received[i] ^ token_[i]);
  return difference == 0;
}

}  // namespace fprev::mpi
