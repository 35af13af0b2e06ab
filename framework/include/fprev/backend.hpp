// Backends behind one narrow interface, registered by name. The framework never names a concrete
// backend; the CLI, the suite runner and the test driver reach them through the registry.
//
// Parameters are plain strings (as they appear on the command line and in YAML); each backend
// declares the parameters it accepts so that suites and the CLI can be validated, with the allowed
// values, before anything runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fprev/target.hpp"

namespace fprev {

using Params = std::map<std::string, std::string>;

// path: a file or folder, or a bare name the backend looks up its own way (a library's name, a
// program on PATH). A relative path (a value with a '/' that does not start with one, or "." or
// "..") is relative to where it is written: a suite's to the suite file's folder (the suite loader
// makes it absolute), a command line's to its working directory. Anywhere else (an environment
// variable, a module's own code) it is a ConfigError: nothing is looked up in the directory the
// gate happens to run in. A backend's own default is exempt (it says what it means by it).
enum class ParamType : std::uint8_t { integer, string, choice, boolean, path };

// One parameter a backend accepts. Declare it with the builders below, the one way every backend
// does it:
//   choice_param("op", {"dot", "gemv"}, "the routine").require()
//   integer_param("threads", 1, 1024, "threads the library uses").defaults_to("1")
struct ParamSpec {
  std::string name;
  ParamType type = ParamType::string;
  std::vector<std::string> choices;  // for ParamType::choice
  bool required = false;
  std::string default_value;         // used when absent and not required ("" = no default)
  std::int64_t min_value = 0;        // for integers
  std::int64_t max_value = INT64_MAX;
  std::string help;

  ParamSpec require() && {
    required = true;
    return std::move(*this);
  }
  ParamSpec defaults_to(std::string value) && {
    default_value = std::move(value);
    return std::move(*this);
  }
};

inline ParamSpec choice_param(std::string name, std::vector<std::string> choices, std::string help) {
  return {std::move(name), ParamType::choice, std::move(choices), false, "", 0, INT64_MAX, std::move(help)};
}
inline ParamSpec integer_param(std::string name, std::int64_t min_value, std::int64_t max_value,
                               std::string help) {
  return {std::move(name), ParamType::integer, {}, false, "", min_value, max_value, std::move(help)};
}
inline ParamSpec string_param(std::string name, std::string help) {
  return {std::move(name), ParamType::string, {}, false, "", 0, INT64_MAX, std::move(help)};
}
inline ParamSpec path_param(std::string name, std::string help) {
  return {std::move(name), ParamType::path, {}, false, "", 0, INT64_MAX, std::move(help)};
}
inline ParamSpec boolean_param(std::string name, std::string help) {
  return {std::move(name), ParamType::boolean, {}, false, "", 0, INT64_MAX, std::move(help)};
}

// Raised for a bad parameter; the CLI and suite loader add the file/line/column.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string parameter, const std::string& message)
      : std::runtime_error(message), parameter_(std::move(parameter)) {}
  const std::string& parameter() const { return parameter_; }  // "" when not about one parameter

 private:
  std::string parameter_;
};

// Validates `params` against `specs` (unknown names, types, choices, ranges, required ones) and
// returns them with defaults filled in. Throws ConfigError naming the parameter and allowed values.
Params resolve_params(const std::vector<ParamSpec>& specs, const Params& params,
                      std::string_view context);
std::int64_t param_int(const Params& params, const std::string& name);
// Whether the value of a path parameter is a relative path ("./x.so", "venv/bin/python", ".").
bool names_relative_path(std::string_view value);
// "a, b, c": the form every "allowed values: ..." message uses.
std::string join_values(const std::vector<std::string>& values);
const std::string& param_str(const Params& params, const std::string& name);

// What a backend instance is and where it runs. The platform key is the part of the environment
// under which a golden stays valid; everything else is metadata.
struct Identity {
  std::string library;          // "OpenBLAS", "reference", "cuBLAS"
  std::string version;          // "0.3.21"
  std::string configuration;    // build configuration, core name, device name ...
  std::string platform_key;     // file-name safe, e.g. "haswell-t1"; "any" when portable
  std::map<std::string, std::string> details;  // further metadata (driver version, path, ...)
};

// Why a backend instance cannot run here. Every kind is reported with its reason; the runner
// decides what each means for the gate (docs/reviewing.md: how strict the gate is):
//   not_installed        an optional library, toolkit or device is not on this machine (a skip,
//                        unless the user named it explicitly: FPREV_<BACKEND>_<SETTING>, --library)
//   host_cannot_run      this machine cannot execute what the settings ask for, e.g. a kernel
//                        family needing AVX-512 on an AVX2-only CPU (a skip that names the feature)
//   unsupported_setting  the library is usable but cannot honour a setting of this instance, e.g.
//                        threads: 2 with a BLAS that has no thread API (a skip)
//   unusable             what the settings name is there, or was given as a path, and does not
//                        work: no such file, not a BLAS, a 64-bit-integer build, a forced kernel
//                        family the library does not run (an error, never a skip)
enum class Unavailability : std::uint8_t {
  not_installed,
  host_cannot_run,
  unsupported_setting,
  unusable,
};
std::string_view to_string(Unavailability reason);

class BackendUnavailable : public std::runtime_error {
 public:
  explicit BackendUnavailable(const std::string& message,
                              Unavailability reason = Unavailability::not_installed)
      : std::runtime_error(message), reason_(reason) {}
  Unavailability reason() const { return reason_; }

 private:
  Unavailability reason_;
};

class Backend;

// One configured instance of a backend (a loaded library with its thread count, a simulated
// architecture, ...). Creates targets for cases.
//
// What a backend must write is identity() and make_target(); the rest has defaults. Case
// parameters are declared once: on the Backend (Backend::case_params), and an instance constructed
// with its backend, BackendInstance(backend), takes them from there. An instance whose parameters
// depend on its settings (the library loaded lacks an op) overrides case_params() instead.
class BackendInstance {
 public:
  BackendInstance() = default;
  // An instance that takes its case parameters from `backend` (which outlives it: backends are
  // registered for the life of the program).
  explicit BackendInstance(const Backend& backend) : backend_(&backend) {}
  virtual ~BackendInstance() = default;
  virtual Identity identity() const = 0;
  // Case parameters (op, dtype, n, m, k, order, ...); `resolve_params` is applied by the caller.
  // Default: the backend's (constructed with BackendInstance(backend)); throws std::logic_error
  // naming what to declare when neither the backend nor the instance declares them.
  virtual std::vector<ParamSpec> case_params() const;
  // Checks a resolved case beyond per-parameter rules (impossible shapes, an op the loaded library
  // lacks). Throws ConfigError. Default: nothing to check (Backend::validate_case has run).
  virtual void validate_case(const Params& /*case_params*/) const {}
  virtual std::unique_ptr<Target> make_target(const Params& case_params) const = 0;
  // How many targets of a case may evaluate at the same time, each on its own thread with its own
  // buffers (probe streams, RevealOptions::streams), at the case's own settings. 1, the default:
  // only one, because the library keeps process-global state that concurrent calls would race on
  // or change under each other (a thread count set per call, a device context, MPI launchers).
  // kUnboundedTargets: as many as there are cores.
  virtual std::size_t concurrent_targets(const Params& /*case_params*/) const { return 1; }
  static constexpr std::size_t kUnboundedTargets = static_cast<std::size_t>(-1);

 private:
  const Backend* backend_ = nullptr;  // where case_params() comes from by default
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;  // "reference", "blas", "tcsim", "cublas"
  virtual std::string_view summary() const = 0;
  virtual std::vector<ParamSpec> instance_params() const = 0;  // library, threads, arch, ...
  // Case parameters (op, dtype, n, m, k, order, ...) that every instance of this backend accepts.
  // Suites are validated against them before anything runs, and without opening an instance where
  // the backend overrides this: opening may be impossible on the machine doing the validation
  // (library missing, no GPU). An instance may narrow them further (BackendInstance::case_params,
  // validate_case). The default opens an instance with default settings and asks it; a backend
  // that can be unavailable must override this (and most backends simply declare them here).
  virtual std::vector<ParamSpec> case_params() const;
  // Static checks of a resolved case beyond the per-parameter rules (a parameter that does not
  // apply to the op, an impossible shape), done before anything runs. Throws ConfigError.
  virtual void validate_case(const Params& /*resolved_case_params*/) const {}
  // The processes a case keeps busy while it runs (an MPI job: its ranks), for CTest's PROCESSORS
  // property, so that `ctest -j N` does not run more of them side by side than there are cores.
  virtual std::size_t processes(const Params& /*resolved_case_params*/) const { return 1; }
  // Opens an instance. Throws ConfigError for bad settings and BackendUnavailable (with the reason)
  // when it cannot run here (no GPU, library not found).
  virtual std::unique_ptr<BackendInstance> open(const Params& instance_params) const = 0;
  // Facts about this machine that decide what the backend can run here, for `fprev-golden env`
  // (e.g. blas: the kernel families this CPU can execute). Never opens an instance; in the order
  // they should be shown.
  virtual std::vector<std::pair<std::string, std::string>> host_facts() const { return {}; }
  // True when the backend's instances call code we did not write (a library it loads, a module):
  // the program's registry then runs them in supervised worker processes (fprev/worker.hpp), so
  // that a crash, a hang, an exit() or a print stays out of the gate. Our own portable kernels
  // (reference, tcsim) say false and stay in the gate's process.
  virtual bool runs_foreign_code() const { return true; }
};

class BackendRegistry {
 public:
  void add(std::unique_ptr<Backend> backend);
  // Makes this registry also offer the backends of modules (fprev/backend_module.hpp): find() of
  // a name not registered here loads the module of that name from the search path, all() loads
  // every module there, names() lists them. The program's registry (builtin_backends()) does; the
  // registry a module fills does not. A module that is found but cannot be loaded stays visible as
  // a backend whose open() throws BackendUnavailable and whose case_params() throws, both with
  // the loader's message (file and dlerror()).
  void offer_backend_modules() { offer_modules_ = true; }
  // Makes find() and all() give, for every backend that runs foreign code (runs_foreign_code())
  // and for every module, a proxy whose instances and targets run in supervised worker processes
  // (fprev/worker.hpp); modules are then loaded by workers only, never by this process. The
  // program's registry (builtin_backends()) does; the registry its workers serve
  // (builtin_backends_in_process()) does not. FPREV_WORKERS=off turns it off (debugging only:
  // nothing then protects the gate from the library).
  void run_foreign_code_in_workers();
  const Backend* find(std::string_view name) const;  // nullptr when neither registered nor a module
  std::vector<const Backend*> all() const;
  std::string names() const;  // "blas, cublas, reference, tcsim"
  // "unknown backend 'mine'; allowed values: ..." and, where this registry offers modules, where
  // a module of that name would have to be: its file name and the directories searched, so a
  // downstream project's own backend that is not on FPREV_BACKEND_PATH is found by reading.
  std::string unknown_backend_message(std::string_view name) const;

 private:
  const Backend* proxy(std::string_view name, const Backend* backend) const;

  std::map<std::string, std::unique_ptr<Backend>, std::less<>> backends_;
  bool offer_modules_ = false;
  struct Proxies;  // the worker proxies made so far, by name
  std::shared_ptr<Proxies> proxies_;  // set by run_foreign_code_in_workers()
};

// Applies FPREV_<BACKEND>_<PARAM> environment variables (upper case, e.g. FPREV_BLAS_LIBRARY) to
// an instance's settings, so a CI job can point every instance of a backend at another library
// without editing suites.
Params apply_environment_overrides(const Backend& backend, Params instance_params);

// The program's registry: every backend compiled into it, and backend modules on demand. Defined by
// the program (fprev-golden's backends library), not by the framework library.
const BackendRegistry& builtin_backends();
// The same backends without worker proxies: what a worker (fprev-golden-worker) serves.
const BackendRegistry& builtin_backends_in_process();

}  // namespace fprev
