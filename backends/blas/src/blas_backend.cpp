#include "fprev/blas/blas_backend.hpp"

#include <cstdlib>
#include <map>
#include <optional>

#include "fprev/blas/blas_case.hpp"
#include "fprev/blas/kernel_family.hpp"
#include "fprev/blas/library.hpp"
#include "fprev/blas/platform.hpp"
#include "targets.hpp"

namespace fprev {
namespace blas {
namespace {

std::string library_override() {
  const char* value = std::getenv(kLibraryEnvironmentVariable);
  return value != nullptr ? value : "";
}

std::shared_ptr<const Library> load_requested(const std::string& requested,
                                              const std::string& override_spec) {
  if (override_spec.empty()) return Library::load(requested);
  try {
    return Library::load(override_spec);
  } catch (const ConfigError& error) {
    throw ConfigError("library", std::string(kLibraryEnvironmentVariable) + ": " + error.what());
  } catch (const BackendUnavailable& error) {
    throw BackendUnavailable(std::string(kLibraryEnvironmentVariable) + ": " + error.what(),
                             error.reason());
  }
}

// The family a library runs by itself, in platform-key form: the table's key where the table knows
// the library's name for it, else the library's own name ("piledriver", "zen3").
std::string own_family_key(const Library& library) {
  if (!library.has_kernel_families()) return "generic";
  const KernelFamily* known = library.vendor() == Vendor::openblas
                                  ? family_of_openblas_core(library.running_family())
                                  : family_of_blis_config(library.running_family());
  return known != nullptr ? std::string(known->key)
                          : family_key_from_name(library.running_family());
}

// A family the CPU cannot execute is a skip naming what it lacks, never forced: OpenBLAS does not
// check, and would die on an illegal instruction.
void require_cpu_features(const KernelFamily& family, const CpuDescription& cpu, bool for_blis) {
  const auto missing = missing_features(family, cpu, for_blis);
  if (missing.empty()) return;
  std::string list;
  for (const auto& feature : missing) list += (list.empty() ? "" : ", ") + feature;
  throw BackendUnavailable("this CPU cannot run the " + std::string(family.name) + " kernels" +
                               (for_blis ? " of BLIS" : "") + ": it lacks " + list,
                           Unavailability::host_cannot_run);
}

// What an instance runs: the library (a forced copy where `kernel` is set) and how its family was
// established, for the platform key and the identity.
struct KernelChoice {
  std::shared_ptr<const Library> library;
  std::string family_key;
  std::map<std::string, std::string> details;
};

KernelChoice choose_kernel(std::shared_ptr<const Library> library, const std::string& kernel,
                           const CpuDescription& cpu) {
  KernelChoice choice;
  if (kernel.empty()) {
    choice.family_key = own_family_key(*library);
    choice.details["kernel_requested"] = "none (the library's own choice)";
    choice.details["kernel_family"] =
        library->has_kernel_families() ? library->running_family() : "generic (portable code)";
    choice.library = std::move(library);
    return choice;
  }
  const KernelFamily& family = *find_kernel_family(kernel);  // a choice setting: validated
  choice.family_key = std::string(family.key);
  choice.details["kernel_requested"] = kernel;
  if (!library->has_kernel_families()) {
    // One code path on every CPU: compared with the goldens of the family the instance names, which
    // is what makes a swap to the reference BLAS a test on any runner.
    choice.details["kernel_family"] = "none to select: " + library->name() +
                                      " runs portable code, the same order on every CPU";
    choice.library = std::move(library);
    return choice;
  }
  const bool blis = library->vendor() == Vendor::blis;
  if (blis) require_cpu_features(family, cpu, true);
  choice.library = Library::load_forced(*library, family);
  choice.details["kernel_family"] = choice.library->running_family();
  choice.details["kernel_confirmed_by"] =
      blis ? "bli_arch_query_id() after bli_init" : "openblas_get_corename()";
  return choice;
}

class BlasInstance final : public BackendInstance {
 public:
  BlasInstance(std::shared_ptr<const Library> library, int threads, Identity identity)
      : library_(std::move(library)), threads_(threads), identity_(std::move(identity)) {}

  Identity identity() const override { return identity_; }
  std::vector<ParamSpec> case_params() const override { return case_param_specs(); }

  void validate_case(const Params& params) const override { checked_case(params); }

  std::unique_ptr<Target> make_target(const Params& params) const override {
    const BlasCase c = checked_case(params);
    std::string description = library_->name() + " " + library_->version() + " " + c.describe() +
                              ", " + std::to_string(threads_) +
                              (threads_ == 1 ? " thread" : " threads");
    return blas::make_target(library_, threads_, c, std::move(description));
  }

  // The thread count is process-global (openblas_set_num_threads, bli_thread_set_num_threads) and
  // set before every call; at one thread every instance sets the same value, so nothing changes
  // under a concurrent call, and the kernels run on the calling thread. With more threads the
  // library's own thread pool would be shared by concurrent callers: one target at a time.
  std::size_t concurrent_targets(const Params& /*params*/) const override {
    return threads_ == 1 ? kUnboundedTargets : 1;
  }

 private:
  BlasCase checked_case(const Params& params) const {
    const BlasCase c = parse_case(params);
    const std::string symbol = c.symbol();
    // The library's shortcoming, not the suite's: a library (an upgrade, FPREV_BLAS_LIBRARY) that
    // dropped a routine fails the case like any other change of the library (exit 1), where a
    // configuration error would say "fix the suite" (exit 2).
    for (const auto& missing : library_->missing_symbols())
      if (missing == symbol)
        throw TargetError(library_->name() + " at " + library_->path() + " lacks " + symbol +
                                    ": op " + (c.op == Op::dot ? "dot" : c.op == Op::gemv ? "gemv" : "gemm") +
                                    " with dtype " + std::string(to_string(c.dtype)) +
                                    " is unavailable for this library");
    return c;
  }

  std::shared_ptr<const Library> library_;
  int threads_;
  Identity identity_;
};

class BlasBackend final : public Backend {
 public:
  explicit BlasBackend(std::optional<CpuDescription> cpu) : cpu_(std::move(cpu)) {}

  std::string_view name() const override { return "blas"; }
  std::string_view summary() const override {
    return "a CPU BLAS loaded at run time (OpenBLAS, BLIS, netlib, ATLAS or a path): dot, gemv, "
           "gemm in float32 and float64";
  }

  std::vector<ParamSpec> instance_params() const override {
    return {
        path_param("library",
                   "openblas, blis, netlib, atlas or a path to a shared library (in a suite, relative to the "
                   "suite file); the environment variable FPREV_BLAS_LIBRARY overrides it")
            .defaults_to("openblas"),
        integer_param("threads", 1, 1024, "threads the library uses, set through its own API")
            .defaults_to("1"),
        choice_param("kernel", kernel_family_names(),
                     "the kernel family to force (OPENBLAS_CORETYPE, BLIS_ARCH_TYPE), after "
                     "checking that this CPU can run it; absent: the library's own choice"),
    };
  }

  // Every instance accepts the same case parameters; the ops a library lacks are refused by the
  // instance's validate_case.
  std::vector<ParamSpec> case_params() const override { return case_param_specs(); }
  void validate_case(const Params& params) const override { parse_case(params); }

  std::unique_ptr<BackendInstance> open(const Params& params) const override {
    const Params resolved = resolve_params(instance_params(), params, "blas backend");
    const std::string requested = param_str(resolved, "library");
    const std::string override_spec = library_override();
    const int threads = static_cast<int>(param_int(resolved, "threads"));
    const auto kernel_setting = resolved.find("kernel");
    const std::string kernel = kernel_setting != resolved.end() ? kernel_setting->second : "";

    // The CPU is asked before anything is loaded: a family it cannot execute is never forced.
    const CpuDescription cpu = this_cpu();
    if (!kernel.empty()) require_cpu_features(*find_kernel_family(kernel), cpu, false);
    KernelChoice choice = choose_kernel(load_requested(requested, override_spec), kernel, cpu);
    const Library& library = *choice.library;

    std::string effective_threads;
    if (library.can_set_threads()) {
      const std::optional<int> effective = library.use_threads(threads);
      if (effective && *effective != threads)
        throw BackendUnavailable(library.name() + " at " + library.path() + " runs " +
                                     std::to_string(*effective) + " threads when asked for " +
                                     std::to_string(threads),
                                 Unavailability::unsupported_setting);
      effective_threads = effective ? std::to_string(*effective) : "not reported";
    } else if (threads > 1) {
      throw BackendUnavailable(
          library.name() + " at " + library.path() +
              " has no API to set its thread count (openblas_set_num_threads, "
              "bli_thread_set_num_threads), so threads: " +
              std::to_string(threads) + " cannot be honoured; use threads: 1 with this library",
          Unavailability::unsupported_setting);
    } else {
      effective_threads = "1 (no thread API; assumed single-threaded)";
    }

    Identity identity;
    identity.library = library.name();
    identity.version = library.version();
    identity.configuration = library.configuration();
    identity.platform_key = platform_key(choice.family_key, threads);
    identity.details = library.details();
    identity.details.merge(choice.details);
    identity.details["threads"] = effective_threads;
    identity.details["cpu_model"] = cpu.model;
    identity.details["isa"] = cpu.widest_vector_isa();
    identity.details["library_requested"] = requested;
    if (!override_spec.empty())
      identity.details["library_override"] =
          std::string(kLibraryEnvironmentVariable) + "=" + override_spec;
    return std::make_unique<BlasInstance>(std::move(choice.library), threads, std::move(identity));
  }

  std::vector<std::pair<std::string, std::string>> host_facts() const override {
    CpuDescription cpu;
    try {
      cpu = this_cpu();
    } catch (const BackendUnavailable& unreadable) {  // a bad FPREV_BLAS_CPUINFO
      return {{"cpu", unreadable.what()}};
    }
    return {{"cpu", cpu.model + " (" + cpu.widest_vector_isa() + ")"},
            {"kernel_families_runnable", runnable_families(cpu)},
            {"kernel_families_not_runnable", unrunnable_families(cpu)}};
  }

 private:
  // This machine, or the injected CPU limited to this machine's features.
  CpuDescription this_cpu() const {
    return cpu_ ? limit_features(*cpu_, describe_cpu()) : describe_cpu();
  }

  std::optional<CpuDescription> cpu_;  // injected (tests); this machine when absent
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<BlasBackend>(std::nullopt); }

std::unique_ptr<Backend> make_backend(CpuDescription cpu) {
  return std::make_unique<BlasBackend>(std::move(cpu));
}

}  // namespace blas

void register_blas_backend(BackendRegistry& registry) { registry.add(blas::make_backend()); }

}  // namespace fprev
