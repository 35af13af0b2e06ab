// The "mpi" backend as the registry sees it: settings, opening an instance (finding the launcher
// and the probe program, one short job that reports the library and its effective settings) and
// making targets (on the instance's running jobs, one per launch: job_pool.hpp).
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "collective_target.hpp"
#include "effective_settings.hpp"
#include "fprev/backends/mpi.hpp"
#include "job_pool.hpp"
#include "launcher.hpp"
#include "mpi_case.hpp"
#include "mpi_job.hpp"
#include "mpi_settings.hpp"
#include "node_layout.hpp"

namespace fprev {
namespace mpi {
namespace {


// Everything an instance needs to start jobs.
// The cores this process may run on (its affinity mask: a container's or taskset's cpuset), which
// the launcher's ranks inherit; all online ones where the mask cannot be read.
std::size_t usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max<std::size_t>(1, std::thread::hardware_concurrency());
}

struct Installation {
  Launcher launcher;
  Settings settings;
  std::vector<TuningVariable> tuning;  // normalized
  std::string probe;
  LaunchEnvironment environment;
  std::vector<std::string> cvars;  // reported by rank 0: the tuning's and the order-deciding ones
  std::optional<NodeLayout> layout;  // where the ranks run, when the settings place them

  JobConfig job(int ranks, std::vector<std::string> probe_args, const std::string& what) const {
    if (idle_yield_wanted(launcher.family, settings, ranks, usable_cores()))
      probe_args.insert(probe_args.end(), {"--idle-yield", "on"});
    JobConfig config;
    config.launcher = launcher.path;
    config.launcher_args =
        launcher_arguments(launcher.family, settings, ranks, ::geteuid() == 0);
    config.environment = environment.variables;
    config.probe = probe;
    config.probe_args = std::move(probe_args);
    config.ranks = ranks;
    config.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(settings.timeout);
    config.what = what;
    config.over_tcp = settings.names_nodes();
    return config;
  }
};

class MpiInstance final : public BackendInstance {
 public:
  MpiInstance(Installation installation, Identity identity, std::string launch_failure)
      : installation_(std::move(installation)),
        identity_(std::move(identity)),
        launch_failure_(std::move(launch_failure)) {}

  Identity identity() const override { return identity_; }
  std::vector<ParamSpec> case_params() const override { return case_param_specs(); }
  void validate_case(const Params& params) const override { parse_placed_case(params); }

  std::unique_ptr<Target> make_target(const Params& params) const override {
    const MpiCase c = parse_placed_case(params);
    if (!launch_failure_.empty())
      throw TargetError("the MPI installation did not start when it was opened: " + launch_failure_);
    std::string what = identity_.library + " " + identity_.version + " " + c.describe();
    if (installation_.layout) what += " on " + installation_.layout->describe();
    std::string description = what;
    if (!installation_.tuning.empty()) description += " (" + tuning_text(installation_.tuning) + ")";
    JobConfig job = installation_.job(c.ranks, {}, what);
    job.layout = installation_.layout;
    return std::make_unique<CollectiveTarget>(jobs_, std::move(job), c, std::move(description));
  }

 private:
  // An instance that places its ranks runs only cases of its layout's rank count.
  MpiCase parse_placed_case(const Params& params) const {
    const MpiCase c = parse_case(params);
    if (installation_.layout)
      check_case_ranks(*installation_.layout, c.ranks, identity_.platform_key);
    return c;
  }

  Installation installation_;
  Identity identity_;
  std::string launch_failure_;
  // The running jobs, shared with the targets (a target may end after the instance).
  std::shared_ptr<JobPool> jobs_ = std::make_shared<JobPool>(installation_.settings.reuse_jobs);
};

Identity make_identity(const Installation& in, const JobHello* hello) {
  const Family family = in.launcher.family;
  Identity id;
  id.library = family_name(family);
  id.platform_key = platform_key(family, in.tuning, in.layout ? in.layout->key() : "");
  if (hello != nullptr) {
    id.version = library_version_number(family, hello->library_version);
    id.configuration = library_configuration(family, hello->library_version, hello->cvars);
    id.details["mpi_standard"] =
        std::to_string(hello->mpi_version) + "." + std::to_string(hello->mpi_subversion);
    for (const auto& [name, value] : hello->cvars) id.details[name] = value;
  } else {
    id.version = "unknown";
    id.configuration = in.launcher.version_line;
  }
  id.details["launcher"] = in.launcher.path;
  id.details["launcher_version"] = in.launcher.version_line;
  // The probe built with fprev-golden by its file name (a build or install path is no fact about
  // the MPI, and must not end up in shipped goldens); one given by the user as given.
  id.details["probe"] = in.settings.probe.empty()
                            ? std::filesystem::path(in.probe).filename().string()
                            : in.settings.probe;
  id.details["library_requested"] = in.settings.library;
  // The layout, not the nodes' names or the hostfile's path: those change with every allocation.
  if (in.layout) id.details["layout"] = in.layout->describe();
  if (!in.tuning.empty()) id.details["tuning"] = tuning_text(in.tuning);
  if (!in.environment.ignored.empty()) {
    std::string names;
    for (const auto& name : in.environment.ignored) names += (names.empty() ? "" : " ") + name;
    id.details["ignored_environment"] = names;
  }
  return id;
}

class MpiBackend final : public Backend {
 public:
  std::string_view name() const override { return "mpi"; }
  std::string_view summary() const override {
    return "MPI collectives of Open MPI and MPICH (reduce, allreduce, reduce_scatter_block) "
           "over P ranks on this machine or across nodes (hostfile, hosts), run by the real "
           "launcher; float64 and float32";
  }
  std::vector<ParamSpec> instance_params() const override { return instance_param_specs(); }
  // Suites validate without MPI installed: the case parameters do not depend on the library.
  std::vector<ParamSpec> case_params() const override { return case_param_specs(); }
  void validate_case(const Params& params) const override { parse_case(params); }
  // Every rank is a process that polls while it waits.
  std::size_t processes(const Params& params) const override {
    return static_cast<std::size_t>(parse_case(params).ranks);
  }

  std::unique_ptr<BackendInstance> open(const Params& params) const override {
    Installation in;
    in.settings = parse_settings(resolve_params(instance_param_specs(), params, "mpi backend"));
    in.launcher = find_launcher(in.settings.library, in.settings.timeout);
    in.tuning = normalize_tuning(in.launcher.family, in.settings.tuning);
    in.layout = node_layout(in.launcher.family, in.settings);
    in.probe = in.settings.probe.empty() ? default_probe(in.launcher.family) : in.settings.probe;
    if (!in.settings.probe.empty() && ::access(in.probe.c_str(), X_OK) != 0)
      throw ConfigError("probe", "mpi: probe '" + in.probe + "' is not an executable file");
    in.environment = launch_environment(current_environment(), in.tuning);
    in.cvars = order_cvars(in.launcher.family);
    for (const TuningVariable& v : in.tuning) in.cvars.push_back(cvar_name(in.launcher.family, v.name));

    // One rank reports the library and the settings it really runs with.
    std::vector<std::string> args;
    for (const std::string& cvar : in.cvars) args.insert(args.end(), {"--cvar", cvar});
    try {
      MpiJob job(in.job(1, args, family_name(in.launcher.family) + " (" + in.launcher.path +
                                     ") identification job of 1 rank"));
      JobHello hello = job.hello();
      job.quit();
      check_effective_settings(in.launcher.family, in.tuning, hello.cvars, hello.library_version);
      Identity identity = make_identity(in, &hello);
      return std::make_unique<MpiInstance>(std::move(in), std::move(identity), "");
    } catch (const JobFailure& e) {
      // Reported by every case (a failure with the launcher's output), not as a skip.
      Identity identity = make_identity(in, nullptr);
      identity.details["launch_failure"] = e.what();
      return std::make_unique<MpiInstance>(std::move(in), std::move(identity), e.what());
    }
  }
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<MpiBackend>(); }

}  // namespace mpi

void register_mpi_backend(BackendRegistry& registry) { registry.add(mpi::make_backend()); }

}  // namespace fprev
