#include "fprev/blas/blas_backend.hpp"

#include <cstdlib>

#include "fprev/blas/blas_case.hpp"
#include "fprev/blas/library.hpp"
#include "fprev/blas/platform.hpp"
#include "targets.hpp"

namespace fprev {
namespace blas {
namespace {

const CpuDescription& this_cpu() {
  static const CpuDescription cpu = describe_cpu();
  return cpu;
}

std::string library_override() {
  const char* value = std::getenv(kLibraryEnvironmentVariable);
  return value != nullptr ? value : "";
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

 private:
  BlasCase checked_case(const Params& params) const {
    const BlasCase c = parse_case(params);
    const std::string symbol = c.symbol();
    for (const auto& missing : library_->missing_symbols())
      if (missing == symbol)
        throw ConfigError("op", library_->name() + " at " + library_->path() + " lacks " + symbol +
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
  std::string_view name() const override { return "blas"; }
  std::string_view summary() const override {
    return "a CPU BLAS loaded at run time (OpenBLAS, BLIS, netlib, ATLAS or a path): dot, gemv, "
           "gemm in float32 and float64";
  }

  std::vector<ParamSpec> instance_params() const override {
    return {
        string_param("library",
                     "openblas, blis, netlib, atlas or an absolute path to a shared library; the "
                     "environment variable FPREV_BLAS_LIBRARY overrides it")
            .defaults_to("openblas"),
        integer_param("threads", 1, 1024, "threads the library uses, set through its own API")
            .defaults_to("1"),
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

    std::shared_ptr<const Library> library;
    if (override_spec.empty()) {
      library = Library::load(requested);
    } else {
      try {
        library = Library::load(override_spec);
      } catch (const ConfigError& error) {
        throw ConfigError("library", std::string(kLibraryEnvironmentVariable) + ": " + error.what());
      } catch (const BackendUnavailable& error) {
        throw BackendUnavailable(std::string(kLibraryEnvironmentVariable) + ": " + error.what());
      }
    }

    std::string effective_threads;
    if (library->can_set_threads()) {
      const std::optional<int> effective = library->use_threads(threads);
      if (effective && *effective != threads)
        throw BackendUnavailable(library->name() + " at " + library->path() + " runs " +
                                 std::to_string(*effective) + " threads when asked for " +
                                 std::to_string(threads));
      effective_threads = effective ? std::to_string(*effective) : "not reported";
    } else if (threads > 1) {
      throw BackendUnavailable(
          library->name() + " at " + library->path() +
          " has no API to set its thread count (openblas_set_num_threads, "
          "bli_thread_set_num_threads), so threads: " + std::to_string(threads) +
          " cannot be honoured; use threads: 1 with this library");
    } else {
      effective_threads = "1 (no thread API; assumed single-threaded)";
    }

    Identity identity;
    identity.library = library->name();
    identity.version = library->version();
    identity.configuration = library->configuration();
    identity.platform_key = platform_key(this_cpu(), threads);
    identity.details = library->details();
    identity.details["threads"] = effective_threads;
    identity.details["cpu_model"] = this_cpu().model;
    identity.details["isa"] = this_cpu().isa;
    identity.details["library_requested"] = requested;
    if (!override_spec.empty())
      identity.details["library_override"] =
          std::string(kLibraryEnvironmentVariable) + "=" + override_spec;
    return std::make_unique<BlasInstance>(std::move(library), threads, std::move(identity));
  }
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<BlasBackend>(); }

}  // namespace blas

void register_blas_backend(BackendRegistry& registry) { registry.add(blas::make_backend()); }

}  // namespace fprev
