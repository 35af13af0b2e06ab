// Distributed mode's session (fprev/distributed.hpp): MPI through the transport plugin, the
// placement of workers over the ranks, and the work each rank did.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "distributed/liveness.hpp"
#include "distributed/remote_worker.hpp"
#include "distributed/wire.hpp"
#include "fprev/distributed.hpp"
#include "fprev/processes.hpp"

namespace fprev {
namespace distributed {
namespace {

using worker::Json;

// A worker whose work counts for its rank (stats.rank_probes): rank 0's own, or another rank's,
// whose tag is given back when it goes.
class CountedWorker final : public worker::WorkerChannel {
 public:
  CountedWorker(std::unique_ptr<worker::WorkerChannel> channel, std::vector<RankWork*> tallies, std::mutex& mutex,
                std::function<void()> on_close = {})
      : channel_(std::move(channel)), tallies_(std::move(tallies)), mutex_(mutex), on_close_(std::move(on_close)) {}
  ~CountedWorker() override {
    channel_.reset();
    if (on_close_) on_close_();
  }
  CountedWorker(const CountedWorker&) = delete;
  CountedWorker& operator=(const CountedWorker&) = delete;
  Json call(Json request, const worker::InFlight& in_flight) override {
    Json reply = channel_->call(std::move(request), in_flight);
    const std::lock_guard lock(mutex_);
    for (RankWork* work : tallies_) {
      work->probes += in_flight.probes;
      work->calls += in_flight.calls;
    }
    return reply;
  }
  worker::SharedMemory& shared_memory() override { return channel_->shared_memory(); }
  bool usable() const override { return channel_->usable(); }

 private:
  std::unique_ptr<worker::WorkerChannel> channel_;
  std::vector<RankWork*> tallies_;  // the rank's, and the case slot's that placed it
  std::mutex& mutex_;
  std::function<void()> on_close_;
};

}  // namespace
}  // namespace distributed

struct DistributedSession::State {
  std::unique_ptr<distributed::MpiLink> link;
  std::unique_ptr<distributed::RankLiveness> liveness;  // rank 0: of every other rank
  std::jthread heartbeats;                               // rank 0: ticks `liveness`
  bool launcher_drops_exit_status = false;               // rank 0: see finish_distributed_job
  std::size_t streams_per_rank = 1;
  bool serving = false;
  int status = 0;
  std::mutex mutex;  // work, free tags
  std::vector<RankWork> work;
  std::set<int> tags_in_use;
  std::atomic<std::size_t> next_placement{0};
};

namespace {
std::atomic<DistributedSession*> active_session{nullptr};
DistributedSession::State* active_state = nullptr;
// The calling thread's case slot (CaseSlot): its home rank and its own counts.
thread_local int slot_rank = -1;
thread_local std::vector<RankWork>* slot_work = nullptr;

std::unique_ptr<worker::WorkerChannel> place_worker(const WorkerCommand& command, const std::string& subject) {
  DistributedSession::State& s = *active_state;
  const int ranks = s.link->size();
  int rank = slot_rank >= 0 ? slot_rank % ranks
                            : static_cast<int>(s.next_placement++ % static_cast<std::size_t>(ranks));
  // A lost rank gets no more work: the next one that lives does (rank 0 always does).
  while (s.liveness->lost(rank)) rank = (rank + 1) % ranks;
  // A slot's workers serve only that slot's cases (each slot has its own runner and instances),
  // so they count into the slot's tally too.
  std::vector<RankWork*> tallies = {&s.work[static_cast<std::size_t>(rank)]};
  if (slot_work != nullptr) tallies.push_back(&(*slot_work)[static_cast<std::size_t>(rank)]);
  if (rank == 0)
    return std::make_unique<distributed::CountedWorker>(std::make_unique<worker::WorkerProcess>(command, subject),
                                                        tallies, s.mutex);
  int tag = distributed::kFirstWorkerTag;
  {
    const std::lock_guard lock(s.mutex);
    while (s.tags_in_use.count(tag) != 0) ++tag;
    if (tag > distributed::kLastWorkerTag)
      throw TargetError("distributed mode: more than " + std::to_string(distributed::kLastWorkerTag - 1) +
                        " workers at once");
    s.tags_in_use.insert(tag);
  }
  auto release = [&s, tag] {
    const std::lock_guard lock(s.mutex);
    s.tags_in_use.erase(tag);
  };
  try {
    auto remote = std::make_unique<distributed::RemoteWorker>(
        *s.link, *s.liveness, rank, s.work[static_cast<std::size_t>(rank)].host, tag, command, subject);
    return std::make_unique<distributed::CountedWorker>(std::move(remote), tallies, s.mutex, release);
  } catch (...) {
    release();
    throw;
  }
}

bool has(const char* name) { return std::getenv(name) != nullptr && *std::getenv(name) != '\0'; }
int number(const char* name) { return has(name) ? std::atoi(std::getenv(name)) : 0; }

// Open MPI's `mpirun --mca orte_abort_on_non_zero_status 0` (which lets rank 0 outlive a lost
// rank) ends the job with exit status 0 when every rank finalises, whatever rank 0 returns
// (measured with Open MPI 4.1.4: 1, 2 and 77 all gave 0); MPI_Abort(status) gives `status`.
bool mpirun_drops_exit_status(const std::string& implementation) {
  const char* value = std::getenv("OMPI_MCA_orte_abort_on_non_zero_status");
  if (implementation != "openmpi" || value == nullptr) return false;
  const std::string text = value;
  return text == "0" || text == "false" || text == "no" || text == "f" || text == "n";
}

// Rank 0's MPI once its session ended, when the job must end by MPI_Abort if the run did not pass
// (a launcher that drops exit statuses) or in any case (a rank was lost): ended by
// finish_distributed_job, which knows the status.
std::unique_ptr<distributed::MpiLink> link_awaiting_status;
bool job_lost_a_rank = false;
}  // namespace

std::optional<MpiLaunch> detect_mpi_launch(const std::string& forced) {
  if (!forced.empty() && forced != "openmpi" && forced != "mpich")
    throw ConfigError("mpi", "--mpi (FPREV_MPI) is 'openmpi' or 'mpich', not '" + forced + "'");
  MpiLaunch launch;
  if (has("OMPI_COMM_WORLD_SIZE")) {
    launch = {"openmpi", number("OMPI_COMM_WORLD_SIZE")};
  } else if (has("PMI_SIZE")) {
    launch = {"mpich", number("PMI_SIZE")};
  } else if (!forced.empty() && (has("PMIX_RANK") || has("SLURM_PROCID") || has("PMI_RANK"))) {
    launch = {forced, number("SLURM_NTASKS")};
  } else {
    if (!forced.empty())
      throw ConfigError("mpi", "--mpi " + forced + ": this process was not started by an MPI launcher "
                               "(mpirun, mpiexec, srun); run `mpirun -np N fprev-golden ...`");
    return std::nullopt;
  }
  if (!forced.empty()) launch.implementation = forced;
  if (launch.world_size == 1) return std::nullopt;  // one rank: a serial run, no MPI needed
  return launch;
}

DistributedSession::DistributedSession(const MpiLaunch& launch, std::size_t streams_per_rank, double rank_timeout_seconds)
    : state_(std::make_unique<State>()) {
  state_->link = std::make_unique<distributed::MpiLink>(launch.implementation);
  state_->streams_per_rank = std::max<std::size_t>(1, streams_per_rank);
  distributed::MpiLink& link = *state_->link;
  if (link.rank() != 0) {
    state_->serving = true;
    state_->status = distributed::serve_rank(link, rank_timeout_seconds);
    return;
  }
  state_->launcher_drops_exit_status = mpirun_drops_exit_status(launch.implementation);
  std::vector<int> others;
  for (int r = 1; r < link.size(); ++r) others.push_back(r);
  state_->liveness = std::make_unique<distributed::RankLiveness>(link, others, rank_timeout_seconds);
  state_->heartbeats = std::jthread([&liveness = *state_->liveness](const std::stop_token& stop) {
    while (!stop.stop_requested()) {
      try {
        liveness.tick();
      } catch (const std::exception&) {
        // MPI could not look for heartbeats this time; a rank it never hears from is lost in time
      }
      std::this_thread::sleep_for(liveness.tick_interval());
    }
  });
  state_->work.resize(static_cast<std::size_t>(link.size()));
  state_->work[0] = {0, link.host(), 0, 0};
  // Every serving rank says hello with its host: the job is whole before any work is placed. A
  // rank lost before it does gets no work.
  for (int r = 1; r < link.size(); ++r) {
    std::string host = "?";
    try {
      const std::string bytes = link.receive(r, distributed::kControlTag, [&] {
        if (state_->liveness->lost(r)) throw std::runtime_error("lost");
      });
      const worker::Json hello = worker::Json::parse(distributed::decode_message(bytes).header, nullptr, false);
      if (hello.is_object()) host = hello.value("host", "?");
    } catch (const std::runtime_error&) {
      // lost before its hello: its why names it
    }
    state_->work[static_cast<std::size_t>(r)] = {r, host, 0, 0};
    state_->liveness->set_host(r, host);
  }
  active_state = state_.get();
  active_session = this;
  worker::set_worker_placement(&place_worker);
}

namespace {

// Takes each serving rank's messages until its "bye" (rank_server.cpp): its last heartbeats would
// otherwise be left unreceived at MPI_Finalize, which MPICH's UCX reports on stdout, into the
// --json document. MPI keeps the order of one sender's messages, so "bye" comes after them all.
// A rank that says nothing for `seconds` is not waited for longer.
void take_last_messages(distributed::MpiLink& link, double seconds) {
  using Clock = std::chrono::steady_clock;
  for (int r = 1; r < link.size(); ++r) {
    auto give_up = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    for (;;) {
      int from = 0, tag = 0;
      std::optional<std::string> bytes;
      try {
        bytes = link.try_receive(r, -1, from, tag);
      } catch (const std::exception&) {
        break;  // a rank that is gone
      }
      if (!bytes) {
        if (Clock::now() > give_up) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      give_up = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
      if (tag != distributed::kControlTag) continue;
      const worker::Json header =
          worker::Json::parse(distributed::decode_message(std::move(*bytes)).header, nullptr, false);
      if (header.is_object() && header.value("op", "") == "bye") break;
    }
  }
}

}  // namespace

DistributedSession::~DistributedSession() {
  if (!state_->serving) {
    worker::set_worker_placement(nullptr);
    active_session = nullptr;
    active_state = nullptr;
    state_->heartbeats = {};  // stops and joins
    if (const std::vector<std::string> lost = state_->liveness->lost_ranks(); !lost.empty()) {
      // MPI_Finalize would wait for the lost rank for ever, and a launcher told to go on after a
      // lost rank may end a job that finalises with 0: finish_distributed_job ends it with
      // MPI_Abort once main has its status (and has said what went wrong, if anything threw).
      std::cerr << "fprev-golden (rank 0 of " << state_->link->size() << "): the run failed, the MPI job lost "
                << (lost.size() == 1 ? "a rank" : std::to_string(lost.size()) + " ranks") << ":\n";
      for (const std::string& why : lost) std::cerr << "  " << why << "\n";
      std::cerr << "Rank 0 ends the job (MPI_Abort)." << std::endl;
      job_lost_a_rank = true;
      link_awaiting_status = std::move(state_->link);
      return;
    }
    const std::string shutdown = distributed::encode_message({worker::Json{{"op", "shutdown"}}.dump(), {}});
    for (int r = 1; r < state_->link->size(); ++r) {
      try {
        state_->link->send(r, distributed::kControlTag, shutdown);
      } catch (const std::exception&) {
        // a rank that is gone: MPI_Finalize below reports it
      }
    }
    take_last_messages(*state_->link, state_->liveness->silence_seconds());
    state_->liveness->settle();
    if (state_->launcher_drops_exit_status) {
      link_awaiting_status = std::move(state_->link);
      return;
    }
  }
  state_->link.reset();  // MPI_Finalize
}

int finish_distributed_job(int status) {
  if (!link_awaiting_status) return status;
  if (job_lost_a_rank && status == 0) status = 1;  // a lost rank fails the run
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  if (status != 0) {
    kill_descendants(::getpid());  // rank 0's own workers, before MPI_Abort ends this process
    link_awaiting_status->abort_job(status);
  }
  link_awaiting_status.reset();  // MPI_Finalize
  return status;
}

std::vector<std::string> DistributedSession::lost_ranks() const {
  return state_->liveness ? state_->liveness->lost_ranks() : std::vector<std::string>{};
}

bool DistributedSession::serving_rank() const { return state_->serving; }
int DistributedSession::exit_status() const { return state_->status; }
int DistributedSession::rank() const { return state_->link->rank(); }
int DistributedSession::ranks() const { return state_->link->size(); }
std::string DistributedSession::library() const { return state_->link->library(); }

const DistributedSession* active_distributed_session() { return active_session.load(); }

std::size_t distributed_streams() {
  if (active_state == nullptr) return 0;
  return static_cast<std::size_t>(active_state->link->size()) * active_state->streams_per_rank;
}

void record_rank_work(RevealStats& stats, const std::vector<RankWork>& before) {
  const std::vector<RankWork> now = rank_work();
  if (now.empty()) return;
  stats.ranks = now.size();
  stats.rank_probes.assign(now.size(), 0);
  for (std::size_t r = 0; r < now.size(); ++r)
    stats.rank_probes[r] = now[r].probes - (r < before.size() ? before[r].probes : 0);
}

std::vector<RankWork> rank_work() {
  if (active_state == nullptr) return {};
  const std::lock_guard lock(active_state->mutex);
  return slot_work != nullptr ? *slot_work : active_state->work;
}

CaseSlot::CaseSlot(int home_rank) {
  if (active_state != nullptr) {
    const std::lock_guard lock(active_state->mutex);
    work_ = active_state->work;
    for (RankWork& w : work_) w.probes = w.calls = 0;
  }
  slot_rank = home_rank;
  slot_work = &work_;
}

CaseSlot::~CaseSlot() {
  slot_rank = -1;
  slot_work = nullptr;
}

int case_slot_rank() { return slot_rank; }

}  // namespace fprev
