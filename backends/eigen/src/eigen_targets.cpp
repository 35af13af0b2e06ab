#include "eigen_targets.hpp"

#include "../../blas/src/matrix_target.hpp"
#include "fprev/probe_inputs.hpp"

namespace fprev::eigen {
namespace {

// VectorX::sum() (plain summands) or VectorX::dot() (products), one input per call.
template <class T>
class VectorTarget final : public Target {
 public:
  using Sum = T (*)(const T*, std::size_t);
  using Dot = T (*)(const T*, const T*, std::size_t);

  VectorTarget(Sum sum, Dot dot, std::size_t n, Format dtype, std::string description)
      : sum_(sum), dot_(dot), vectors_(n) {
    info_.description = std::move(description);
    info_.n = n;
    info_.traits.input = info_.traits.accumulator = info_.traits.output = dtype;
    info_.traits.summand = dot ? SummandKind::product : SummandKind::plain;
    // A dot product may fuse its multiply-adds (FMA with -march=x86-64-v4): not the plain model.
    info_.traits.exact_arithmetic_model = dot == nullptr;
    info_.max_batch = 1;
    info_.alignment = AlignmentSupport::honours_offsets;  // ProbeVectors places the Maps' data
    info_.extra_masks = true;                              // and sets a probe's further masks
  }
  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    check(batch.probes.size(), outputs.size());
    for (std::size_t p = 0; p < outputs.size(); ++p) {
      vectors_.load(batch, p);
      outputs[p] = call();
    }
  }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    check(batch.rows, outputs.size());
    if (batch.a.size() < batch.rows * info_.n || (!batch.b.empty() && batch.b.size() < info_.n))
      throw TargetError(info_.description + ": value batch smaller than its rows x n");
    for (std::size_t row = 0; row < outputs.size(); ++row) {
      vectors_.load(batch, row);
      outputs[row] = call();
    }
  }

 private:
  double call() {
    return static_cast<double>(dot_ ? dot_(vectors_.a(), vectors_.b(), info_.n) : sum_(vectors_.a(), info_.n));
  }
  void check(std::size_t inputs, std::size_t outputs) const {
    if (inputs != outputs || inputs > info_.max_batch)
      throw TargetError(info_.description + ": evaluate() got " + std::to_string(inputs) + " inputs for " +
                        std::to_string(outputs) + " outputs (max batch 1)");
  }

  Sum sum_;
  Dot dot_;
  ProbeVectors<T> vectors_;
  TargetInfo info_;
};

// The matrix products as the blas backend's matrix target sees a BLAS: 'N' operands, beta 0.
template <class T>
std::unique_ptr<Target> make_matrix(const EigenCase& c, blas::GemvFn<T> gemv, blas::GemmFn<T> gemm,
                                    std::string description) {
  blas::BlasCase b;
  b.dtype = c.dtype;
  if (c.op == "gemv") {
    b.op = blas::Op::gemv;
    b.m = static_cast<std::int64_t>(c.m);
    b.n = static_cast<std::int64_t>(c.n);
    b.rows = c.m;
    b.reduction = c.n;
    b.columns = 1;
  } else {
    b.op = blas::Op::gemm;
    b.m = static_cast<std::int64_t>(c.m);
    b.n = static_cast<std::int64_t>(c.n);
    b.k = static_cast<std::int64_t>(c.k);
    b.rows = c.m;
    b.reduction = c.k;
    b.columns = c.n;
  }
  blas::Kernels<T> kernels;
  kernels.gemv = gemv;
  kernels.gemm = gemm;
  return std::make_unique<blas::MatrixTarget<T>>(nullptr, 1, b, kernels, std::move(description));
}

std::string describe(const EigenCase& c, const std::string& isa) {
  std::string shape = "n=" + std::to_string(c.n);
  if (c.op == "gemv") shape = "m=" + std::to_string(c.m) + " n=" + std::to_string(c.n);
  if (c.op == "gemm") shape = "m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k);
  return "eigen " + isa + " " + std::string(to_string(c.dtype)) + " " + c.op + ", " + shape;
}

}  // namespace

std::unique_ptr<Target> make_eigen_target(const EigenCase& c, const Kernels& kernels, const std::string& isa) {
  const std::string description = describe(c, isa);
  const bool f64 = c.dtype == Format::float64;
  if (c.op == "sum" || c.op == "dot") {
    if (f64)
      return std::make_unique<VectorTarget<double>>(kernels.sum_d, c.op == "dot" ? kernels.dot_d : nullptr, c.n,
                                                    c.dtype, description);
    return std::make_unique<VectorTarget<float>>(kernels.sum_f, c.op == "dot" ? kernels.dot_f : nullptr, c.n,
                                                 c.dtype, description);
  }
  if (f64) return make_matrix<double>(c, kernels.gemv_d, kernels.gemm_d, description);
  return make_matrix<float>(c, kernels.gemv_f, kernels.gemm_f, description);
}

}  // namespace fprev::eigen
