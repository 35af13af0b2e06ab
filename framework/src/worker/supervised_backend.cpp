// The gate's proxies of a backend whose code runs in worker processes (fprev/worker.hpp): a Backend
// whose open() starts a worker, an instance that hands each target a worker of its own (idle
// workers are kept for the next target, so a suite loads its library once per stream), and targets
// whose runs of calls travel as one message with their arrays in shared memory.
#include <dlfcn.h>

#include <exception>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "fprev/backend_module.hpp"
#include "fprev/distributed.hpp"
#include "fprev/worker.hpp"
#include "worker/limits.hpp"
#include "worker/worker_process.hpp"

namespace fprev {
namespace worker {
namespace {

std::string describe_leaves(const Probe& probe) {
  return "+M at leaf " + std::to_string(probe.plus) + ", -M at leaf " + std::to_string(probe.minus);
}

// What every worker of one instance shares: how to start one, the instance's settings, and the
// idle workers (each already holding the opened instance).
struct InstanceState {
  WorkerCommand command;
  Params settings;
  std::string label;    // "blas backend", "backend module fprev_backend_mine.so"
  std::string library;  // "OpenBLAS 0.3.21", once opened
  std::string subject;  // "OpenBLAS 0.3.21 (blas backend)"
  std::mutex mutex;
  std::vector<std::unique_ptr<WorkerChannel>> idle;

  // The end of the run: every idle worker closes its instance before it is killed, so that what
  // the instance keeps running between cases (the mpi backend's jobs) ends cleanly, with its
  // shared memory and session files, instead of by SIGKILL. A worker that fails or hangs meanwhile
  // is killed as always.
  ~InstanceState() {
    for (std::unique_ptr<WorkerChannel>& worker : idle) {
      if (!worker->usable()) continue;
      try {
        worker->call({{"op", "close_instance"}}, {"closing the instance", subject, 0});
      } catch (const std::exception&) {
        // killed with its process below
      }
    }
  }

  // A worker with the instance open: an idle one, or a new one. Throws TargetFault, and the
  // worker's replies to open (ConfigError, BackendUnavailable).
  std::unique_ptr<WorkerChannel> acquire(Identity* identity = nullptr) {
    {
      const std::lock_guard lock(mutex);
      while (!idle.empty()) {
        std::unique_ptr<WorkerChannel> worker = std::move(idle.back());
        idle.pop_back();
        if (worker->usable()) return worker;
      }
    }
    auto worker = start_worker(command, subject);
    const Json reply = checked_reply(worker->call({{"op", "open"}, {"params", to_json(settings)}}, {"opening the instance", subject, 0}));
    if (identity != nullptr) *identity = identity_from_json(reply.at("identity"));
    return worker;
  }

  void give_back(std::unique_ptr<WorkerChannel> worker) {
    if (!worker || !worker->usable()) return;
    const std::lock_guard lock(mutex);
    idle.push_back(std::move(worker));
  }

  // One request on any worker of the instance.
  Json ask(Json request, const std::string& what) {
    std::unique_ptr<WorkerChannel> worker = acquire();
    Json reply;
    try {
      reply = worker->call(std::move(request), {what, subject, 0});
    } catch (...) {
      give_back(std::move(worker));
      throw;
    }
    give_back(std::move(worker));
    return checked_reply(reply);
  }
};

class SupervisedTarget final : public Target {
 public:
  SupervisedTarget(std::shared_ptr<InstanceState> state, std::unique_ptr<WorkerChannel> worker,
                   std::uint64_t id, TargetInfo info)
      : state_(std::move(state)), worker_(std::move(worker)), id_(id), info_(std::move(info)),
        deadline_(active_case_deadline()),
        subject_(info_.description +
                 (info_.description.find(state_->library) == std::string::npos ? ", " + state_->library : "") +
                 " (" + state_->label + ")") {}

  ~SupervisedTarget() override {
    if (!worker_->usable()) return;
    try {
      worker_->call({{"op", "release"}, {"target", id_}}, {"releasing the target", subject_, 0});
      state_->give_back(std::move(worker_));
    } catch (const std::exception&) {
      // a worker that fails now is dropped with its process
    }
  }

  const TargetInfo& info() const override { return info_; }

  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    std::size_t done = 0;
    evaluate_probe_calls(std::span<const ProbeBatch>(&batch, 1), outputs, done);
  }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    std::size_t done = 0;
    evaluate_value_calls(std::span<const ValueBatch>(&batch, 1), outputs, done);
  }

  void evaluate_probe_calls(std::span<const ProbeBatch> calls, std::span<double> outputs,
                            std::size_t& done) override {
    done = 0;
    if (calls.empty()) return;
    // The distinct backgrounds of the run, and each call's list of them.
    std::map<const Background*, std::uint32_t> index;
    std::vector<const Background*> unique;
    std::size_t probes = 0, list_entries = 0, active = 0, output_count = 0, extras = 0;
    for (const ProbeBatch& call : calls) {
      for (const Background* b : call.backgrounds)
        if (index.emplace(b, static_cast<std::uint32_t>(unique.size())).second) {
          unique.push_back(b);
          if (!b->all_active) active += b->active.size();
        }
      probes += call.probes.size();
      list_entries += call.backgrounds.size();
      output_count += outputs_of_call(info_, call);
      for (std::size_t p = 0; p < call.probes.size(); ++p) extras += call.extras(p).size();
    }
    if (outputs.size() != output_count) throw TargetError("internal: outputs of another size than the calls'");
    Layout layout;
    const std::size_t at_values = layout.add<double>(6);
    const std::size_t at_calls = layout.add<std::uint32_t>(3 * calls.size());
    const std::size_t at_lists = layout.add<std::uint32_t>(list_entries);
    const std::size_t at_probes = layout.add<std::uint32_t>(3 * probes);
    const std::size_t at_backgrounds = layout.add<std::uint64_t>(4 * unique.size());
    const std::size_t at_active = layout.add<std::uint32_t>(active);
    const std::size_t at_outputs = layout.add<double>(output_count);
    // Further masks (probes with several pairs), only when some probe has them: per probe the
    // index of its first one (and one past the last probe's), their leaves, their factors a, b.
    const std::size_t at_extra_begin = extras > 0 ? layout.add<std::uint32_t>(probes + 1) : 0;
    const std::size_t at_extra_leaves = extras > 0 ? layout.add<std::uint32_t>(extras) : 0;
    const std::size_t at_extra_values = extras > 0 ? layout.add<double>(2 * extras) : 0;
    SharedMemory& shm = worker_->shared_memory();
    shm.reserve(layout.bytes());
    const ProbeValues& v = *calls[0].values;
    const double values[6] = {v.unit.a, v.unit.b, v.plus.a, v.plus.b, v.minus.a, v.minus.b};
    std::memcpy(shm.at<double>(at_values), values, sizeof values);
    auto* call_table = shm.at<std::uint32_t>(at_calls);
    auto* lists = shm.at<std::uint32_t>(at_lists);
    auto* probe_table = shm.at<std::uint32_t>(at_probes);
    std::size_t list_at = 0, probe_at = 0, extra_at = 0;
    for (std::size_t c = 0; c < calls.size(); ++c) {
      const ProbeBatch& call = calls[c];
      if (call.values != calls[0].values && std::memcmp(call.values, calls[0].values, sizeof(ProbeValues)) != 0)
        throw TargetError("internal: a run of calls with different mask values");
      call_table[3 * c] = static_cast<std::uint32_t>(call.probes.size());
      call_table[3 * c + 1] = static_cast<std::uint32_t>(list_at);
      call_table[3 * c + 2] = static_cast<std::uint32_t>(call.backgrounds.size());
      for (const Background* b : call.backgrounds) lists[list_at++] = index.at(b);
      for (std::size_t k = 0; k < call.probes.size(); ++k) {
        const Probe& p = call.probes[k];
        probe_table[3 * probe_at] = p.plus;
        probe_table[3 * probe_at + 1] = p.minus;
        probe_table[3 * probe_at + 2] = p.background;
        if (extras > 0) {
          shm.at<std::uint32_t>(at_extra_begin)[probe_at] = static_cast<std::uint32_t>(extra_at);
          for (const ExtraMask& extra : call.extras(k)) {
            shm.at<std::uint32_t>(at_extra_leaves)[extra_at] = extra.leaf;
            shm.at<double>(at_extra_values)[2 * extra_at] = extra.value.a;
            shm.at<double>(at_extra_values)[2 * extra_at + 1] = extra.value.b;
            ++extra_at;
          }
        }
        ++probe_at;
      }
    }
    if (extras > 0) shm.at<std::uint32_t>(at_extra_begin)[probe_at] = static_cast<std::uint32_t>(extra_at);
    auto* background_table = shm.at<std::uint64_t>(at_backgrounds);
    auto* active_list = shm.at<std::uint32_t>(at_active);
    std::size_t active_at = 0;
    for (std::size_t k = 0; k < unique.size(); ++k) {
      const Background& b = *unique[k];
      const std::size_t count = b.all_active ? 0 : b.active.size();
      background_table[4 * k] = b.id;
      background_table[4 * k + 1] = b.all_active ? 1 : 0;
      background_table[4 * k + 2] = active_at;
      background_table[4 * k + 3] = count;
      if (count > 0) std::memcpy(active_list + active_at, b.active.data(), count * sizeof(std::uint32_t));
      active_at += count;
    }
    Json sections = {{"values", {at_values, 6}},
                     {"calls", {at_calls, 3 * calls.size()}},
                     {"call_backgrounds", {at_lists, list_entries}},
                     {"probes", {at_probes, 3 * probes}},
                     {"backgrounds", {at_backgrounds, 4 * unique.size()}},
                     {"active", {at_active, active}},
                     {"outputs", {at_outputs, output_count}}};
    if (extras > 0) {
      sections["extra_begin"] = {at_extra_begin, probes + 1};
      sections["extra_leaves"] = {at_extra_leaves, extras};
      sections["extra_values"] = {at_extra_values, 2 * extras};
    }
    const Probe& first = calls[0].probes.empty() ? Probe{} : calls[0].probes[0];
    const std::string what = calls.size() == 1
                                 ? "a call of " + std::to_string(probes) + (probes == 1 ? " probe" : " probes") +
                                       " (the first " + describe_leaves(first) + ")"
                                 : "a run of " + std::to_string(calls.size()) + " calls with " +
                                       std::to_string(probes) + " probes (the first " + describe_leaves(first) + ")";
    run("probes", calls, sections, what, probes, at_outputs, outputs, done);
  }

  void evaluate_value_calls(std::span<const ValueBatch> calls, std::span<double> outputs,
                            std::size_t& done) override {
    done = 0;
    if (calls.empty()) return;
    const std::size_t n = info_.n;
    std::size_t a_count = 0, output_count = 0;
    // Calls usually share one b (a GEMM's B, a dot's y): sent once.
    std::vector<std::pair<const double*, std::size_t>> distinct_b;
    std::size_t b_count = 0;
    for (const ValueBatch& call : calls) {
      a_count += call.rows * n;
      output_count += outputs_of_call(info_, call);
      const auto key = std::make_pair(call.b.data(), call.b.size());
      if (std::find(distinct_b.begin(), distinct_b.end(), key) == distinct_b.end()) {
        distinct_b.push_back(key);
        b_count += call.b.size();
      }
    }
    if (outputs.size() != output_count) throw TargetError("internal: outputs of another size than the calls'");
    // Optional: the blocks of b every column names (ValueBatch::column_factors).
    std::size_t named_count = 0;
    for (const ValueBatch& call : calls) named_count += call.column_factors.size();
    Layout layout;
    const std::size_t at_calls = layout.add<std::uint64_t>(4 * calls.size());
    const std::size_t at_a = layout.add<double>(a_count);
    const std::size_t at_b = layout.add<double>(b_count);
    const std::size_t at_outputs = layout.add<double>(output_count);
    const std::size_t at_column_calls = named_count > 0 ? layout.add<std::uint64_t>(2 * calls.size()) : 0;
    const std::size_t at_named = named_count > 0 ? layout.add<std::uint32_t>(named_count) : 0;
    SharedMemory& shm = worker_->shared_memory();
    shm.reserve(layout.bytes());
    std::vector<std::size_t> b_begin(distinct_b.size());
    std::size_t b_at = 0;
    for (std::size_t k = 0; k < distinct_b.size(); ++k) {
      b_begin[k] = b_at;
      if (distinct_b[k].second > 0)
        std::memcpy(shm.at<double>(at_b) + b_at, distinct_b[k].first, distinct_b[k].second * sizeof(double));
      b_at += distinct_b[k].second;
    }
    auto* call_table = shm.at<std::uint64_t>(at_calls);
    std::size_t a_at = 0;
    for (std::size_t c = 0; c < calls.size(); ++c) {
      const ValueBatch& call = calls[c];
      const std::size_t count = call.rows * n;
      if (call.a.size() < count) throw TargetError("internal: a value call with fewer values than rows x n");
      std::memcpy(shm.at<double>(at_a) + a_at, call.a.data(), count * sizeof(double));
      const auto key = std::make_pair(call.b.data(), call.b.size());
      const std::size_t b_index = static_cast<std::size_t>(std::find(distinct_b.begin(), distinct_b.end(), key) - distinct_b.begin());
      call_table[4 * c] = call.rows;
      call_table[4 * c + 1] = a_at;
      call_table[4 * c + 2] = b_begin[b_index];
      call_table[4 * c + 3] = call.b.size();
      a_at += count;
    }
    Json sections = {{"calls", {at_calls, 4 * calls.size()}},
                     {"a", {at_a, a_count}},
                     {"b", {at_b, b_count}},
                     {"outputs", {at_outputs, output_count}}};
    if (named_count > 0) {
      auto* column_calls = shm.at<std::uint64_t>(at_column_calls);
      std::size_t named_at = 0;
      for (std::size_t c = 0; c < calls.size(); ++c) {
        const std::span<const std::uint32_t> named = calls[c].column_factors;
        column_calls[2 * c] = named_at;
        column_calls[2 * c + 1] = named.size();
        if (!named.empty())
          std::memcpy(shm.at<std::uint32_t>(at_named) + named_at, named.data(), named.size() * sizeof(std::uint32_t));
        named_at += named.size();
      }
      sections["column_calls"] = {at_column_calls, 2 * calls.size()};
      sections["column_factors"] = {at_named, named_count};
    }
    std::size_t rows = 0;
    for (const ValueBatch& call : calls) rows += call.rows;
    const std::string what = (calls.size() == 1 ? "a call" : "a run of " + std::to_string(calls.size()) + " calls") +
                             " with " + std::to_string(rows) + " value inputs";
    run("values", calls, sections, what, 0, at_outputs, outputs, done);
  }

 private:
  // A target whose worker faulted stays failed with that fault: whoever calls it again (a reveal
  // after a failed confirmation, a fingerprint) gets the same diagnostic, not a new one.
  Json call(Json request, const InFlight& in_flight) {
    if (fault_) std::rethrow_exception(fault_);
    // The deadline of the case that made this target, on whichever thread calls it (a stream's).
    const ThreadDeadline case_deadline(deadline_);
    try {
      return worker_->call(std::move(request), in_flight);
    } catch (const TargetFault&) {
      fault_ = std::current_exception();
      throw;
    }
  }

  // Sends a run whose arrays are in place and copies its outputs out of the shared memory; an error
  // reply is rethrown with the calls it completed in `done`.
  // The calls of a run share their placement and where their data lies (the alignment check
  // changes the offset between runs, never inside one).
  template <typename Batch>
  static void check_run_shares_layout(std::span<const Batch> calls) {
    for (const Batch& call : calls)
      if (call.placement != calls[0].placement || call.offset != calls[0].offset ||
          call.leading_pad != calls[0].leading_pad)
        throw TargetError("internal: a run of calls with different placements or offsets");
  }

  template <typename Batch>
  void run(const char* op, std::span<const Batch> calls, const Json& sections, const std::string& what,
           std::size_t probes, std::size_t at_outputs, std::span<double> outputs, std::size_t& done) {
    check_run_shares_layout(calls);
    const Json reply = call({{"op", op},
                             {"target", id_},
                             {"placement", to_string(calls[0].placement)},
                             {"offset", calls[0].offset},
                             {"leading_pad", calls[0].leading_pad},
                             {"sections", sections}},
                            {what, subject_, calls.size(), probes});
    if (!reply.value("ok", false)) {
      done = reply.value("done", std::size_t{0});
      checked_reply(reply);
    }
    done = calls.size();
    std::memcpy(outputs.data(), worker_->shared_memory().at<double>(at_outputs), outputs.size() * sizeof(double));
  }

  std::shared_ptr<InstanceState> state_;
  std::unique_ptr<WorkerChannel> worker_;
  std::uint64_t id_;
  TargetInfo info_;
  std::optional<ActiveDeadline> deadline_;
  std::string subject_;
  std::exception_ptr fault_;
};

class SupervisedInstance final : public BackendInstance {
 public:
  SupervisedInstance(std::shared_ptr<InstanceState> state, Identity identity)
      : state_(std::move(state)), identity_(std::move(identity)) {}

  Identity identity() const override { return identity_; }

  std::vector<ParamSpec> case_params() const override {
    const std::lock_guard lock(cache_mutex_);
    if (!case_params_)
      case_params_ = param_specs_from_json(state_->ask({{"op", "case_params"}}, "listing case parameters").at("case_params"));
    return *case_params_;
  }

  void validate_case(const Params& params) const override {
    state_->ask({{"op", "validate_case"}, {"params", to_json(params)}}, "validating the case");
  }

  std::unique_ptr<Target> make_target(const Params& params) const override {
    std::unique_ptr<WorkerChannel> worker = state_->acquire();
    Json reply;
    try {
      reply = checked_reply(worker->call({{"op", "make_target"}, {"params", to_json(params)}}, {"making the target", state_->subject, 0}));
    } catch (const TargetFault&) {
      throw;
    } catch (...) {
      state_->give_back(std::move(worker));  // a ConfigError leaves the worker healthy
      throw;
    }
    if (reply.contains("concurrent_targets")) {
      const std::lock_guard lock(cache_mutex_);
      concurrent_[params] = reply["concurrent_targets"].get<std::size_t>();
    }
    return std::make_unique<SupervisedTarget>(state_, std::move(worker), reply.at("target").get<std::uint64_t>(),
                                              target_info_from_json(reply.at("info")));
  }

  // Known from make_target's reply (a case's target is made before its streams are chosen), so
  // no worker is started only to ask. A backend that allows fewer targets at once than a
  // distributed run has ranks (a BLAS with several threads: its thread pool is process-global)
  // still gets one per rank: each rank's worker is a process of its own, on that rank's cores.
  std::size_t concurrent_targets(const Params& params) const override {
    const auto per_rank = [](std::size_t n) {
      // (Not for a case slot's case: its workers all run on its home rank.)
      const DistributedSession* session = active_distributed_session();
      if (session == nullptr || case_slot_rank() >= 0) return n;
      return std::max(n, static_cast<std::size_t>(session->ranks()));
    };
    {
      const std::lock_guard lock(cache_mutex_);
      if (const auto it = concurrent_.find(params); it != concurrent_.end())
        return it->second == 0 ? kUnboundedTargets : per_rank(it->second);
    }
    const std::size_t n = state_->ask({{"op", "concurrent_targets"}, {"params", to_json(params)}},
                                      "asking how many targets may run at once")
                              .at("targets")
                              .get<std::size_t>();
    return n == 0 ? kUnboundedTargets : per_rank(n);
  }

 private:
  std::shared_ptr<InstanceState> state_;
  Identity identity_;
  mutable std::mutex cache_mutex_;
  mutable std::optional<std::vector<ParamSpec>> case_params_;
  mutable std::map<Params, std::size_t> concurrent_;  // by case: 0 = as many as there are cores
};

// Opens an instance in a new worker.
std::unique_ptr<BackendInstance> open_in_worker(const WorkerCommand& command, const Params& settings,
                                                std::string subject) {
  auto state = std::make_shared<InstanceState>();
  state->command = command;
  state->settings = settings;
  state->label = subject;
  state->subject = std::move(subject);
  Identity identity;
  std::unique_ptr<WorkerChannel> worker = state->acquire(&identity);
  state->library = identity.library + (identity.version.empty() ? "" : " " + identity.version);
  state->subject = state->library + " (" + state->label + ")";
  state->give_back(std::move(worker));
  return std::make_unique<SupervisedInstance>(std::move(state), std::move(identity));
}

class SupervisedBackend final : public Backend {
 public:
  SupervisedBackend(const Backend& backend, WorkerCommand command)
      : backend_(backend), command_(std::move(command)) {}

  std::string_view name() const override { return backend_.name(); }
  std::string_view summary() const override { return backend_.summary(); }
  std::vector<ParamSpec> instance_params() const override { return backend_.instance_params(); }
  std::vector<ParamSpec> case_params() const override { return backend_.case_params(); }
  void validate_case(const Params& params) const override { backend_.validate_case(params); }
  std::size_t processes(const Params& params) const override { return backend_.processes(params); }
  std::vector<std::pair<std::string, std::string>> host_facts() const override { return backend_.host_facts(); }
  bool runs_foreign_code() const override { return true; }

  std::unique_ptr<BackendInstance> open(const Params& settings) const override {
    return open_in_worker(command_, settings, std::string(backend_.name()) + " backend");
  }

 private:
  const Backend& backend_;
  WorkerCommand command_;
};

// A backend module described by a worker that loaded it; the gate never maps the module.
class ModuleInWorker final : public Backend {
 public:
  ModuleInWorker(std::string name, WorkerCommand command) : name_(std::move(name)), command_(std::move(command)) {}

  std::string_view name() const override { return name_; }
  std::string_view summary() const override {
    describe();
    return error_.empty() ? std::string_view(summary_) : std::string_view("backend module that cannot be loaded");
  }
  std::vector<ParamSpec> instance_params() const override {
    describe();
    return instance_params_;
  }
  std::vector<ParamSpec> case_params() const override {
    describe();
    if (!error_.empty()) throw BackendModuleError({}, error_);
    return case_params_;
  }
  void validate_case(const Params& params) const override {
    describe();
    if (!error_.empty()) throw BackendModuleError({}, error_);
    const std::lock_guard lock(mutex_);
    if (!describer_ || !describer_->usable()) describer_ = start_worker(command_, subject());
    const Json reply = checked_reply(describer_->call({{"op", "validate_static"}, {"cases", Json::array({to_json(params)})}},
                                                      {"validating a case", subject(), 0}));
    const Json& result = reply.at("results").at(0);
    if (result.contains("error"))
      throw ConfigError(result["error"].value("parameter", std::string()), result["error"].value("message", std::string()));
  }
  bool runs_foreign_code() const override { return true; }

  std::unique_ptr<BackendInstance> open(const Params& settings) const override {
    describe();
    if (!error_.empty()) throw BackendUnavailable(error_, Unavailability::unusable);
    return open_in_worker(command_, settings, subject());
  }

 private:
  std::string subject() const { return "backend module " + backend_module_file_name(name_); }

  // The module's description, asked once; a module that cannot be loaded, or that crashes or
  // exits while loading, keeps the reason.
  void describe() const {
    const std::lock_guard lock(mutex_);
    if (described_) return;
    described_ = true;
    try {
      describer_ = start_worker(command_, subject());
      const Json reply = checked_reply(describer_->call({{"op", "describe"}}, {"loading the module", subject(), 0}));
      summary_ = reply.at("summary").get<std::string>();
      instance_params_ = param_specs_from_json(reply.at("instance_params"));
      case_params_ = param_specs_from_json(reply.at("case_params"));
    } catch (const std::exception& e) {  // TargetFault, BackendUnavailable (module errors), protocol
      error_ = e.what();
      describer_.reset();
    }
  }

  std::string name_;
  WorkerCommand command_;
  mutable std::recursive_mutex mutex_;
  mutable bool described_ = false;
  mutable std::string error_;
  mutable std::string summary_;
  mutable std::vector<ParamSpec> instance_params_, case_params_;
  mutable std::unique_ptr<WorkerChannel> describer_;
};

// lib/fprev-golden/fprev-golden-worker beside the framework library (the build tree mirrors the
// installed layout), unless FPREV_WORKER_PROGRAM names another.
std::string worker_program() {
  if (const char* program = std::getenv("FPREV_WORKER_PROGRAM"); program != nullptr && *program != '\0')
    return program;
  const std::string directory = worker_directory();
  return directory.empty() ? "fprev-golden-worker" : directory + "/fprev-golden-worker";
}

}  // namespace
}  // namespace worker

std::string worker_directory() {
  static const char anchor = 0;
  Dl_info info{};
  if (dladdr(&anchor, &info) != 0 && info.dli_fname != nullptr && *info.dli_fname != '\0') {
    std::error_code error;
    const auto library = std::filesystem::canonical(info.dli_fname, error);
    if (!error) return (library.parent_path() / "fprev-golden").string();
  }
  return "";
}

std::unique_ptr<BackendInstance> open_instance_in_worker(const WorkerCommand& command, const Params& settings,
                                                         std::string label) {
  return worker::open_in_worker(command, settings, std::move(label));
}

WorkerCommand native_worker_command(std::string_view backend_name) {
  return {{worker::worker_program(), "--backend", std::string(backend_name)}, {}};
}

std::unique_ptr<Backend> supervised_backend(const Backend& backend, WorkerCommand command) {
  return std::make_unique<worker::SupervisedBackend>(backend, std::move(command));
}

std::unique_ptr<Backend> module_backend_in_worker(std::string name, WorkerCommand command) {
  return std::make_unique<worker::ModuleInWorker>(std::move(name), std::move(command));
}

}  // namespace fprev
