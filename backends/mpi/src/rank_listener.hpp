// Where the ranks of a job connect to the backend (probe/wire.hpp):
//   * a Unix socket in the job's private directory, when every rank runs on this machine (no
//     one else can reach it);
//   * a TCP port on every interface of this machine, when ranks may run on other nodes. The
//     ranks are told this machine's host name and the port; anyone on the network could connect,
//     so a connection counts only after it presents the job's random token, which the ranks get
//     in their environment.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fprev::mpi {

class RankListener {
 public:
  static RankListener unix_socket(const std::filesystem::path& path, int backlog);
  static RankListener tcp(int backlog);
  ~RankListener();
  RankListener(RankListener&& other) noexcept;
  RankListener& operator=(RankListener&& other) noexcept;
  RankListener(const RankListener&) = delete;
  RankListener& operator=(const RankListener&) = delete;

  int fd() const { return fd_; }
  // What the probe program is told: "--socket PATH" or "--connect HOST:PORT".
  const std::vector<std::string>& probe_args() const { return probe_args_; }
  // Empty for a Unix socket; else wire::kTokenBytes hexadecimal digits a rank sends first.
  const std::string& token() const { return token_; }
  // Prepares an accepted connection (TCP: no Nagle delay for the small alternating messages).
  void accepted(int connection) const;
  // Whether `received` (wire::kTokenBytes) is this job's token, compared in constant time.
  bool token_matches(const std::string& received) const;

 private:
  RankListener() = default;

  int fd_ = -1;
  std::vector<std::string> probe_args_;
  std::string token_;
};

}  // namespace fprev::mpi
