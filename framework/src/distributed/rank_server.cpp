// A serving rank of a distributed run: starts the workers rank 0 places here, as local supervised
// processes, and relays their requests. One thread per worker (rank 0's streams call them at
// once); only the main loop touches MPI, and it sleeps when idle.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "distributed/liveness.hpp"
#include "distributed/remote_worker.hpp"
#include "distributed/wire.hpp"
#include "fprev/processes.hpp"
#include "worker/limits.hpp"

namespace fprev::distributed {
namespace {

using worker::Json;
using Clock = std::chrono::steady_clock;

Json fault_json(const TargetFault& fault) {
  return {{"fault", {{"name", fault.fault()}, {"message", fault.what()}, {"cause", fault.likely_cause()}}}};
}

// Rank 0 runs the engine and writes the reports: without it the job can only end, and it must
// end with a status that is not 0 (an MPI launcher told to go on after a lost rank would otherwise
// wait for this rank for ever, or end with 0). The workers go first: a slot's thread may be inside
// a call that hangs.
[[noreturn]] void end_job_without_rank_zero(MpiLink& link, const std::string& why) {
  std::cerr << "fprev-golden (rank " << link.rank() << " of " << link.size() << ", host " << link.host()
            << "): " << why << "; it runs the engine and writes the reports, none will come. This rank "
            << "stops its workers and ends the MPI job (the run failed)" << std::endl;
  kill_descendants(::getpid());
  link.abort_job(1);
}

// One worker rank 0 placed here: its requests in order, on a thread of its own.
class Slot {
 public:
  using Send = std::function<void(std::string)>;
  explicit Slot(Send send) : send_(std::move(send)), thread_([this] { serve(); }) {}
  ~Slot() {
    {
      const std::lock_guard lock(mutex_);
      closing_ = true;
    }
    ready_.notify_one();
    thread_.join();
  }
  void post(Message message) {
    {
      const std::lock_guard lock(mutex_);
      inbox_.push_back(std::move(message));
    }
    ready_.notify_one();
  }

 private:
  void serve() {
    for (;;) {
      Message message;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return closing_ || !inbox_.empty(); });
        if (inbox_.empty()) break;
        message = std::move(inbox_.front());
        inbox_.pop_front();
      }
      const Json header = Json::parse(message.header, nullptr, false);
      const std::string op = header.is_object() ? header.value("op", "") : "";
      std::string payload;
      Json reply;
      try {
        reply = op == "spawn" ? spawn(header) : call(header, message.payload, payload);
      } catch (const TargetFault& fault) {
        reply = fault_json(fault);
      } catch (...) {
        reply = {{"error", worker::error_to_json(std::current_exception())}};
      }
      send_(encode_message({reply.dump(), payload}));
    }
    worker_.reset();  // kills the worker's process group
  }

  Json spawn(const Json& header) {
    const Json& limits = header.at("limits");
    set_worker_limits({limits.at("watchdog_floor_seconds").get<double>(), limits.at("watchdog_factor").get<double>(),
                       limits.at("memory_bytes").get<std::size_t>()});
    WorkerCommand command;
    command.argv = header.at("argv").get<std::vector<std::string>>();
    for (const Json& variable : header.at("environment"))
      command.environment.emplace_back(variable.at(0).get<std::string>(), variable.at(1).get<std::string>());
    worker_ = std::make_unique<worker::WorkerProcess>(command, header.at("subject").get<std::string>());
    return {{"ok", true}};
  }

  Json call(const Json& header, const std::string& payload, std::string& payload_back) {
    if (!worker_) throw TargetError("internal: a call before the worker was started");
    std::optional<worker::ActiveDeadline> deadline;
    if (const Json& d = header.at("deadline"); d.is_object())
      deadline = worker::ActiveDeadline{
          Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(d.at("left").get<double>())),
          d.at("budget").get<double>()};
    const worker::ThreadDeadline in_effect(deadline);
    const std::size_t used = header.at("shm").get<std::size_t>();
    if (used != payload.size()) throw TargetError("internal: a call whose arrays are not the size it says");
    worker::SharedMemory& shm = worker_->shared_memory();
    if (used > 0) {
      shm.reserve(used);
      std::memcpy(shm.data(), payload.data(), used);
    }
    const Json& in_flight = header.at("in_flight");
    Json reply = worker_->call(header.at("request"),
                               {in_flight.at("what").get<std::string>(), in_flight.at("subject").get<std::string>(),
                                in_flight.at("calls").get<std::size_t>(), 0});
    if (used > 0) payload_back.assign(reinterpret_cast<const char*>(shm.data()), used);
    return {{"reply", std::move(reply)}, {"shm", used}};
  }

  Send send_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Message> inbox_;
  bool closing_ = false;
  std::unique_ptr<worker::WorkerProcess> worker_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace

int serve_rank(MpiLink& link, double rank_timeout_seconds) {
  RankLiveness liveness(link, {0}, rank_timeout_seconds);
  const auto unless_rank_zero_is_lost = [&link, &liveness] {
    liveness.tick();
    if (const auto why = liveness.lost(0)) end_job_without_rank_zero(link, *why);
  };
  link.send(0, kControlTag, encode_message({Json{{"op", "hello"}, {"host", link.host()}}.dump(), {}}),
            unless_rank_zero_is_lost);
  // Replies the slots' threads hand over; the main loop sends them (it alone calls MPI).
  std::mutex outbox_mutex;
  std::deque<std::pair<int, std::string>> outbox;
  std::map<int, std::unique_ptr<Slot>> slots;
  MpiLink::Backoff backoff;
  auto next_tick = Clock::now();
  for (;;) {
    if (Clock::now() >= next_tick) {
      unless_rank_zero_is_lost();
      next_tick = Clock::now() + liveness.tick_interval();
    }
    bool busy = false;
    for (;;) {
      std::pair<int, std::string> next;
      {
        const std::lock_guard lock(outbox_mutex);
        if (outbox.empty()) break;
        next = std::move(outbox.front());
        outbox.pop_front();
      }
      link.send(0, next.first, std::move(next.second), unless_rank_zero_is_lost);
      busy = true;
    }
    int from = 0, tag = 0;
    if (auto bytes = link.try_receive(0, -1, from, tag)) {
      busy = true;
      liveness.heard(0);
      if (tag == kHeartbeatTag) continue;
      Message message = decode_message(std::move(*bytes));
      if (tag == kControlTag) break;  // shutdown
      const Json header = Json::parse(message.header, nullptr, false);
      if (header.is_object() && header.value("op", "") == "close") {
        slots.erase(tag);  // rank 0 sends close after the worker's last reply: nothing is pending
        continue;
      }
      auto& slot = slots[tag];
      if (!slot)
        slot = std::make_unique<Slot>([&outbox_mutex, &outbox, tag](std::string reply) {
          const std::lock_guard lock(outbox_mutex);
          outbox.emplace_back(tag, std::move(reply));
        });
      slot->post(std::move(message));
    }
    if (busy) backoff.reset();
    else backoff.pause();
  }
  slots.clear();  // each slot stops its worker
  // The last word to rank 0, after every heartbeat: rank 0 takes our messages until it sees this
  // one, so that none is left unreceived at MPI_Finalize (MPICH's UCX prints a warning on stdout
  // for each, into rank 0's --json).
  // No heartbeat while it waits (one started now would come after "bye" and stay unreceived): a
  // rank 0 that does not take it within the silence limit is gone, and MPI_Finalize says so.
  const auto give_up = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(rank_timeout_seconds));
  try {
    link.send(0, kControlTag, encode_message({Json{{"op", "bye"}}.dump(), {}}), [give_up] {
      if (Clock::now() > give_up) throw std::runtime_error("rank 0 took no last message");
    });
  } catch (const std::runtime_error&) {
    return 0;
  }
  liveness.settle();
  return 0;
}

}  // namespace fprev::distributed
