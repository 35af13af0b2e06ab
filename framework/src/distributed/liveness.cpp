#include "distributed/liveness.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "distributed/wire.hpp"

namespace fprev::distributed {
namespace {

// Heartbeats go out this often (at most; a quarter of the silence limit when that is shorter).
constexpr double kHeartbeatSeconds = 1.0;

std::string seconds_text(double seconds) {
  std::ostringstream text;
  text << seconds;
  return text.str();
}

}  // namespace

RankLiveness::RankLiveness(MpiLink& link, const std::vector<int>& ranks, double silence_seconds)
    : link_(link), silence_seconds_(silence_seconds), heartbeat_(encode_message({"{}", {}})) {
  const auto now = Clock::now();
  for (const int r : ranks) peers_[r] = {"?", now, now - std::chrono::hours(1), -1, {}};
}

std::chrono::milliseconds RankLiveness::tick_interval() const {
  const double seconds = std::min(kHeartbeatSeconds, silence_seconds_ / 4.0) / 4.0;
  return std::chrono::milliseconds(std::max(10L, static_cast<long>(seconds * 1000.0)));
}

void RankLiveness::tick() {
  // Take every heartbeat that arrived (from any rank: only watched ones send them to us).
  for (;;) {
    int from = 0, tag = 0;
    if (!link_.try_receive(-1, kHeartbeatTag, from, tag)) break;
    heard(from);
  }
  const auto now = Clock::now();
  const double interval = std::min(kHeartbeatSeconds, silence_seconds_ / 4.0);
  const std::lock_guard lock(mutex_);
  for (auto& [rank, peer] : peers_) {
    if (!peer.why_lost.empty()) continue;  // no more heartbeats to a lost rank
    if (std::chrono::duration<double>(now - peer.last_heard).count() > silence_seconds_) {
      peer.why_lost = "rank " + std::to_string(rank) + (peer.host == "?" ? "" : " (host " + peer.host + ")") +
                      " was lost: it sent no word for " +
                      seconds_text(silence_seconds_) +
                      " s (--rank-timeout): its process ended or stopped (killed, crashed, out of memory, or its "
                      "node went down)";
      continue;
    }
    try {
      if (peer.pending >= 0 && link_.sent(peer.pending, rank)) peer.pending = -1;
      // One heartbeat in flight at a time: one a rank does not take is never followed by more.
      if (peer.pending < 0 && std::chrono::duration<double>(now - peer.last_sent).count() >= interval) {
        peer.pending = link_.start_send(rank, kHeartbeatTag, heartbeat_);
        peer.last_sent = now;
      }
    } catch (const std::runtime_error& e) {
      peer.why_lost = "rank " + std::to_string(rank) + (peer.host == "?" ? "" : " (host " + peer.host + ")") +
                      " was lost: " + e.what();
    }
  }
}

void RankLiveness::settle() {
  const auto give_up = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(silence_seconds_));
  const std::lock_guard lock(mutex_);
  for (auto& [rank, peer] : peers_) {
    try {
      while (peer.pending >= 0 && peer.why_lost.empty() && !link_.sent(peer.pending, rank)) {
        if (Clock::now() > give_up) break;  // a rank that stopped listening: nothing to wait for
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    } catch (const std::runtime_error&) {
      // a rank that is gone: MPI_Finalize reports it
    }
    peer.pending = -1;
  }
}

void RankLiveness::heard(int rank) {
  const std::lock_guard lock(mutex_);
  const auto peer = peers_.find(rank);
  if (peer != peers_.end() && peer->second.why_lost.empty()) peer->second.last_heard = Clock::now();
}

void RankLiveness::set_host(int rank, std::string host) {
  const std::lock_guard lock(mutex_);
  peers_[rank].host = std::move(host);
}

std::optional<std::string> RankLiveness::lost(int rank) const {
  const std::lock_guard lock(mutex_);
  const auto peer = peers_.find(rank);
  if (peer == peers_.end() || peer->second.why_lost.empty()) return std::nullopt;
  return peer->second.why_lost;
}

std::vector<std::string> RankLiveness::lost_ranks() const {
  const std::lock_guard lock(mutex_);
  std::vector<std::string> lost;
  for (const auto& [rank, peer] : peers_)
    if (!peer.why_lost.empty()) lost.push_back(peer.why_lost);
  return lost;
}

}  // namespace fprev::distributed
