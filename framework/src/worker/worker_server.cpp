// The worker's side of the protocol (docs/worker-protocol.md) for backends written in C++: one
// backend, at most one open instance, its targets by id. Runs in fprev-golden-worker.
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <functional>
#include <iostream>
#include <map>
#include <span>

#include "fprev/worker.hpp"
#include "worker/protocol.hpp"

namespace fprev {
namespace worker {
namespace {

class Server {
 public:
  Server(const BackendRegistry& registry, std::string_view backend_name)
      : registry_(registry), backend_name_(backend_name), shm_(kSharedMemoryFd) {}

  Json handle(const Json& request) {
    if (request.contains("shm")) shm_.map(request["shm"].get<std::size_t>());
    const std::string op = request.value("op", std::string());
    if (op == "describe") return describe();
    if (op == "validate_static") return validate_static(request);
    if (op == "open") return open(request);
    if (op == "case_params") return ok({{"case_params", to_json(instance().case_params())}});
    if (op == "validate_case") {
      instance().validate_case(params_from_json(request.at("params")));
      return ok({});
    }
    if (op == "concurrent_targets") {
      const std::size_t n = instance().concurrent_targets(params_from_json(request.at("params")));
      return ok({{"targets", n == BackendInstance::kUnboundedTargets ? 0 : n}});
    }
    if (op == "make_target") return make_target(request);
    if (op == "release") {
      targets_.erase(request.at("target").get<std::uint64_t>());
      return ok({});
    }
    if (op == "close_instance") {  // the end of the run: what the instance keeps running ends now
      targets_.clear();
      instance_.reset();
      return ok({});
    }
    if (op == "probes") return probes(request);
    if (op == "values") return values(request);
    throw ProtocolError("unknown request '" + op + "'");
  }

 private:
  static Json ok(Json fields) {
    fields["ok"] = true;
    return fields;
  }

  const Backend& backend() {
    if (backend_ == nullptr) {
      backend_ = registry_.find(backend_name_);
      if (backend_ == nullptr)
        throw BackendUnavailable("this worker has no backend '" + backend_name_ + "'", Unavailability::unusable);
    }
    return *backend_;
  }

  BackendInstance& instance() {
    if (!instance_) throw ProtocolError("a request before open");
    return *instance_;
  }

  Target& target(const Json& request) {
    const auto it = targets_.find(request.at("target").get<std::uint64_t>());
    if (it == targets_.end()) throw ProtocolError("no target " + request.at("target").dump());
    return *it->second;
  }

  Json describe() {
    const Backend& b = backend();
    return ok({{"name", std::string(b.name())},
               {"summary", std::string(b.summary())},
               {"instance_params", to_json(b.instance_params())},
               {"case_params", to_json(b.case_params())}});
  }

  // The backend's static checks of many cases in one message (suite validation, list).
  Json validate_static(const Json& request) {
    Json results = Json::array();
    for (const Json& params : request.at("cases")) {
      Json result = {{"processes", 1}};
      try {
        const Params p = params_from_json(params);
        backend().validate_case(p);
        result["processes"] = backend().processes(p);
      } catch (const ConfigError& e) {
        result["error"] = {{"parameter", e.parameter()}, {"message", e.what()}};
      }
      results.push_back(std::move(result));
    }
    return ok({{"results", std::move(results)}});
  }

  Json open(const Json& request) {
    instance_ = backend().open(params_from_json(request.at("params")));
    return ok({{"identity", to_json(instance_->identity())}});
  }

  Json make_target(const Json& request) {
    const Params params = params_from_json(request.at("params"));
    std::unique_ptr<Target> target = instance().make_target(params);
    const std::uint64_t id = ++last_target_;
    Json info = to_json(target->info());
    targets_.emplace(id, std::move(target));
    // Asked with every target, so that the gate need not start another worker to learn it.
    const std::size_t concurrent = instance().concurrent_targets(params);
    return ok({{"target", id},
               {"info", std::move(info)},
               {"concurrent_targets", concurrent == BackendInstance::kUnboundedTargets ? 0 : concurrent}});
  }

  template <typename T>
  std::span<T> section(const Json& sections, const char* name) {
    const Json& s = sections.at(name);
    const std::size_t offset = s.at(0).get<std::size_t>(), count = s.at(1).get<std::size_t>();
    if (offset % alignof(T) != 0 || offset > shm_.size() || count > (shm_.size() - offset) / sizeof(T))
      throw ProtocolError(std::string("section ") + name + " lies outside the shared memory");
    return {shm_.at<T>(offset), count};
  }

  static Placement placement_of(const Json& request) {
    return request.value("placement", std::string("rows")) == "columns" ? Placement::columns : Placement::rows;
  }

  Json run(const std::function<void(std::size_t&)>& calls) {
    std::size_t done = 0;
    const auto start = std::chrono::steady_clock::now();
    try {
      calls(done);
    } catch (...) {
      return {{"ok", false}, {"error", error_to_json(std::current_exception())}, {"done", done}};
    }
    return ok({{"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()}});
  }

  Json probes(const Json& request) {
    Target& t = target(request);
    const Json& sections = request.at("sections");
    const auto values_section = section<const double>(sections, "values");
    const auto call_table = section<const std::uint32_t>(sections, "calls");
    const auto call_backgrounds = section<const std::uint32_t>(sections, "call_backgrounds");
    const auto probe_table = section<const std::uint32_t>(sections, "probes");
    const auto background_table = section<const std::uint64_t>(sections, "backgrounds");
    const auto active = section<const std::uint32_t>(sections, "active");
    const auto outputs = section<double>(sections, "outputs");
    if (values_section.size() != 6 || call_table.size() % 3 != 0 || probe_table.size() % 3 != 0 ||
        background_table.size() % 4 != 0)
      throw ProtocolError("malformed probe sections");
    ProbeValues values{{values_section[0], values_section[1]},
                       {values_section[2], values_section[3]},
                       {values_section[4], values_section[5]}};
    backgrounds_.resize(background_table.size() / 4);
    for (std::size_t k = 0; k < backgrounds_.size(); ++k) {
      const std::uint64_t* row = &background_table[4 * k];
      Background& b = backgrounds_[k];
      b.id = row[0];
      b.all_active = row[1] != 0;
      if (row[2] > active.size() || row[3] > active.size() - row[2]) throw ProtocolError("background outside the active list");
      b.active.assign(active.begin() + static_cast<std::ptrdiff_t>(row[2]),
                      active.begin() + static_cast<std::ptrdiff_t>(row[2] + row[3]));
    }
    background_pointers_.clear();
    for (std::uint32_t index : call_backgrounds) {
      if (index >= backgrounds_.size()) throw ProtocolError("a call names a background that is not there");
      background_pointers_.push_back(&backgrounds_[index]);
    }
    probes_.resize(probe_table.size() / 3);
    for (std::size_t k = 0; k < probes_.size(); ++k)
      probes_[k] = {probe_table[3 * k], probe_table[3 * k + 1], probe_table[3 * k + 2]};
    // Further masks (probes with several pairs): optional sections.
    std::span<const std::uint32_t> extra_begin;
    extra_masks_.clear();
    if (sections.contains("extra_begin")) {
      if (!t.info().extra_masks) throw ProtocolError("further masks for a target that does not take them");
      extra_begin = section<const std::uint32_t>(sections, "extra_begin");
      const auto leaves = section<const std::uint32_t>(sections, "extra_leaves");
      const auto factors = section<const double>(sections, "extra_values");
      if (extra_begin.size() != probes_.size() + 1 || factors.size() != 2 * leaves.size() ||
          extra_begin.front() != 0 || extra_begin.back() != leaves.size() ||
          !std::is_sorted(extra_begin.begin(), extra_begin.end()))
        throw ProtocolError("malformed further-mask sections");
      for (std::size_t k = 0; k < leaves.size(); ++k) {
        if (leaves[k] >= t.info().n) throw ProtocolError("a further mask outside the leaves");
        extra_masks_.push_back({leaves[k], {factors[2 * k], factors[2 * k + 1]}});
      }
    }
    calls_.clear();
    std::size_t probe_begin = 0, total_outputs = 0;
    const Placement placement = placement_of(request);
    for (std::size_t c = 0; c < call_table.size() / 3; ++c) {
      const std::uint32_t count = call_table[3 * c], bg_begin = call_table[3 * c + 1], bg_count = call_table[3 * c + 2];
      if (probe_begin + count > probes_.size() || bg_begin + bg_count > background_pointers_.size())
        throw ProtocolError("a call outside the probe or background tables");
      ProbeBatch call;
      call.values = &values;
      call.backgrounds = std::span<const Background* const>(background_pointers_).subspan(bg_begin, bg_count);
      call.probes = std::span<const Probe>(probes_).subspan(probe_begin, count);
      if (!extra_begin.empty()) {
        call.extra_begin = extra_begin.subspan(probe_begin, count + 1);
        call.extra_masks = extra_masks_;
      }
      call.placement = placement;
      call.offset = request.value("offset", std::size_t{0});
      call.leading_pad = request.value("leading_pad", std::size_t{0});
      for (const Probe& p : call.probes)
        if (p.background >= bg_count || p.plus >= t.info().n || p.minus >= t.info().n)
          throw ProtocolError("a probe outside its call's leaves or backgrounds");
      total_outputs += outputs_of_call(t.info(), call);
      calls_.push_back(call);
      probe_begin += count;
    }
    if (total_outputs != outputs.size()) throw ProtocolError("the outputs section does not fit the calls");
    return run([&](std::size_t& done) { t.evaluate_probe_calls(calls_, outputs, done); });
  }

  Json values(const Json& request) {
    Target& t = target(request);
    const Json& sections = request.at("sections");
    const auto call_table = section<const std::uint64_t>(sections, "calls");
    const auto a = section<const double>(sections, "a");
    const auto b = section<const double>(sections, "b");
    const auto outputs = section<double>(sections, "outputs");
    if (call_table.size() % 4 != 0) throw ProtocolError("malformed value sections");
    // Optional: the blocks of b every column names (ValueBatch::column_factors).
    std::span<const std::uint64_t> column_calls;
    std::span<const std::uint32_t> named;
    if (sections.contains("column_factors")) {
      if (!t.info().column_right_factors) throw ProtocolError("column factors for a target that does not take them");
      column_calls = section<const std::uint64_t>(sections, "column_calls");
      named = section<const std::uint32_t>(sections, "column_factors");
      if (column_calls.size() != call_table.size() / 2) throw ProtocolError("malformed column-factor sections");
    }
    value_calls_.clear();
    std::size_t total_outputs = 0;
    const std::size_t n = t.info().n;
    for (std::size_t c = 0; c < call_table.size() / 4; ++c) {
      const std::uint64_t rows = call_table[4 * c], a_begin = call_table[4 * c + 1];
      const std::uint64_t b_begin = call_table[4 * c + 2], b_count = call_table[4 * c + 3];
      if (a_begin > a.size() || rows * n > a.size() - a_begin || b_begin > b.size() || b_count > b.size() - b_begin)
        throw ProtocolError("a value call outside its arrays");
      ValueBatch call;
      call.rows = rows;
      call.a = a.subspan(a_begin, rows * n);
      call.b = b.subspan(b_begin, b_count);
      if (!column_calls.empty()) {
        const std::uint64_t named_begin = column_calls[2 * c], named_count = column_calls[2 * c + 1];
        if (named_begin > named.size() || named_count > named.size() - named_begin)
          throw ProtocolError("column factors outside their section");
        call.column_factors = named.subspan(named_begin, named_count);
      }
      call.placement = placement_of(request);
      call.offset = request.value("offset", std::size_t{0});
      call.leading_pad = request.value("leading_pad", std::size_t{0});
      total_outputs += outputs_of_call(t.info(), call);
      value_calls_.push_back(call);
    }
    if (total_outputs != outputs.size()) throw ProtocolError("the outputs section does not fit the calls");
    return run([&](std::size_t& done) { t.evaluate_value_calls(value_calls_, outputs, done); });
  }

  const BackendRegistry& registry_;
  std::string backend_name_;
  const Backend* backend_ = nullptr;
  SharedMemory shm_;
  std::unique_ptr<BackendInstance> instance_;
  std::map<std::uint64_t, std::unique_ptr<Target>> targets_;
  std::uint64_t last_target_ = 0;
  // reused between requests
  std::vector<Background> backgrounds_;
  std::vector<const Background*> background_pointers_;
  std::vector<Probe> probes_;
  std::vector<ExtraMask> extra_masks_;
  std::vector<ProbeBatch> calls_;
  std::vector<ValueBatch> value_calls_;
};

}  // namespace
}  // namespace worker

int serve_worker(const BackendRegistry& registry, std::string_view backend_name) {
  using namespace worker;
  // Dies with the gate (the socket's end of stream tells it too, once it reads).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::fcntl(kSocketFd, F_GETFD) < 0 || ::fcntl(kSharedMemoryFd, F_GETFD) < 0) {
    std::cerr << "fprev-golden-worker: started without its descriptors (3: socket, 4: shared memory); it is "
                 "started by fprev-golden, not by hand\n";
    return 2;
  }
  Server server(registry, backend_name);
  try {
    write_frame(kSocketFd, {{"hello", "fprev-worker"}, {"protocol", kProtocolVersion}, {"pid", ::getpid()}});
    for (;;) {
      std::optional<Json> request = read_frame(kSocketFd);
      if (!request) return 0;  // the gate is done with us
      Json reply;
      try {
        reply = server.handle(*request);
      } catch (...) {
        reply = {{"ok", false}, {"error", error_to_json(std::current_exception())}};
      }
      write_frame(kSocketFd, reply);
    }
  } catch (const std::exception& e) {
    std::cerr << "fprev-golden-worker: " << e.what() << "\n";
    return 3;
  }
}

}  // namespace fprev
