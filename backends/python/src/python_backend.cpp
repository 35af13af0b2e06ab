// The `python` backend: NumPy, PyTorch, JAX, CuPy or a user's own callable, revealed in a Python
// worker process (backends/python/worker/fprev_python_worker.py, installed in lib/fprev-golden/)
// that speaks the worker protocol (docs/worker-protocol.md), so a Python that crashes, hangs or
// exits costs one case a named target_fault. The gate keeps the settings, the case checks, the CPU
// checks and the platform key; the worker imports the library after the gate has put in its
// environment what the library reads while it loads (ATEN_CPU_CAPABILITY, OPENBLAS_CORETYPE, the
// thread counts), and reports what is in effect, which the gate then confirms.
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>

#include "fprev/blas/kernel_family.hpp"
#include "fprev/blas/platform.hpp"
#include "fprev/python/python_backend.hpp"
#include "fprev/python/python_case.hpp"
#include "fprev/worker.hpp"

namespace fprev {
namespace python {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string detail(const Identity& identity, const std::string& name) {
  const auto it = identity.details.find(name);
  return it == identity.details.end() ? "" : it->second;
}

// `name` as posix_spawnp finds it: a path as it is, a bare name on PATH.
bool findable(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/bin:/bin";
  while (true) {
    const std::size_t colon = rest.find(':');
    const std::string folder(rest.substr(0, colon));
    if (::access(((folder.empty() ? "." : folder) + "/" + name).c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) return false;
    rest.remove_prefix(colon + 1);
  }
}

// PYTHONPATH without the entries that mean the working directory: an empty or relative entry,
// which Python makes absolute against the directory the gate runs in when it starts (before the
// worker's own code could drop it, and in time for a sitecustomize.py there). nullopt: as it is.
std::optional<std::string> pythonpath_without_working_directory() {
  const char* path = std::getenv("PYTHONPATH");
  if (path == nullptr) return std::nullopt;
  std::string kept;
  bool dropped = false;
  std::string_view rest = path;
  while (true) {
    const std::size_t colon = rest.find(':');
    const std::string_view entry = rest.substr(0, colon);
    if (!entry.empty() && entry.front() == '/') kept += (kept.empty() ? "" : ":") + std::string(entry);
    else dropped = true;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  if (!dropped) return std::nullopt;
  return kept;
}

std::string worker_script() {
  if (const char* script = std::getenv("FPREV_PYTHON_WORKER"); script != nullptr && *script != '\0') return script;
  return worker_directory() + "/fprev_python_worker.py";
}

void require_features(const std::vector<std::string>& needs, const blas::CpuDescription& cpu, const std::string& what) {
  std::string missing;
  for (const std::string& feature : needs)
    if (!cpu.has(feature)) missing += (missing.empty() ? "" : ", ") + feature;
  if (!missing.empty())
    throw BackendUnavailable("this CPU cannot run " + what + ": it lacks " + missing, Unavailability::host_cannot_run);
}

// The kernel family key of the BLAS the library loaded, from OpenBLAS's corename; else what the
// file says (MKL, BLIS, a reference BLAS), else "unknown".
std::string blas_family_key(const Identity& identity) {
  const std::string core = detail(identity, "blas_family_core");
  if (!core.empty()) {
    if (const blas::KernelFamily* family = blas::family_of_openblas_core(core)) return std::string(family->key);
    return blas::family_key_from_name(core);
  }
  const std::string files = lower(detail(identity, "blas_files"));
  if (files.find("mkl") != std::string::npos) return "mkl";
  if (files.find("blis") != std::string::npos) return "blis";
  if (files.find("libblas") != std::string::npos) return "generic";
  return "unknown";
}

// What decides the order, measured (backends/python/README.md): torch's ATen capability (its own
// reductions), the BLAS kernel family (dot, gemv, gemm of both libraries) and the threads. NumPy's
// own sum depends on none of them, but an instance serves every op, and its dot follows the BLAS.
std::string platform_key(const Settings& s, const Identity& identity) {
  if (s.device == "cuda") {
    std::string device = lower(detail(identity, "cuda_device"));
    for (char& c : device)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    std::string key = "cuda-" + (device.empty() ? std::string("unknown") : device);
    // JAX's GPU reductions take another (and a stable) order under XLA's deterministic ops
    if (s.library == "jax" && detail(identity, "xla_deterministic_ops") == "true") key += "-xla_deterministic";
    return key;
  }
  std::string key;
  if (s.library == "torch") key = lower(detail(identity, "capability")) + "-";
  return key + blas_family_key(identity) + "-t" + std::to_string(s.threads);
}

// The worker's instance, with the identity the gate completes (platform key, confirmations) and the
// case parameters the gate declares.
class PythonInstance final : public BackendInstance {
 public:
  PythonInstance(std::unique_ptr<BackendInstance> inner, Identity identity)
      : inner_(std::move(inner)), identity_(std::move(identity)) {}

  Identity identity() const override { return identity_; }
  std::vector<ParamSpec> case_params() const override { return case_param_specs(); }
  void validate_case(const Params& params) const override {
    check_case(params);
    inner_->validate_case(params);  // what the library lacks (numpy has no bfloat16)
  }
  std::unique_ptr<Target> make_target(const Params& params) const override {
    check_case(params);
    return inner_->make_target(params);
  }
  // Every target is a worker of its own: a Python per probe stream, each with one thread of work
  // at threads: 1 (the interpreter's lock is per process).
  std::size_t concurrent_targets(const Params& /*params*/) const override { return 1; }

 private:
  std::unique_ptr<BackendInstance> inner_;
  Identity identity_;
};

class PythonBackend final : public Backend {
 public:
  std::string_view name() const override { return "python"; }
  std::string_view summary() const override {
    return "NumPy, PyTorch, JAX, CuPy or your own Python function in a Python worker: sum, dot, gemv, gemm "
           "in float16, bfloat16, float32 and float64";
  }
  std::vector<ParamSpec> instance_params() const override { return instance_param_specs(); }
  std::vector<ParamSpec> case_params() const override { return case_param_specs(); }
  void validate_case(const Params& params) const override { check_case(params); }
  // It starts its own worker (a Python, not fprev-golden-worker): never wrapped in a native one.
  bool runs_foreign_code() const override { return false; }

  std::unique_ptr<BackendInstance> open(const Params& params) const override {
    const Settings s = parse_settings(params);
    // Checked before any interpreter starts: a kernel this CPU cannot execute is never forced.
    const blas::CpuDescription cpu = blas::describe_cpu();
    if (!s.capability.empty())
      require_features(capability_needs(s.capability), cpu, "ATen's " + s.capability + " kernels (capability: " + s.capability + ")");
    const blas::KernelFamily* family = s.blas_kernel.empty() ? nullptr : blas::find_kernel_family(s.blas_kernel);
    if (family != nullptr) {
      if (family->openblas.empty())
        throw ConfigError("blas_kernel", "OpenBLAS has no kernel family " + s.blas_kernel);
      const auto missing = blas::missing_features(*family, cpu);
      std::vector<std::string> needs(missing.begin(), missing.end());
      require_features(needs, cpu, "OpenBLAS's " + std::string(family->name) + " kernels (blas_kernel)");
    }
    if (!s.python_named && !findable(s.python))
      throw BackendUnavailable("no python3 on PATH: install Python 3 with numpy (Debian: python3-numpy), or name "
                               "the interpreter with python: /path/to/python",
                               Unavailability::not_installed);
    const std::string script = worker_script();
    if (::access(script.c_str(), R_OK) != 0)
      throw BackendUnavailable("the Python worker " + script + " is missing: a broken installation of fprev-golden",
                               Unavailability::unusable);

    WorkerCommand command;
    command.argv = {s.python, "-B", script};
    const std::string threads = std::to_string(s.threads);
    command.environment = {{"OMP_NUM_THREADS", threads}, {"OPENBLAS_NUM_THREADS", threads},
                           {"MKL_NUM_THREADS", threads}, {"PYTHONDONTWRITEBYTECODE", "1"}};
    if (!s.capability.empty()) command.environment.emplace_back("ATEN_CPU_CAPABILITY", s.capability);
    if (family != nullptr) command.environment.emplace_back("OPENBLAS_CORETYPE", std::string(family->openblas));
    if (const auto pythonpath = pythonpath_without_working_directory())
      command.environment.emplace_back("PYTHONPATH", *pythonpath);

    Params settings = resolve_params(instance_param_specs(), params, "python backend");
    std::unique_ptr<BackendInstance> inner;
    try {
      inner = open_instance_in_worker(command, settings, "python backend, " + s.python);
    } catch (const BackendUnavailable& e) {
      // An interpreter named explicitly that cannot be started is a failure; python3 on PATH that
      // vanished in between is the same "not installed" as above.
      if (!s.python_named && e.reason() == Unavailability::unusable && !findable(s.python))
        throw BackendUnavailable(e.what(), Unavailability::not_installed);
      throw;
    }
    Identity identity = inner->identity();
    confirm(s, family, identity);
    identity.platform_key = platform_key(s, identity);
    identity.details["cpu_model"] = cpu.model;
    identity.details["isa"] = cpu.widest_vector_isa();
    return std::make_unique<PythonInstance>(std::move(inner), std::move(identity));
  }

  std::vector<std::pair<std::string, std::string>> host_facts() const override {
    std::string runnable;
    try {
      const blas::CpuDescription cpu = blas::describe_cpu();
      for (const std::string capability : {"default", "avx2", "avx512"}) {
        bool ok = true;
        for (const std::string& feature : capability_needs(capability)) ok = ok && cpu.has(feature);
        if (ok) runnable += (runnable.empty() ? "" : ", ") + capability;
      }
    } catch (const BackendUnavailable& unreadable) {
      runnable = unreadable.what();
    }
    return {{"torch_capabilities_runnable", runnable}};
  }

 private:
  // What the library reports it runs is what was asked: ATen silently runs a lower capability than
  // ATEN_CPU_CAPABILITY asks for, and a BLAS that is not OpenBLAS ignores OPENBLAS_CORETYPE.
  static void confirm(const Settings& s, const blas::KernelFamily* family, const Identity& identity) {
    if (!s.capability.empty()) {
      const std::string running = lower(detail(identity, "capability"));
      if (running != s.capability)
        throw BackendUnavailable("capability " + s.capability + " was asked for (ATEN_CPU_CAPABILITY), but PyTorch " +
                                     identity.version + " runs '" + running +
                                     "' (torch.backends.cpu.get_cpu_capability()); this build may lack those kernels",
                                 Unavailability::unsupported_setting);
    }
    if (family != nullptr) {
      const std::string core = detail(identity, "blas_family_core");
      const blas::KernelFamily* running = core.empty() ? nullptr : blas::family_of_openblas_core(core);
      if (running != family)
        throw BackendUnavailable("blas_kernel " + std::string(family->name) + " was asked for (OPENBLAS_CORETYPE), but " +
                                     s.library + " loaded " + detail(identity, "blas_files") +
                                     (core.empty() ? ", which does not report an OpenBLAS core"
                                                   : ", which runs " + core),
                                 Unavailability::unsupported_setting);
    }
  }
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<PythonBackend>(); }

}  // namespace python

void register_python_backend(BackendRegistry& registry) { registry.add(python::make_backend()); }

}  // namespace fprev
