// Whether the other ranks of a distributed run are still there. MPI says nothing when a rank's
// process ends (kill -9, a crash of the rank itself, the node's out-of-memory killer, a node that
// goes down): a message to it may never complete and one from it never comes. So every rank sends
// the ranks it talks to a heartbeat (a few times a second), and a rank that has sent no word for
// the silence limit (--rank-timeout) is lost: rank 0 fails the cases in flight on it and goes on
// with the others; a serving rank that loses rank 0 ends the job (docs/distributed.md).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "distributed/mpi_link.hpp"

namespace fprev::distributed {

class RankLiveness {
 public:
  // Watches `ranks` (rank 0: every other rank; a serving rank: rank 0) from now on.
  RankLiveness(MpiLink& link, const std::vector<int>& ranks, double silence_seconds);
  RankLiveness(const RankLiveness&) = delete;
  RankLiveness& operator=(const RankLiveness&) = delete;

  // Sends the heartbeats that are due, takes those that arrived and declares the ranks silent for
  // too long lost. Never waits; call it a few times a second or more often.
  void tick();
  // A heartbeat (or any message) from `rank` that the caller received itself.
  void heard(int rank);
  void set_host(int rank, std::string host);

  // Why `rank` is lost ("rank 2 (host node07) was lost: ..."), or nullopt while it is not.
  std::optional<std::string> lost(int rank) const;
  // Why each lost rank is lost, in rank order.
  std::vector<std::string> lost_ranks() const;
  double silence_seconds() const { return silence_seconds_; }
  // At the end of a run, after the last tick: waits (at most the silence limit) until MPI has
  // taken the heartbeats still in flight, so that MPI_Finalize finds no request of ours open.
  void settle();
  // The pause between two ticks that keeps heartbeats on time.
  std::chrono::milliseconds tick_interval() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Peer {
    std::string host = "?";
    Clock::time_point last_heard;
    Clock::time_point last_sent;
    int pending = -1;  // the heartbeat send MPI has not completed yet (one at a time)
    std::string why_lost;
  };

  MpiLink& link_;
  double silence_seconds_;
  mutable std::mutex mutex_;
  std::map<int, Peer> peers_;
  const std::string heartbeat_;  // the bytes every heartbeat sends (they must live until sent)
};

}  // namespace fprev::distributed
