// The `eigen` backend: Eigen 3.4 (header-only, Debian's libeigen3-dev) reductions and products of
// Maps, compiled for the baseline ISA and, in a shared library of its own, for x86-64-v4. Which
// build runs is the instance setting `isa`; it is the platform key, because Eigen's order depends
// on the flags the user's code is compiled with (README).
#include <dlfcn.h>

#include <memory>

#include "eigen_kernels.hpp"
#include "eigen_targets.hpp"

#ifndef FPREV_HAVE_EIGEN
// Built without Eigen: the backend is registered and unavailable (open() says why).
namespace fprev::eigen {
const Kernels& baseline_kernels() { throw BackendUnavailable("eigen: built without Eigen 3.4"); }
std::unique_ptr<Target> make_eigen_target(const EigenCase&, const Kernels&, const std::string&) {
  throw BackendUnavailable("eigen: built without Eigen 3.4");
}
}  // namespace fprev::eigen
#endif
#include "fprev/backend_module.hpp"

namespace fprev {
namespace {

constexpr const char* kV4Library = "fprev_eigen_x86-64-v4.so";

// The baseline ISA's name: what the compiler targets without -march.
std::string baseline_name() {
#if defined(__x86_64__)
  return "x86-64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "baseline";
#endif
}

bool host_runs_v4() {
#if defined(__x86_64__)
  // x86-64-v4 is x86-64-v3 plus AVX-512 F, BW, CD, DQ and VL. Spelled out feature by feature:
  // clang 14 and GCC before 12 do not know the level names in __builtin_cpu_supports.
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") &&
         __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

// The x86-64-v4 build, loaded once (never unloaded) on a host that can run it.
const eigen::Kernels& v4_kernels() {
  if (!host_runs_v4())
    throw BackendUnavailable("eigen: isa x86-64-v4 needs a CPU with AVX-512 (F, BW, CD, DQ, VL) and the "
                             "rest of x86-64-v4; this host has not",
                             Unavailability::host_cannot_run);
  static const eigen::Kernels* kernels = [] {
    std::string tried;
    for (const auto& directory : backend_module_search_path()) {
      const auto file = directory / kV4Library;
      tried += (tried.empty() ? "" : ", ") + directory.string();
      if (!std::filesystem::exists(file)) continue;
      void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr)
        throw BackendUnavailable("eigen: cannot load " + file.string() + ": " + dlerror(), Unavailability::unusable);
      using Entry = const eigen::Kernels* (*)();
      auto entry = reinterpret_cast<Entry>(dlsym(handle, FPREV_EIGEN_KERNELS_ENTRY));
      if (entry == nullptr)
        throw BackendUnavailable("eigen: " + file.string() + " has no " FPREV_EIGEN_KERNELS_ENTRY,
                                 Unavailability::unusable);
      return entry();
    }
    throw BackendUnavailable(std::string("eigen: ") + kV4Library + " is not installed (searched " + tried +
                             "); it is built where the compiler accepts -march=x86-64-v4");
  }();
  return *kernels;
}

std::vector<ParamSpec> eigen_case_params() {
  return {
      choice_param("op", {"sum", "dot", "gemv", "gemm"},
                   "VectorX::sum(), VectorX::dot(), y = A x, C = A B (Maps, column-major)")
          .require(),
      choice_param("dtype", {"float32", "float64"}, "the scalar type").defaults_to("float32"),
      integer_param("n", 1, std::int64_t{1} << 24, "summands (sum, dot), columns of A (gemv), columns of C (gemm)")
          .require(),
      integer_param("m", 1, std::int64_t{1} << 16, "rows of A and y (gemv), of A and C (gemm)"),
      integer_param("k", 1, std::int64_t{1} << 24, "columns of A, rows of B (gemm)"),
  };
}

void validate_eigen_case(const Params& p) {
  const std::string op = param_str(p, "op");
  const bool matrix = op == "gemv" || op == "gemm";
  if (matrix != (p.count("m") != 0))
    throw ConfigError("m", matrix ? "eigen " + op + " needs m (rows of A)" : "m does not apply to eigen " + op);
  if ((op == "gemm") != (p.count("k") != 0))
    throw ConfigError("k", op == "gemm" ? "eigen gemm needs k (the reduction)" : "k does not apply to eigen " + op);
  const std::int64_t lines = matrix ? param_int(p, "m") * (op == "gemm" ? param_int(p, "n") : 1) : 1;
  if (lines > (std::int64_t{1} << 20))
    throw ConfigError(op == "gemm" ? "n" : "m", "eigen " + op + ": more than 2^20 outputs");
}

class EigenInstance final : public BackendInstance {
 public:
  EigenInstance(std::string isa, const eigen::Kernels& kernels) : isa_(std::move(isa)), kernels_(kernels) {}

  Identity identity() const override {
    Identity id;
    id.library = "Eigen";
    id.version = kernels_.version;
    id.configuration = isa_ + " (" + kernels_.simd + ")";
    id.platform_key = isa_;
    id.details["simd"] = kernels_.simd;
    return id;
  }
  std::vector<ParamSpec> case_params() const override { return eigen_case_params(); }
  void validate_case(const Params& p) const override { validate_eigen_case(p); }
  std::unique_ptr<Target> make_target(const Params& p) const override {
    validate_eigen_case(p);
    eigen::EigenCase c;
    c.op = param_str(p, "op");
    c.dtype = param_str(p, "dtype") == "float64" ? Format::float64 : Format::float32;
    c.n = static_cast<std::size_t>(param_int(p, "n"));
    if (p.count("m") != 0) c.m = static_cast<std::size_t>(param_int(p, "m"));
    if (p.count("k") != 0) c.k = static_cast<std::size_t>(param_int(p, "k"));
    return eigen::make_eigen_target(c, kernels_, isa_);
  }
  // Eigen keeps no state between calls (no threads: EIGEN_DONT_PARALLELIZE is the default without
  // OpenMP), so instances may run side by side.
  std::size_t concurrent_targets(const Params&) const override { return kUnboundedTargets; }

 private:
  std::string isa_;
  const eigen::Kernels& kernels_;
};

class EigenBackend final : public Backend {
 public:
  std::string_view name() const override { return "eigen"; }
  std::string_view summary() const override {
    return "Eigen 3.4 sum, dot, gemv, gemm of Maps at any offset, baseline ISA or x86-64-v4";
  }
  std::vector<ParamSpec> instance_params() const override {
    return {choice_param("isa", {"baseline", "x86-64-v4"},
                         "the ISA the Eigen code is compiled for (the platform key): the compiler's baseline "
                         "(x86-64: SSE2) or -march=x86-64-v4 (AVX-512; skipped where the host cannot run it)")
                .defaults_to("baseline")};
  }
  std::vector<ParamSpec> case_params() const override { return eigen_case_params(); }
  void validate_case(const Params& p) const override { validate_eigen_case(p); }
  std::unique_ptr<BackendInstance> open(const Params& settings) const override {
    const Params p = resolve_params(instance_params(), settings, "eigen backend");
#ifndef FPREV_HAVE_EIGEN
    throw BackendUnavailable("eigen: this fprev-golden was built without Eigen 3.4; install libeigen3-dev "
                             "(scripts/install-deps) and rebuild");
#endif
    if (param_str(p, "isa") == "x86-64-v4") return std::make_unique<EigenInstance>("x86-64-v4", v4_kernels());
    return std::make_unique<EigenInstance>(baseline_name(), eigen::baseline_kernels());
  }
  std::vector<std::pair<std::string, std::string>> host_facts() const override {
    return {{"eigen x86-64-v4", host_runs_v4() ? "this host can run it" : "this host cannot run it"}};
  }
};

}  // namespace

void register_eigen_backend(BackendRegistry& registry) { registry.add(std::make_unique<EigenBackend>()); }

}  // namespace fprev
