// gemv, gemm, gemm_ex and lt_matmul targets. One library call evaluates a whole batch of probes:
//   rows layout: probe p in row p of op(A), B (or x) holding the shared right-hand factors in every
//     column. Every column of C must come out identical for a row (they add the same products); a
//     column that differs means the order depends on the output position and is reported, never
//     averaged away.
//   diagonal layout: probe p in row p of op(A) and column p of op(B), read back from C(p,p); the
//     other elements of C mix unrelated probes and are ignored.
#include <cstring>
#include <sstream>
#include <vector>

#include "storage.hpp"
#include "targets.hpp"
#include "value_checks.hpp"

namespace fprev::cublas::detail {
namespace {

// Where element (probe row p, leaf kk) of op(A), element kk of column j of op(B) and element
// (p, j) of C live in the column-major buffers.
struct MatrixLayout {
  std::size_t rows = 0, reduction = 0, columns = 0;
  std::size_t a_row_stride = 0, a_k_stride = 0, a_elements = 0;
  std::size_t b_k_stride = 0, b_column_stride = 0, b_elements = 0;
  std::size_t c_row_stride = 0, c_column_stride = 0, c_elements = 0;
};

MatrixLayout matrix_layout(const CaseConfig& c) {
  MatrixLayout l;
  l.rows = c.rows();
  l.reduction = c.reduction();
  l.columns = c.columns();
  const auto m = static_cast<std::size_t>(c.m);
  if (c.op == Op::gemv) {
    // A is m x n with lda = m. N: op(A)(p, kk) = A[p + kk m]; T: op(A)(p, kk) = A[kk + p m].
    l.a_row_stride = c.trans_a ? m : 1;
    l.a_k_stride = c.trans_a ? 1 : m;
    l.a_elements = m * static_cast<std::size_t>(c.n);
    l.b_k_stride = 1;  // x
    l.b_column_stride = l.reduction;
    l.b_elements = l.reduction;
    l.c_row_stride = 1;  // y
    l.c_column_stride = l.rows;
    l.c_elements = l.rows;
    return l;
  }
  const auto k = static_cast<std::size_t>(c.k);
  const auto n = static_cast<std::size_t>(c.n);
  // op(A) is m x k: N: A is m x k, lda = m; T: A is k x m, lda = k.
  l.a_row_stride = c.trans_a ? k : 1;
  l.a_k_stride = c.trans_a ? 1 : m;
  l.a_elements = m * k;
  // op(B) is k x n: N: B is k x n, ldb = k; T: B is n x k, ldb = n.
  l.b_k_stride = c.trans_b ? n : 1;
  l.b_column_stride = c.trans_b ? 1 : k;
  l.b_elements = k * n;
  // C is m x n, ldc = m.
  l.c_row_stride = 1;
  l.c_column_stride = m;
  l.c_elements = m * n;
  return l;
}

template <class TIn, class TOut>
class MatrixTarget final : public Target {
 public:
  MatrixTarget(const TargetSetup& setup, Codec<TIn> a_codec, Codec<TIn> b_codec, Codec<TOut> c_codec)
      : setup_(setup), layout_(matrix_layout(setup.config)), a_codec_(a_codec), b_codec_(b_codec),
        c_codec_(c_codec), diagonal_(setup.config.probes == ProbeLayout::diagonal) {
    const CaseConfig& c = setup.config;
    a_check_ = setup.traits.input;
    b_check_ = c.b_format != c.a_format ? c.b_format : setup.traits.input;
    leaves_ = c.leaves();
    info_.n = leaves_;
    info_.traits = setup.traits;
    info_.max_batch = layout_.rows;
    info_.alignment = AlignmentSupport::not_applicable;  // cudaMalloc places the device buffers

    check(cudaSetDevice(setup.device.ordinal), "cudaSetDevice");
    stream_ = make_stream();
    d_a_ = DeviceMemory(layout_.a_elements * sizeof(TIn));
    d_b_ = DeviceMemory(layout_.b_elements * sizeof(TIn));
    d_c_ = DeviceMemory(layout_.c_elements * sizeof(TOut));
    h_a_ = PinnedMemory(d_a_.bytes());
    h_b_ = PinnedMemory(d_b_.bytes());
    h_c_ = PinnedMemory(d_c_.bytes());
    // Zero bits are +0 in every format used here; unused rows and columns stay zero.
    std::memset(h_a_.get(), 0, h_a_.bytes());
    std::memset(h_b_.get(), 0, h_b_.bytes());
    std::memset(h_c_.get(), 0, h_c_.bytes());
    // C starts as zeros: with beta = 0 cuBLAS does not read it, but no library path may ever see
    // uninitialised memory (a NaN there times 0 would still be NaN).
    check(cudaMemset(d_c_.get(), 0, d_c_.bytes()), "cudaMemset");
    row_.resize(leaves_);
    b_now_.resize(layout_.reduction);
    c_leaf_.assign(layout_.rows, 0.0);
    launcher_ = make_launcher(setup, stream_.get());

    std::ostringstream os;
    os << "cuBLAS " << c.describe() << " on " << setup.device.name << " (sm" << setup.device.cc_major
       << setup.device.cc_minor << "), " << launcher_->describe();
    info_.description = os.str();
  }

  ~MatrixTarget() override {
    // Free on the device the memory belongs to; members are destroyed after this body.
    (void)cudaSetDevice(setup_.device.ordinal);
  }

  const TargetInfo& info() const override { return info_; }

  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    const std::size_t probes = batch.probes.size();
    check_batch_size(probes, outputs.size(), layout_.rows);
    if (probes == 0) return;
    const bool c_leaf = setup_.config.beta != 0;
    check_probe_values(*batch.values, a_check_, b_check_, c_leaf, setup_.config.output);
    if (!diagonal_) stage_shared_b(batch);
    const std::size_t k = layout_.reduction;
    for (std::size_t p = 0; p < probes; ++p) {
      write_probe_row<TIn>(batch, p, leaves_, row_.data(), nullptr, a_codec_.encode);
      store_a_row(p, row_.data());
      if (diagonal_) {
        for (std::size_t kk = 0; kk < k; ++kk)
          b_now_[kk] = b_codec_.encode(batch.leaf(p, static_cast<std::uint32_t>(kk)).b);
        store_b_column(p, b_now_.data());
      }
      if (c_leaf) c_leaf_[p] = batch.leaf(p, static_cast<std::uint32_t>(k)).value();
    }
    run(probes, outputs);
  }

  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    check_batch_size(batch.rows, outputs.size(), layout_.rows);
    check_value_batch(batch, leaves_);
    if (batch.rows == 0) return;
    const std::size_t k = layout_.reduction;
    for (std::size_t kk = 0; kk < k; ++kk) {
      const double b = batch.b.empty() ? 1.0 : batch.b[kk];
      require_representable(b, b_check_, "input b =");
      b_now_[kk] = b_codec_.encode(b);
    }
    for (std::size_t r = 0; r < batch.rows; ++r) {
      const double* a = batch.a.data() + r * leaves_;
      for (std::size_t kk = 0; kk < k; ++kk) {
        require_representable(a[kk], a_check_, "input a =");
        row_[kk] = a_codec_.encode(a[kk]);
      }
      store_a_row(r, row_.data());
      if (diagonal_) store_b_column(r, b_now_.data());
      if (setup_.config.beta != 0) {
        // C holds the last leaf in the output format; a product that needs more bits is rounded
        // there, exactly as an application storing it in C would see it (see README).
        const double b = batch.b.empty() ? 1.0 : batch.b[k];
        c_leaf_[r] = round_to_format(a[k] * b, setup_.config.output);
      }
    }
    run(batch.rows, outputs);
  }

 private:
  // Rows layout: B is shared by every probe of the batch (SummandKind::product_shared_rhs); check
  // that it is before relying on it.
  void stage_shared_b(const ProbeBatch& batch) {
    const ProbeValues& v = *batch.values;
    const std::size_t k = layout_.reduction;
    if (v.plus.b == v.unit.b && v.minus.b == v.unit.b) {  // every leaf has factor b = unit.b
      std::fill(b_now_.begin(), b_now_.end(), b_codec_.encode(v.unit.b));
      return;
    }
    for (std::size_t kk = 0; kk < k; ++kk) {
      const auto leaf = static_cast<std::uint32_t>(kk);
      const double b = batch.leaf(0, leaf).b;
      for (std::size_t p = 1; p < batch.probes.size(); ++p) {
        if (batch.leaf(p, leaf).b != b) {
          std::ostringstream os;
          os << "cuBLAS target: probes 0 and " << p << " of one batch need different right-hand "
             << "factors at leaf " << kk << " (" << b << " and " << batch.leaf(p, leaf).b
             << "), but B is shared by all rows of a " << to_string(setup_.config.op) << " call";
          throw TargetError(os.str());
        }
      }
      b_now_[kk] = b_codec_.encode(b);
    }
  }

  void store_a_row(std::size_t p, const TIn* row) {
    TIn* a = h_a_.as<TIn>();
    for (std::size_t kk = 0; kk < layout_.reduction; ++kk)
      a[p * layout_.a_row_stride + kk * layout_.a_k_stride] = row[kk];
  }

  void store_b_column(std::size_t j, const TIn* column) {
    TIn* b = h_b_.as<TIn>();
    for (std::size_t kk = 0; kk < layout_.reduction; ++kk)
      b[kk * layout_.b_k_stride + j * layout_.b_column_stride] = column[kk];
  }

  // Rows (and diagonal columns) that held a probe in an earlier call but not in this one go back
  // to zero, so a stale probe can never matter.
  void clear_unused(std::size_t used) {
    TIn* a = h_a_.as<TIn>();
    TIn* b = h_b_.as<TIn>();
    const TIn zero = a_codec_.encode(0.0);
    for (std::size_t p = used; p < dirty_rows_; ++p) {
      for (std::size_t kk = 0; kk < layout_.reduction; ++kk) {
        a[p * layout_.a_row_stride + kk * layout_.a_k_stride] = zero;
        if (diagonal_) b[kk * layout_.b_k_stride + p * layout_.b_column_stride] = zero;
      }
      c_leaf_[p] = 0.0;
    }
    dirty_rows_ = used;
  }

  void upload_b() {
    if (diagonal_) {  // a column per probe: changes with every call
      check(cudaMemcpyAsync(d_b_.get(), h_b_.get(), h_b_.bytes(), cudaMemcpyHostToDevice,
                            stream_.get()),
            "cudaMemcpyAsync");
      return;
    }
    // Rows layout: upload only when the shared factors changed (bits, not values: -0 != +0).
    if (b_uploaded_.size() == b_now_.size() &&
        std::memcmp(b_uploaded_.data(), b_now_.data(), b_now_.size() * sizeof(TIn)) == 0)
      return;
    for (std::size_t j = 0; j < layout_.columns; ++j) store_b_column(j, b_now_.data());
    check(cudaMemcpyAsync(d_b_.get(), h_b_.get(), h_b_.bytes(), cudaMemcpyHostToDevice, stream_.get()),
          "cudaMemcpyAsync");
    b_uploaded_ = b_now_;
  }

  void stage_c() {
    TOut* c = h_c_.as<TOut>();
    if (diagonal_) {
      std::memset(h_c_.get(), 0, h_c_.bytes());
      for (std::size_t p = 0; p < layout_.rows; ++p)
        c[p * layout_.c_row_stride + p * layout_.c_column_stride] = c_codec_.encode(c_leaf_[p]);
      return;
    }
    for (std::size_t p = 0; p < layout_.rows; ++p) {
      const TOut value = c_codec_.encode(c_leaf_[p]);
      for (std::size_t j = 0; j < layout_.columns; ++j)
        c[p * layout_.c_row_stride + j * layout_.c_column_stride] = value;
    }
  }

  void run(std::size_t used, std::span<double> outputs) {
    clear_unused(used);
    check(cudaSetDevice(setup_.device.ordinal), "cudaSetDevice");
    cudaStream_t stream = stream_.get();
    upload_b();
    check(cudaMemcpyAsync(d_a_.get(), h_a_.get(), h_a_.bytes(), cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync");
    if (setup_.config.beta != 0) {
      stage_c();
      check(cudaMemcpyAsync(d_c_.get(), h_c_.get(), h_c_.bytes(), cudaMemcpyHostToDevice, stream),
            "cudaMemcpyAsync");
    }
    launcher_->run(d_a_.get(), d_b_.get(), d_c_.get());
    check(cudaMemcpyAsync(h_c_.get(), d_c_.get(), h_c_.bytes(), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

    const TOut* c = h_c_.as<TOut>();
    for (std::size_t p = 0; p < used; ++p) {
      if (diagonal_) {
        outputs[p] = c_codec_.decode(c[p * layout_.c_row_stride + p * layout_.c_column_stride]);
        continue;
      }
      const TOut* first = &c[p * layout_.c_row_stride];
      for (std::size_t j = 1; j < layout_.columns; ++j) {
        const TOut* other = &c[p * layout_.c_row_stride + j * layout_.c_column_stride];
        if (std::memcmp(first, other, sizeof(TOut)) != 0) {
          std::ostringstream os;
          os.precision(17);
          os << "cuBLAS " << to_string(setup_.config.op) << ": row " << p << " of C differs between "
             << "column 0 (" << c_codec_.decode(*first) << ") and column " << j << " ("
             << c_codec_.decode(*other) << ") although every column adds the same products: "
             << "the accumulation order depends on the output column";
          throw TargetError(os.str());
        }
      }
      outputs[p] = c_codec_.decode(*first);
    }
  }

  TargetSetup setup_;
  MatrixLayout layout_;
  Codec<TIn> a_codec_, b_codec_;
  Codec<TOut> c_codec_;
  bool diagonal_ = false;
  Format a_check_ = Format::float32, b_check_ = Format::float32;
  std::size_t leaves_ = 0;
  TargetInfo info_;

  // Declaration order is destruction order reversed: the launcher (handles) goes before the
  // buffers, the buffers before the stream.
  Stream stream_;
  DeviceMemory d_a_, d_b_, d_c_;
  PinnedMemory h_a_, h_b_, h_c_;
  std::unique_ptr<Launcher> launcher_;

  std::vector<TIn> row_;          // one probe row, all leaves
  std::vector<TIn> b_now_;        // the right-hand factors of this call (one column)
  std::vector<TIn> b_uploaded_;   // rows layout: what every column of B on the device holds
  std::vector<double> c_leaf_;    // beta = 1: the value of C per probe
  std::size_t dirty_rows_ = 0;    // probe rows (and diagonal columns) holding earlier values
};

}  // namespace

std::unique_ptr<Target> make_matrix_target(const TargetSetup& s) {
  const CaseConfig& c = s.config;
  switch (c.a_format) {
    case Format::float64:
      return std::make_unique<MatrixTarget<double, double>>(s, double_codec(), double_codec(),
                                                            double_codec());
    case Format::float32:
    case Format::tf32:
      return std::make_unique<MatrixTarget<float, float>>(s, float_codec(), float_codec(),
                                                          float_codec());
    case Format::float16:
    case Format::bfloat16:
      if (c.output == Format::float32)
        return std::make_unique<MatrixTarget<std::uint16_t, float>>(
            s, half_codec(c.a_format), half_codec(c.b_format), float_codec());
      return std::make_unique<MatrixTarget<std::uint16_t, std::uint16_t>>(
          s, half_codec(c.a_format), half_codec(c.b_format), half_codec(c.output));
    case Format::fp8_e4m3:
    case Format::fp8_e5m2:
      if (c.output == Format::float32)
        return std::make_unique<MatrixTarget<std::uint8_t, float>>(
            s, fp8_codec(c.a_format), fp8_codec(c.b_format), float_codec());
      return std::make_unique<MatrixTarget<std::uint8_t, std::uint16_t>>(
          s, fp8_codec(c.a_format), fp8_codec(c.b_format), half_codec(c.output));
  }
  throw TargetError("cublas: no matrix target for " + c.describe());
}

}  // namespace fprev::cublas::detail
