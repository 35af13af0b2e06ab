// Case parameters of the cuBLAS backend: which op/dtype/output/compute/shape combinations cuBLAS
// and cuBLASLt accept, and the numeric traits the engine must assume for them. Pure C++: no GPU
// needed, unit-tested everywhere.
//
// The accepted combinations follow the cuBLAS documentation (cublasGemmEx: "datatypes and compute
// types"; cublasLtMatmul: supported type combinations and the FP8 requirements).
#include <algorithm>
#include <limits>
#include <sstream>
#include <string>

#include "fprev/backends/cublas.hpp"

namespace fprev::cublas {
namespace {

struct OpName {
  Op op;
  std::string_view name;
};
constexpr OpName kOps[] = {{Op::dot, "dot"},
                           {Op::gemv, "gemv"},
                           {Op::gemm, "gemm"},
                           {Op::gemm_ex, "gemm_ex"},
                           {Op::lt_matmul, "lt_matmul"}};

struct ComputeName {
  Compute compute;
  std::string_view name;
};
constexpr ComputeName kComputes[] = {
    {Compute::c16F, "16F"},
    {Compute::c16F_pedantic, "16F_PEDANTIC"},
    {Compute::c32F, "32F"},
    {Compute::c32F_pedantic, "32F_PEDANTIC"},
    {Compute::c32F_fast_16F, "32F_FAST_16F"},
    {Compute::c32F_fast_16BF, "32F_FAST_16BF"},
    {Compute::c32F_fast_tf32, "32F_FAST_TF32"},
    {Compute::c64F, "64F"},
    {Compute::c64F_pedantic, "64F_PEDANTIC"},
};

// Largest matrix (elements) a case may allocate: 2^28 elements is 1 GiB of float32.
constexpr std::int64_t kMaxMatrixElements = std::int64_t{1} << 28;
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 24;

std::vector<std::string> names(const std::vector<Compute>& computes) {
  std::vector<std::string> out;
  for (Compute c : computes) out.emplace_back(to_string(c));
  return out;
}

std::vector<std::string> names(const std::vector<Format>& formats) {
  std::vector<std::string> out;
  for (Format f : formats) out.emplace_back(to_string(f));
  return out;
}

bool is_fp8(Format f) { return f == Format::fp8_e4m3 || f == Format::fp8_e5m2; }
bool is_gemm_family(Op op) { return op == Op::gemm || op == Op::gemm_ex || op == Op::lt_matmul; }

bool has(const Params& p, const char* name) { return p.find(name) != p.end(); }

// The compute types an op accepts for a dtype; the first one is the default.
std::vector<Compute> allowed_computes(Op op, Format dtype) {
  const bool lt = op == Op::lt_matmul;
  switch (dtype) {
    case Format::float32:
      if (lt)
        return {Compute::c32F, Compute::c32F_fast_16F, Compute::c32F_fast_16BF,
                Compute::c32F_fast_tf32};
      return {Compute::c32F, Compute::c32F_pedantic, Compute::c32F_fast_16F,
              Compute::c32F_fast_16BF, Compute::c32F_fast_tf32};
    case Format::float64:
      if (lt) return {Compute::c64F};
      return {Compute::c64F, Compute::c64F_pedantic};
    case Format::float16:
      if (lt) return {Compute::c32F, Compute::c16F};
      return {Compute::c32F, Compute::c32F_pedantic, Compute::c16F, Compute::c16F_pedantic};
    case Format::bfloat16:
      if (lt) return {Compute::c32F};
      return {Compute::c32F, Compute::c32F_pedantic};
    case Format::tf32:
      return {Compute::c32F_fast_tf32};
    case Format::fp8_e4m3:
    case Format::fp8_e5m2:
      return {Compute::c32F};
  }
  return {};
}

// The output formats for a dtype and compute type; the first one is the default.
std::vector<Format> allowed_outputs(Op op, Format dtype, std::optional<Compute> compute) {
  if (!is_gemm_family(op) || op == Op::gemm) return {dtype};
  switch (dtype) {
    case Format::float32:
    case Format::tf32:
      return {Format::float32};
    case Format::float64:
      return {Format::float64};
    case Format::float16:
      if (compute == Compute::c16F || compute == Compute::c16F_pedantic) return {Format::float16};
      return {Format::float16, Format::float32};
    case Format::bfloat16:
      return {Format::bfloat16, Format::float32};
    case Format::fp8_e4m3:
    case Format::fp8_e5m2:
      return {Format::float32, Format::float16, Format::bfloat16};
  }
  return {};
}

std::vector<Format> allowed_dtypes(Op op) {
  switch (op) {
    case Op::dot:
    case Op::gemv:
    case Op::gemm:
      return {Format::float32, Format::float64};
    case Op::gemm_ex:
      return {Format::float32, Format::float64, Format::float16, Format::bfloat16, Format::tf32};
    case Op::lt_matmul:
      return {Format::float32, Format::float64, Format::float16, Format::bfloat16, Format::tf32,
              Format::fp8_e4m3, Format::fp8_e5m2};
  }
  return {};
}

[[noreturn]] void reject(const std::string& parameter, const std::string& message) {
  throw ConfigError(parameter, "cublas: " + message);
}

void forbid(const Params& p, const char* name, const std::string& why) {
  if (has(p, name)) reject(name, std::string("'") + name + "' does not apply to " + why);
}

std::int64_t require_dimension(const Params& p, const char* name, Op op) {
  if (!has(p, name))
    reject(name, std::string("op ") + std::string(to_string(op)) + " needs '" + name + "'");
  return param_int(p, name);
}

void check_elements(std::int64_t rows, std::int64_t cols, const char* what) {
  if (rows > kMaxMatrixElements / cols) {
    std::ostringstream os;
    os << what << " would hold " << rows << " x " << cols << " elements; at most "
       << kMaxMatrixElements << " are allowed";
    reject("", os.str());
  }
}

}  // namespace

std::string_view to_string(Op op) {
  for (const auto& entry : kOps)
    if (entry.op == op) return entry.name;
  return "?";
}

std::string_view to_string(Compute compute) {
  for (const auto& entry : kComputes)
    if (entry.compute == compute) return entry.name;
  return "?";
}

std::size_t CaseConfig::reduction() const {
  switch (op) {
    case Op::dot:
      return static_cast<std::size_t>(n);
    case Op::gemv:
      return static_cast<std::size_t>(trans_a ? m : n);
    default:
      return static_cast<std::size_t>(k);
  }
}

std::size_t CaseConfig::rows() const {
  switch (op) {
    case Op::dot:
      return 1;
    case Op::gemv:
      return static_cast<std::size_t>(trans_a ? n : m);
    default:
      return static_cast<std::size_t>(probes == ProbeLayout::diagonal ? std::min(m, n) : m);
  }
}

std::size_t CaseConfig::columns() const {
  return is_gemm_family(op) ? static_cast<std::size_t>(n) : 1;
}

std::string CaseConfig::describe() const {
  std::ostringstream os;
  os << to_string(op) << ' ' << to_string(dtype);
  if (a_format != b_format) os << " (A " << to_string(a_format) << ", B " << to_string(b_format) << ')';
  os << " -> " << to_string(output);
  if (compute) os << " compute " << to_string(*compute);
  switch (op) {
    case Op::dot:
      os << " n=" << n;
      break;
    case Op::gemv:
      os << " m=" << m << " n=" << n << " trans=" << (trans_a ? 'T' : 'N');
      break;
    default:
      os << " m=" << m << " n=" << n << " k=" << k << " trans=" << (trans_a ? 'T' : 'N')
         << (trans_b ? 'T' : 'N');
  }
  if (beta != 0) os << " beta=" << beta;
  if (fp8_fast_accum) os << " fast_accum";
  if (probes == ProbeLayout::diagonal) os << " probes=diagonal";
  return os.str();
}

std::vector<ParamSpec> case_param_specs() {
  std::vector<std::string> ops;
  for (const auto& entry : kOps) ops.emplace_back(entry.name);
  std::vector<std::string> computes;
  for (const auto& entry : kComputes) computes.emplace_back(entry.name);
  const std::vector<std::string> dtypes = {"float32", "float64", "float16", "bfloat16",
                                           "tf32",    "fp8_e4m3", "fp8_e5m2"};
  const std::vector<std::string> outputs = {"float32", "float64", "float16", "bfloat16"};
  const std::vector<std::string> trans = {"N", "T"};
  return {
      choice_param("op", ops,
                   "dot (cublas<S|D>dot), gemv (cublas<S|D>gemv), gemm (cublas<S|D>gemm), gemm_ex "
                   "(cublasGemmEx), lt_matmul (cublasLtMatmul)")
          .require(),
      choice_param("dtype", dtypes,
                   "input format; tf32 = float32 storage with compute 32F_FAST_TF32; fp8 only with "
                   "lt_matmul (fp8_e5m2 runs as e5m2 x e4m3, the combination cuBLASLt offers)")
          .defaults_to("float32"),
      choice_param("output", outputs,
                   "format of C (gemm_ex, lt_matmul); default: the dtype's (float32 for tf32 and fp8)"),
      choice_param("compute", computes,
                   "cublasComputeType_t without CUBLAS_COMPUTE_ (gemm_ex, lt_matmul); default per dtype"),
      integer_param("m", 1, kMaxDimension, "gemv: rows of A; gemm: rows of op(A) and C"),
      integer_param("n", 1, kMaxDimension,
                    "dot: length; gemv: columns of A; gemm: columns of op(B) and C"),
      integer_param("k", 1, kMaxDimension, "gemm: the reduction length"),
      choice_param("trans", trans,
                   "gemv: op(A); gemm family: op(A). Default N (T for fp8, which cuBLASLt requires)"),
      choice_param("transb", trans, "gemm family: op(B). Default N"),
      integer_param("beta", 0, 1, "gemv/gemm: 1 adds C (y) as the last leaf; default 0"),
      boolean_param("fp8_fast_accum",
                    "lt_matmul with fp8: CUBLASLT_MATMUL_DESC_FAST_ACCUM (no periodic promotion to "
                    "float32)"),
      choice_param("probes", {"rows", "diagonal"},
                   "gemm family: rows (one probe per row of A, shared B; default) or diagonal (probe p "
                   "in row p of A and column p of B; default for float16 and fp8_e4m3, whose range "
                   "needs it)"),
  };
}

CaseConfig parse_case(const Params& p, const InstanceSettings& settings) {
  (void)settings;  // every combination below is valid under every math mode
  CaseConfig c;
  const std::string op_name = param_str(p, "op");
  for (const auto& entry : kOps)
    if (entry.name == op_name) c.op = entry.op;
  const std::string op_text = "op " + op_name;

  const std::string dtype_name = has(p, "dtype") ? param_str(p, "dtype") : std::string("float32");
  c.dtype = *parse_format(dtype_name);
  const auto dtypes = allowed_dtypes(c.op);
  if (std::find(dtypes.begin(), dtypes.end(), c.dtype) == dtypes.end()) {
    std::string hint;
    if (is_fp8(c.dtype)) hint = " (fp8 runs through cuBLASLt: use op lt_matmul)";
    if (c.dtype == Format::tf32)
      hint = " (use op gemm_ex or lt_matmul, or dtype float32 with math_mode tf32)";
    if (c.dtype == Format::float16 || c.dtype == Format::bfloat16)
      hint = " (use op gemm_ex or lt_matmul)";
    reject("dtype", "dtype " + dtype_name + " is not available for " + op_text +
                        "; allowed values: " + join_values(names(dtypes)) + hint);
  }
  c.a_format = c.dtype;
  c.b_format = c.dtype;
  if (c.dtype == Format::tf32) c.a_format = c.b_format = Format::float32;  // stored as float
  if (c.dtype == Format::fp8_e5m2) c.b_format = Format::fp8_e4m3;  // no e5m2 x e5m2 kernels

  // Shapes: each op names its dimensions as the routine does.
  switch (c.op) {
    case Op::dot:
      c.n = require_dimension(p, "n", c.op);
      forbid(p, "m", op_text + " (it has only 'n')");
      forbid(p, "k", op_text + " (it has only 'n')");
      check_elements(1, c.n, "the vectors");
      break;
    case Op::gemv:
      c.m = require_dimension(p, "m", c.op);
      c.n = require_dimension(p, "n", c.op);
      forbid(p, "k", op_text + " (A is m x n)");
      check_elements(c.m, c.n, "A");
      break;
    default:
      c.m = require_dimension(p, "m", c.op);
      c.n = require_dimension(p, "n", c.op);
      c.k = require_dimension(p, "k", c.op);
      check_elements(c.m, c.k, "A");
      check_elements(c.k, c.n, "B");
      check_elements(c.m, c.n, "C");
  }

  // Transposes.
  if (c.op == Op::dot) {
    forbid(p, "trans", op_text);
  } else if (has(p, "trans")) {
    c.trans_a = param_str(p, "trans") == "T";
  } else {
    c.trans_a = is_fp8(c.dtype);
  }
  if (!is_gemm_family(c.op)) {
    forbid(p, "transb", op_text + " (only the gemm family has op(B))");
  } else if (has(p, "transb")) {
    c.trans_b = param_str(p, "transb") == "T";
  }

  // beta.
  if (has(p, "beta")) {
    if (c.op == Op::dot) forbid(p, "beta", op_text);
    c.beta = param_int(p, "beta") != 0 ? 1 : 0;
  }

  // Compute type.
  const bool takes_compute = c.op == Op::gemm_ex || c.op == Op::lt_matmul;
  if (!takes_compute) {
    forbid(p, "compute", op_text + " (it computes in its dtype; the handle's math_mode applies)");
  } else {
    const auto computes = allowed_computes(c.op, c.dtype);
    c.compute = computes.front();
    if (has(p, "compute")) {
      const std::string name = param_str(p, "compute");
      bool found = false;
      for (Compute candidate : computes) {
        if (to_string(candidate) == name) {
          c.compute = candidate;
          found = true;
        }
      }
      if (!found)
        reject("compute", "compute " + name + " is not available for " + op_text + " with dtype " +
                              dtype_name + "; allowed values: " + join_values(names(computes)));
    }
  }

  // Output format.
  const auto outputs = allowed_outputs(c.op, c.dtype, c.compute);
  c.output = outputs.front();
  if (has(p, "output")) {
    const std::string name = param_str(p, "output");
    const Format wanted = *parse_format(name);
    if (std::find(outputs.begin(), outputs.end(), wanted) == outputs.end())
      reject("output", "output " + name + " is not available for " + op_text + " with dtype " +
                           dtype_name + (c.compute ? " and compute " + std::string(to_string(*c.compute)) : "") +
                           "; allowed values: " + join_values(names(outputs)));
    c.output = wanted;
  }

  // With beta = 1 the last leaf lives in C, so a probe's mask M must fit the output format; the
  // masks for float32 accumulation reach far beyond float16's 65504.
  if (c.beta != 0 && c.output == Format::float16)
    reject("beta", "beta 1 needs an output format that can hold the probe masks "
                   "(float32, float64 or bfloat16), not float16");

  // fp8: cuBLASLt's requirements (TN layout, 16-byte aligned leading dimensions).
  if (is_fp8(c.dtype)) {
    if (!c.trans_a || c.trans_b)
      reject(c.trans_b ? "transb" : "trans",
             "fp8 matmuls need A transposed and B not (trans: T, transb: N), as cuBLASLt requires");
    if (c.m % 16 != 0 || c.k % 16 != 0)
      reject(c.m % 16 != 0 ? "m" : "k",
             "fp8 matmuls need m and k to be multiples of 16 (16-byte aligned leading dimensions)");
  }
  // Probe layout: float16 and fp8_e4m3 need the mask split over both factors (diagonal); with
  // one shared factor their exponent range masks at most ~2^10 (float16) or no (e4m3) summands.
  if (!is_gemm_family(c.op)) {
    forbid(p, "probes", op_text + " (only the gemm family has a probe layout)");
  } else if (has(p, "probes")) {
    c.probes = param_str(p, "probes") == "diagonal" ? ProbeLayout::diagonal : ProbeLayout::rows;
  } else if (c.dtype == Format::float16 || c.dtype == Format::fp8_e4m3) {
    c.probes = ProbeLayout::diagonal;
  }
  if (c.probes == ProbeLayout::diagonal && c.a_format != c.b_format)
    reject("probes", "probes diagonal splits the masks over A and B, which needs one format for "
                     "both; dtype " + dtype_name + " runs as " + std::string(to_string(c.a_format)) +
                     " x " + std::string(to_string(c.b_format)) + ": use probes rows");

  if (has(p, "fp8_fast_accum")) {
    if (!is_fp8(c.dtype)) forbid(p, "fp8_fast_accum", "dtype " + dtype_name + " (fp8 only)");
    c.fp8_fast_accum = param_str(p, "fp8_fast_accum") == "true";
  }
  return c;
}

NumericTraits numeric_traits(const CaseConfig& c, const InstanceSettings& settings) {
  NumericTraits t;
  t.output = c.output;
  // dot: x and y both per probe; diagonal: row p of A and column p of B both per probe.
  t.summand = c.op == Op::dot || c.probes == ProbeLayout::diagonal ? SummandKind::product
                                                                   : SummandKind::product_shared_rhs;

  // The input format is the narrowest format the library may convert the inputs to: values
  // exact there are exact in every wider format, so the masks survive whatever it does.
  t.input = c.dtype;
  if (c.dtype == Format::float32) {
    const bool handle_math = c.op != Op::lt_matmul;  // cuBLASLt ignores the handle's math mode
    const Compute compute = c.compute.value_or(Compute::c32F);
    if (compute == Compute::c32F_fast_16F) {
      t.input = Format::float16;
    } else if (compute == Compute::c32F_fast_16BF) {
      t.input = Format::bfloat16;
    } else if (compute == Compute::c32F_fast_tf32) {
      t.input = Format::tf32;
    } else if (compute == Compute::c32F && handle_math) {
      if (settings.math_mode == MathMode::tf32) t.input = Format::tf32;
      if (settings.math_mode == MathMode::tensor_op) t.input = Format::float16;
    }
  }

  const bool compute16 = c.compute == Compute::c16F || c.compute == Compute::c16F_pedantic;
  t.accumulator = compute16 ? Format::float16
                  : c.dtype == Format::float64 ? Format::float64
                                               : Format::float32;

  // Tensor Cores add several products and the accumulator in one fused step; the widths below
  // are upper bounds (Volta 5, Ampere 9, Hopper 17 terms for float16), not expectations: the
  // width is what the reveal is for. dot and gemv run on CUDA cores.
  const bool gemm_family = is_gemm_family(c.op);
  const bool narrowed = t.input != c.dtype && c.dtype == Format::float32;
  const bool emulated = (settings.math_mode == MathMode::bf16x9 && c.dtype == Format::float32 &&
                         c.op != Op::lt_matmul) ||
                        (settings.math_mode == MathMode::fp64_fixedpoint && c.dtype == Format::float64 &&
                         c.op != Op::lt_matmul);
  const bool low_precision = c.dtype != Format::float32 && c.dtype != Format::float64;
  // FP64 Tensor Cores (DMMA, sm80+) may serve double GEMMs.
  const bool dmma = c.dtype == Format::float64;
  if (gemm_family && (low_precision || narrowed || emulated || dmma)) {
    t.max_fused_width = is_fp8(c.dtype) ? 65 : 33;
    t.fused_extra_bits = 3;
  } else {
    t.max_fused_width = 2;
    t.fused_extra_bits = 0;
  }
  return t;
}

std::optional<std::string> device_cannot_run(const CaseConfig& c, const DeviceDescription& d) {
  const int cc = d.cc_major * 10 + d.cc_minor;
  const std::string sm = "sm" + std::to_string(d.cc_major) + std::to_string(d.cc_minor);
  if (is_fp8(c.dtype) && cc < 89)
    return "fp8 matmuls need compute capability 8.9 (Ada) or newer; " + d.name + " is " + sm;
  if (c.dtype == Format::bfloat16 && cc < 80)
    return "bfloat16 matmuls need compute capability 8.0 (Ampere) or newer; " + d.name + " is " + sm;
  return std::nullopt;
}

}  // namespace fprev::cublas
