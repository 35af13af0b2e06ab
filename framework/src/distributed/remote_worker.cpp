#include "distributed/remote_worker.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "distributed/wire.hpp"
#include "worker/limits.hpp"

namespace fprev::distributed {
namespace {

using worker::Json;
using Clock = std::chrono::steady_clock;

// Rank 0 waits this much longer than the serving rank's own watchdog before it calls the rank
// itself unresponsive: the serving rank names a hung worker first.
constexpr double kRankGraceSeconds = 30.0;

Json limits_json() {
  const WorkerLimits limits = worker_limits();
  return {{"watchdog_floor_seconds", limits.watchdog_floor_seconds},
          {"watchdog_factor", limits.watchdog_factor},
          {"memory_bytes", limits.memory_bytes}};
}

Json deadline_json() {
  const auto deadline = worker::active_case_deadline();
  if (!deadline) return nullptr;
  const double left = std::chrono::duration<double>(deadline->at - Clock::now()).count();
  return {{"left", std::max(left, 0.0)}, {"budget", deadline->budget_seconds}};
}

}  // namespace

RemoteWorker::RemoteWorker(MpiLink& link, const RankLiveness& liveness, int rank, std::string host, int tag,
                           const WorkerCommand& command, const std::string& subject)
    : link_(link), liveness_(liveness), rank_(rank), host_(std::move(host)), tag_(tag), subject_(subject) {
  shm_.create(1u << 20);
  shm_.reset_in_use();
  Json environment = Json::array();
  for (const auto& [name, value] : command.environment) environment.push_back({name, value});
  const Json spawn = {{"op", "spawn"},
                      {"argv", command.argv},
                      {"environment", environment},
                      {"subject", subject},
                      {"limits", limits_json()}};
  std::string unused;
  exchange(spawn, {}, unused, "starting", worker_limits().watchdog_floor_seconds);
}

RemoteWorker::~RemoteWorker() {
  try {
    link_.send(rank_, tag_, encode_message({Json{{"op", "close"}}.dump(), {}}), [this] {
      if (liveness_.lost(rank_)) throw std::runtime_error("lost");
    });
  } catch (const std::exception&) {
    // the job is ending; the serving rank stops its workers at shutdown anyway
  }
}

Json RemoteWorker::exchange(const Json& header, const std::string& payload, std::string& payload_back,
                            const std::string& what, double allowed_seconds) {
  const auto start = Clock::now();
  const auto give_up_if_lost = [&] {
    if (const auto why = liveness_.lost(rank_)) fail_as_lost(*why, what);
  };
  link_.send(rank_, tag_, encode_message({header.dump(), payload}), give_up_if_lost);
  const double limit = allowed_seconds + kRankGraceSeconds;
  const std::string bytes = link_.receive(rank_, tag_, [&] {
    give_up_if_lost();
    if (std::chrono::duration<double>(Clock::now() - start).count() > limit) {
      faulted_ = true;
      throw TargetFault("hung",
                        "rank " + std::to_string(rank_) + " (host " + host_ + ") did not answer within " +
                            std::to_string(static_cast<long>(limit)) + " s while " + what + " of " + subject_,
                        "the serving rank is stuck or gone (its own watchdog should have named a hung worker)");
    }
  });
  Message message = decode_message(bytes);
  const Json reply = Json::parse(message.header, nullptr, false);
  if (reply.is_discarded() || !reply.is_object())
    throw TargetFault("protocol error", "rank " + std::to_string(rank_) + " sent a reply that is not JSON", "");
  const std::string where = " (on rank " + std::to_string(rank_) + ", host " + host_ + ")";
  if (reply.contains("fault")) {
    faulted_ = true;
    const Json& fault = reply["fault"];
    throw TargetFault(fault.value("name", "fault"), fault.value("message", "") + where, fault.value("cause", ""));
  }
  if (reply.contains("error")) worker::throw_error_from_json(reply["error"]);
  payload_back = std::move(message.payload);
  return reply;
}

void RemoteWorker::fail_as_lost(const std::string& why, const std::string& what) {
  faulted_ = true;
  throw TargetFault("rank lost", why + "; " + what + " of " + subject_ + " was in flight there",
                    "the MPI job lost that rank (docs/distributed.md, A lost rank): rank 0 goes on with the other "
                    "ranks, and the run fails");
}

Json RemoteWorker::call(Json request, const worker::InFlight& in_flight) {
  if (faulted_) throw TargetFault("unusable", "the worker of " + subject_ + " is gone after an earlier fault", "");
  const std::size_t used = shm_.in_use();
  shm_.reset_in_use();
  const Json header = {{"op", "call"},
                       {"request", std::move(request)},
                       {"in_flight", {{"what", in_flight.what}, {"subject", in_flight.subject}, {"calls", in_flight.calls}}},
                       {"deadline", deadline_json()},
                       {"shm", used}};
  const WorkerLimits limits = worker_limits();
  double allowed = limits.watchdog_floor_seconds;
  if (in_flight.calls > 0)
    allowed = std::max(allowed, limits.watchdog_factor * static_cast<double>(in_flight.calls) * slowest_call_seconds_);
  if (const auto deadline = worker::active_case_deadline())
    allowed = std::max(allowed, std::chrono::duration<double>(deadline->at - Clock::now()).count());
  const auto start = Clock::now();
  std::string back;
  const std::string payload = used == 0 ? std::string() : std::string(reinterpret_cast<const char*>(shm_.data()), used);
  const Json reply = exchange(header, payload, back, in_flight.what, allowed);
  if (in_flight.calls > 0)
    slowest_call_seconds_ = std::max(slowest_call_seconds_, std::chrono::duration<double>(Clock::now() - start).count() /
                                                                static_cast<double>(in_flight.calls));
  if (!back.empty()) {
    shm_.reserve(back.size());
    shm_.reset_in_use();
    std::memcpy(shm_.data(), back.data(), back.size());
  }
  return reply.at("reply");
}

}  // namespace fprev::distributed
