#include "fprev/python/python_case.hpp"

#include <algorithm>

#include "fprev/blas/kernel_family.hpp"
#include "fprev/cost_estimate.hpp"

namespace fprev::python {
namespace {

bool has(const Params& params, const std::string& name) { return params.count(name) != 0; }

void require(const Params& params, const std::string& name, const std::string& op, const std::string& meaning) {
  if (!has(params, name)) throw ConfigError(name, "python op " + op + " needs '" + name + "' (" + meaning + ")");
}

void reject(const Params& params, const std::string& name, const std::string& op) {
  if (has(params, name)) throw ConfigError(name, "parameter '" + name + "' does not apply to python op " + op);
}

std::string text(const Params& params, const std::string& name) {
  const auto it = params.find(name);
  return it == params.end() ? "" : it->second;
}

}  // namespace

std::vector<ParamSpec> case_param_specs() {
  // 2^31 - 1: what the BLAS the libraries call indexes; far beyond a revealable case anyway.
  const std::int64_t max_dim = 2147483647;
  return {
      choice_param("op", {"sum", "dot", "gemv", "gemm"},
                   "sum (x.sum()), dot (x @ y), gemv (A @ x; trans T: x @ A) or gemm (A @ B)")
          .require(),
      choice_param("dtype", {"float16", "bfloat16", "float32", "float64"},
                   "the arrays' dtype (bfloat16: torch and jax only)")
          .defaults_to("float32"),
      integer_param("n", 1, max_dim, "sum, dot: the length; gemv: columns of A; gemm: columns of B and C").require(),
      integer_param("m", 1, max_dim, "gemv: rows of A; gemm: rows of A and C"),
      integer_param("k", 1, max_dim, "gemm: the reduction length (columns of op(A), rows of op(B))"),
      choice_param("trans", {"N", "T", "NN", "NT", "TN", "TT"},
                   "gemv: N (A @ x, sums over n; default) or T (x @ A, sums over m); gemm: NN (A @ B; "
                   "default), NT (A @ B.T), TN (A.T @ B), TT"),
  };
}

void check_case(const Params& resolved) {
  const std::string op = text(resolved, "op");
  const std::string trans = text(resolved, "trans");
  require(resolved, "n", op, "see backends/python/README.md");
  const auto n = static_cast<std::size_t>(param_int(resolved, "n"));
  std::size_t leaves = n, lines = 1;
  double operations = static_cast<double>(n);
  if (op == "sum" || op == "dot") {
    for (const char* name : {"m", "k", "trans"}) reject(resolved, name, op);
  } else if (op == "gemv") {
    require(resolved, "m", op, "rows of A");
    reject(resolved, "k", op);
    if (!trans.empty() && trans != "N" && trans != "T")
      throw ConfigError("trans", "python op gemv takes trans N or T, got '" + trans + "'");
    const auto m = static_cast<std::size_t>(param_int(resolved, "m"));
    leaves = trans == "T" ? m : n;
    lines = trans == "T" ? n : m;
    operations = static_cast<double>(m) * static_cast<double>(n);
  } else if (op == "gemm") {
    require(resolved, "m", op, "rows of C");
    require(resolved, "k", op, "the reduction length");
    if (!trans.empty() && trans.size() != 2)
      throw ConfigError("trans", "python op gemm takes trans NN, NT, TN or TT, got '" + trans + "'");
    const auto m = static_cast<std::size_t>(param_int(resolved, "m"));
    const auto k = static_cast<std::size_t>(param_int(resolved, "k"));
    leaves = k;
    lines = std::max(m, n);
    operations = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  } else {
    throw ConfigError("op", "python: unknown op '" + op + "'; allowed values: sum, dot, gemv, gemm");
  }
  const std::string absurd = absurd_size_message(leaves, lines, operations);
  if (!absurd.empty())
    throw ConfigError(op == "gemm" ? "k" : (op == "gemv" && trans == "T" ? "m" : "n"), "python case " + absurd);
}

std::vector<ParamSpec> instance_param_specs() {
  return {
      path_param("python",
                 "the interpreter: a name on PATH or a path (a virtualenv's bin/python; in a suite, relative to the "
                 "suite file); default python3 on PATH")
          .defaults_to("python3"),
      choice_param("library", {"numpy", "torch", "jax", "cupy"}, "the library whose arrays and ops are revealed")
          .defaults_to("numpy"),
      string_param("function",
                   "package.module:callable: your own function with the op's signature (f(x), f(x, y), f(A, x), "
                   "f(A, B)) called with the library's arrays, instead of the library's op"),
      path_param("module_dir",
                 "the folder function:'s module is imported from, ahead of PYTHONPATH and the interpreter's own "
                 "paths (never the working directory); in a suite relative to the suite file, by default the "
                 "suite's own folder; on the command line none unless given")
          .defaults_to("."),
      choice_param("capability", {"default", "avx2", "avx512"},
                   "torch: the ATen CPU kernels (ATEN_CPU_CAPABILITY), after checking this CPU can run them; "
                   "absent: ATen's own choice"),
      choice_param("blas_kernel", blas::kernel_family_names(),
                   "the kernel family of the OpenBLAS the library loaded (OPENBLAS_CORETYPE), after checking this "
                   "CPU can run it; absent: OpenBLAS's own choice"),
      integer_param("threads", 1, 1024, "torch.set_num_threads and the BLAS threads (OMP/OPENBLAS_NUM_THREADS)")
          .defaults_to("1"),
      choice_param("device", {"cpu", "cuda"}, "where the arrays live (cuda: torch, jax or cupy with a GPU)")
          .defaults_to("cpu"),
  };
}

Settings parse_settings(const Params& given) {
  const Params resolved = resolve_params(instance_param_specs(), given, "python backend");
  Settings s;
  s.python = param_str(resolved, "python");
  s.python_named = given.count("python") != 0;
  s.library = param_str(resolved, "library");
  s.function = text(resolved, "function");
  s.capability = text(resolved, "capability");
  s.blas_kernel = text(resolved, "blas_kernel");
  s.threads = static_cast<int>(param_int(resolved, "threads"));
  s.device = param_str(resolved, "device");
  if (s.python.empty()) throw ConfigError("python", "python: the interpreter is empty");
  if (!s.function.empty() && (s.function.find(':') == std::string::npos || s.function.front() == ':' ||
                              s.function.back() == ':'))
    throw ConfigError("function", "function '" + s.function + "' is not package.module:callable (e.g. mysums:pairwise)");
  if (!s.capability.empty() && s.library != "torch")
    throw ConfigError("capability", "capability applies to library torch only (ATEN_CPU_CAPABILITY), not " + s.library);
  if (s.device == "cuda" && s.library == "numpy")
    throw ConfigError("device", "library numpy runs on the CPU only; use torch, jax or cupy with device: cuda");
  if (s.device != "cuda" && s.library == "cupy")
    throw ConfigError("device", "library cupy runs on a GPU only: set device: cuda (allowed values: cpu, cuda)");
  if (s.device == "cuda" && (!s.capability.empty() || !s.blas_kernel.empty()))
    throw ConfigError(s.capability.empty() ? "blas_kernel" : "capability",
                      "capability and blas_kernel choose CPU kernels; they do not apply to device: cuda");
  return s;
}

std::vector<std::string> capability_needs(const std::string& capability) {
  if (capability == "avx2") return {"avx2", "fma"};
  if (capability == "avx512") return {"avx512f", "avx512bw", "avx512vl", "avx512dq", "fma"};
  return {};
}

}  // namespace fprev::python
