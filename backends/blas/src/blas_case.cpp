#include "fprev/blas/blas_case.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "fprev/cost_estimate.hpp"

namespace fprev::blas {
namespace {

// BLAS dimensions are Fortran INTEGERs (32 bit in the LP64 interface), and the netlib reference
// indexes A(I,J) as (J-1)*LDA+I in that type too: every matrix must stay below 2^31 elements.
constexpr std::int64_t kMaxElements = std::numeric_limits<std::int32_t>::max();
// All buffers of one target together (A, B, C, the staged inputs): beyond this a case is a typo,
// not a test.
constexpr std::int64_t kMaxBytes = std::int64_t{8} << 30;

const std::string& text(const Params& params, const std::string& name) {
  static const std::string empty;
  auto it = params.find(name);
  return it == params.end() ? empty : it->second;
}

bool has(const Params& params, const std::string& name) { return params.count(name) != 0; }

void require(const Params& params, const std::string& name, const std::string& op,
             const std::string& meaning) {
  if (!has(params, name))
    throw ConfigError(name, "blas op " + op + " needs '" + name + "' (" + meaning + ")");
}

void reject(const Params& params, const std::string& name, const std::string& op) {
  if (has(params, name))
    throw ConfigError(name, "parameter '" + name + "' does not apply to blas op " + op);
}

void check_elements(std::int64_t rows, std::int64_t cols, const char* what) {
  if (rows > kMaxElements / cols)
    throw ConfigError("", std::string("blas case too large: ") + what + " would have " +
                              std::to_string(rows) + " x " + std::to_string(cols) +
                              " elements, more than 32-bit BLAS indexing allows (2^31 - 1)");
}

}  // namespace

std::vector<ParamSpec> case_param_specs() {
  const std::int64_t max_dim = kMaxElements;
  return {
      choice_param("op", {"dot", "gemv", "gemm"},
                   "dot (sdot/ddot), gemv (sgemv/dgemv) or gemm (sgemm/dgemm)")
          .require(),
      choice_param("dtype", {"float32", "float64"}, "float32 (s routines) or float64 (d routines)")
          .defaults_to("float32"),
      integer_param("n", 1, max_dim, "dot: vector length; gemv: columns of A; gemm: columns of C")
          .require(),
      integer_param("m", 1, max_dim, "gemv: rows of A; gemm: rows of C (and of op(A))"),
      integer_param("k", 1, max_dim, "gemm: the reduction length (columns of op(A), rows of op(B))"),
      choice_param("trans", {"N", "T", "NN", "NT", "TN", "TT"},
                   "gemv: N (y = A x, sums over n; default) or T (y = A^T x, sums over m); "
                   "gemm: NN (default), NT, TN or TT, the ops of A and B"),
      integer_param("beta", 0, 1,
                    "gemv, gemm: 0 (default) or 1, which adds the old y / C as the last summand"),
  };
}

BlasCase parse_case(const Params& resolved) {
  BlasCase c;
  const std::string op = text(resolved, "op");
  const std::string dtype = text(resolved, "dtype");
  if (op == "dot")
    c.op = Op::dot;
  else if (op == "gemv")
    c.op = Op::gemv;
  else if (op == "gemm")
    c.op = Op::gemm;
  else
    throw ConfigError("op", "blas: unknown op '" + op + "'; allowed values: dot, gemv, gemm");
  if (dtype.empty() || dtype == "float32")
    c.dtype = Format::float32;
  else if (dtype == "float64")
    c.dtype = Format::float64;
  else
    throw ConfigError("dtype", "blas: unknown dtype '" + dtype +
                                   "'; allowed values: float32, float64");
  require(resolved, "n", op, "see the blas backend README");
  c.n = param_int(resolved, "n");
  const std::string trans = text(resolved, "trans");

  switch (c.op) {
    case Op::dot:
      for (const char* name : {"m", "k", "trans", "beta"}) reject(resolved, name, op);
      c.rows = 1;
      c.reduction = static_cast<std::size_t>(c.n);
      c.columns = 1;
      break;
    case Op::gemv:
      require(resolved, "m", op, "rows of A");
      reject(resolved, "k", op);
      c.m = param_int(resolved, "m");
      if (!trans.empty() && trans != "N" && trans != "T")
        throw ConfigError("trans", "blas op gemv takes trans N or T, got '" + trans + "'");
      c.trans_a = trans.empty() ? 'N' : trans[0];
      c.rows = static_cast<std::size_t>(c.trans_a == 'N' ? c.m : c.n);
      c.reduction = static_cast<std::size_t>(c.trans_a == 'N' ? c.n : c.m);
      c.columns = 1;
      check_elements(c.m, c.n, "A");
      break;
    case Op::gemm:
      require(resolved, "m", op, "rows of C");
      require(resolved, "k", op, "the reduction length");
      c.m = param_int(resolved, "m");
      c.k = param_int(resolved, "k");
      if (!trans.empty() && trans.size() != 2)
        throw ConfigError("trans", "blas op gemm takes trans NN, NT, TN or TT, got '" + trans + "'");
      c.trans_a = trans.empty() ? 'N' : trans[0];
      c.trans_b = trans.empty() ? 'N' : trans[1];
      c.rows = static_cast<std::size_t>(c.m);
      c.reduction = static_cast<std::size_t>(c.k);
      c.columns = static_cast<std::size_t>(c.n);
      check_elements(c.m, c.k, "A");
      check_elements(c.k, c.n, "B");
      check_elements(c.m, c.n, "C");
      break;
  }
  if (has(resolved, "beta")) c.beta = static_cast<int>(param_int(resolved, "beta"));
  if (c.beta != 0 && c.beta != 1)
    throw ConfigError("beta", "blas: 'beta' must be 0 or 1, got " + std::to_string(c.beta));

  const std::int64_t element = c.dtype == Format::float32 ? 4 : 8;
  const auto rows = static_cast<std::int64_t>(c.rows);
  const auto leaves = static_cast<std::int64_t>(c.leaves());
  const auto cols = static_cast<std::int64_t>(c.columns);
  const auto reduction = static_cast<std::int64_t>(c.reduction);
  // A, B (or x), C (or y), and the staged inputs (one per row or column).
  const std::int64_t elements =
      rows * reduction + reduction * cols + rows * cols + std::max(rows, cols) * leaves;
  // First the time (the more telling refusal), then the memory. Every call multiplies the whole
  // operands: rows x reduction x columns multiply-adds.
  const double operations =
      static_cast<double>(rows) * static_cast<double>(reduction) * static_cast<double>(cols);
  const std::string absurd = absurd_size_message(c.leaves(), std::max(c.rows, c.columns), operations);
  if (!absurd.empty()) {
    const char* size_key = c.op == Op::gemm ? "k" : (c.op == Op::gemv && c.trans_a == 'T' ? "m" : "n");
    throw ConfigError(size_key, "blas case " + absurd);
  }
  if (elements > kMaxBytes / element)
    throw ConfigError("", "blas case too large: its buffers would take " +
                              std::to_string(elements * element >> 20) + " MiB (limit 8 GiB)");
  return c;
}

std::string BlasCase::symbol() const {
  const char* op_name = op == Op::dot ? "dot_" : op == Op::gemv ? "gemv_" : "gemm_";
  return std::string(dtype == Format::float32 ? "s" : "d") + op_name;
}

std::string BlasCase::describe() const {
  std::string name = symbol();
  name.pop_back();  // no trailing underscore in prose
  switch (op) {
    case Op::dot:
      return name + " n=" + std::to_string(n);
    case Op::gemv:
      return name + " " + trans_a + " m=" + std::to_string(m) + " n=" + std::to_string(n) +
             " beta=" + std::to_string(beta);
    case Op::gemm:
      return name + " " + trans_a + trans_b + " m=" + std::to_string(m) + " n=" +
             std::to_string(n) + " k=" + std::to_string(k) + " beta=" + std::to_string(beta);
  }
  return name;
}

}  // namespace fprev::blas
