// The library calls behind the gemv, gemm, gemm_ex and lt_matmul targets. Column-major, as cuBLAS
// is: A is lda x (columns), lda = rows of A as stored (no padding, as an application would call).
#include <sstream>

#include "storage.hpp"
#include "targets.hpp"

namespace fprev::cublas::detail {
namespace {

cublasOperation_t op_of(bool transposed) { return transposed ? CUBLAS_OP_T : CUBLAS_OP_N; }

int as_int(std::int64_t value) { return static_cast<int>(value); }  // validated <= 2^24

Scalars::Kind scalar_kind(const CaseConfig& c) {
  if (c.compute) {
    switch (*c.compute) {
      case Compute::c16F:
      case Compute::c16F_pedantic:
        return Scalars::Kind::f16;
      case Compute::c64F:
      case Compute::c64F_pedantic:
        return Scalars::Kind::f64;
      default:
        return Scalars::Kind::f32;
    }
  }
  return c.dtype == Format::float64 ? Scalars::Kind::f64 : Scalars::Kind::f32;
}

std::string handle_description(const InstanceSettings& s) {
  std::string out = "math mode " + std::string(to_string(s.math_mode));
  if (!s.reduced_precision_reduction) out += " (no reduced-precision reduction)";
  return out;
}

// ---- cublas<S|D>gemv ---------------------------------------------------------------------------

class GemvLauncher final : public Launcher {
 public:
  GemvLauncher(const TargetSetup& s, cudaStream_t stream)
      : c_(s.config), handle_(s.settings, stream, CUBLAS_POINTER_MODE_HOST),
        scalars_(scalar_kind(s.config), s.config.beta), description_(handle_description(s.settings)) {}

  void run(const void* a, const void* b, void* c) override {
    const cublasOperation_t trans = op_of(c_.trans_a);
    const int m = as_int(c_.m), n = as_int(c_.n);
    if (c_.dtype == Format::float64) {
      check(cublasDgemv(handle_.get(), trans, m, n, &scalars_.d[0], static_cast<const double*>(a), m,
                        static_cast<const double*>(b), 1, &scalars_.d[1], static_cast<double*>(c), 1),
            "cublasDgemv");
    } else {
      check(cublasSgemv(handle_.get(), trans, m, n, &scalars_.f[0], static_cast<const float*>(a), m,
                        static_cast<const float*>(b), 1, &scalars_.f[1], static_cast<float*>(c), 1),
            "cublasSgemv");
    }
  }
  std::string describe() const override { return description_; }

 private:
  CaseConfig c_;
  ConfiguredHandle handle_;
  Scalars scalars_;
  std::string description_;
};

// ---- cublas<S|D>gemm and cublasGemmEx ----------------------------------------------------------

struct GemmDims {
  cublasOperation_t ta, tb;
  int m, n, k, lda, ldb, ldc;
  explicit GemmDims(const CaseConfig& c)
      : ta(op_of(c.trans_a)), tb(op_of(c.trans_b)), m(as_int(c.m)), n(as_int(c.n)), k(as_int(c.k)),
        lda(c.trans_a ? k : m), ldb(c.trans_b ? n : k), ldc(m) {}
};

class GemmLauncher final : public Launcher {
 public:
  GemmLauncher(const TargetSetup& s, cudaStream_t stream)
      : c_(s.config), dims_(s.config), handle_(s.settings, stream, CUBLAS_POINTER_MODE_HOST),
        scalars_(scalar_kind(s.config), s.config.beta), description_(handle_description(s.settings)) {}

  void run(const void* a, const void* b, void* c) override {
    const GemmDims& d = dims_;
    if (c_.dtype == Format::float64) {
      check(cublasDgemm(handle_.get(), d.ta, d.tb, d.m, d.n, d.k, &scalars_.d[0],
                        static_cast<const double*>(a), d.lda, static_cast<const double*>(b), d.ldb,
                        &scalars_.d[1], static_cast<double*>(c), d.ldc),
            "cublasDgemm");
    } else {
      check(cublasSgemm(handle_.get(), d.ta, d.tb, d.m, d.n, d.k, &scalars_.f[0],
                        static_cast<const float*>(a), d.lda, static_cast<const float*>(b), d.ldb,
                        &scalars_.f[1], static_cast<float*>(c), d.ldc),
            "cublasSgemm");
    }
  }
  std::string describe() const override { return description_; }

 private:
  CaseConfig c_;
  GemmDims dims_;
  ConfiguredHandle handle_;
  Scalars scalars_;
  std::string description_;
};

class GemmExLauncher final : public Launcher {
 public:
  GemmExLauncher(const TargetSetup& s, cudaStream_t stream)
      : c_(s.config), dims_(s.config), handle_(s.settings, stream, CUBLAS_POINTER_MODE_HOST),
        scalars_(scalar_kind(s.config), s.config.beta),
        description_(handle_description(s.settings) + ", CUBLAS_GEMM_DEFAULT") {}

  void run(const void* a, const void* b, void* c) override {
    const GemmDims& d = dims_;
    check(cublasGemmEx(handle_.get(), d.ta, d.tb, d.m, d.n, d.k, scalars_.alpha(), a,
                       cuda_data_type(c_.a_format), d.lda, b, cuda_data_type(c_.b_format), d.ldb,
                       scalars_.beta(), c, cuda_data_type(c_.output), d.ldc,
                       compute_type(*c_.compute), CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  }
  std::string describe() const override { return description_; }

 private:
  CaseConfig c_;
  GemmDims dims_;
  ConfiguredHandle handle_;
  Scalars scalars_;
  std::string description_;
};

// ---- cublasLtMatmul ----------------------------------------------------------------------------

template <class T>
T algo_attribute(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute,
                 const char* name) {
  T value{};
  std::size_t written = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &value, sizeof(value), &written);
  if (status != CUBLAS_STATUS_SUCCESS)
    throw TargetError(std::string("cublasLtMatmulAlgoConfigGetAttribute(") + name +
                      ") failed: " + describe(status));
  return value;
}

class LtMatmulLauncher final : public Launcher {
 public:
  LtMatmulLauncher(const TargetSetup& s, cudaStream_t stream)
      : stream_(stream), lt_(make_lt_handle()), scalars_(scalar_kind(s.config), s.config.beta),
        workspace_(s.settings.workspace_bytes.value_or(kDefaultLtWorkspaceBytes)) {
    const CaseConfig& c = s.config;
    const GemmDims d(c);
    const cublasComputeType_t compute = compute_type(*c.compute);
    const cudaDataType_t scale_type = scalars_.kind == Scalars::Kind::f16   ? CUDA_R_16F
                                      : scalars_.kind == Scalars::Kind::f64 ? CUDA_R_64F
                                                                            : CUDA_R_32F;
    cublasLtMatmulDesc_t desc = nullptr;
    check(cublasLtMatmulDescCreate(&desc, compute, scale_type), "cublasLtMatmulDescCreate");
    desc_.reset(desc);
    set_desc(CUBLASLT_MATMUL_DESC_TRANSA, d.ta, "TRANSA");
    set_desc(CUBLASLT_MATMUL_DESC_TRANSB, d.tb, "TRANSB");
    if (c.fp8_fast_accum) set_desc(CUBLASLT_MATMUL_DESC_FAST_ACCUM, std::int8_t{1}, "FAST_ACCUM");
    // The fp8 scale pointers stay unset: cuBLASLt then scales by 1.

    a_layout_ = make_layout(cuda_data_type(c.a_format), c.trans_a ? d.k : d.m, c.trans_a ? d.m : d.k,
                            d.lda);
    b_layout_ = make_layout(cuda_data_type(c.b_format), c.trans_b ? d.n : d.k, c.trans_b ? d.k : d.n,
                            d.ldb);
    c_layout_ = make_layout(cuda_data_type(c.output), d.m, d.n, d.ldc);

    cublasLtMatmulPreference_t preference = nullptr;
    check(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
    LtPreference owned_preference(preference);
    const std::size_t workspace_bytes = workspace_.bytes();
    check(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                               &workspace_bytes, sizeof(workspace_bytes)),
          "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");

    // The first (fastest estimated) algorithm is what an application taking cuBLASLt's advice
    // gets; it is fixed for the life of the target so every probe sees the same kernel.
    cublasLtMatmulHeuristicResult_t result{};
    int returned = 0;
    check(cublasLtMatmulAlgoGetHeuristic(lt_.get(), desc_.get(), a_layout_.get(), b_layout_.get(),
                                         c_layout_.get(), c_layout_.get(), preference, 1, &result,
                                         &returned),
          "cublasLtMatmulAlgoGetHeuristic");
    if (returned < 1 || result.state != CUBLAS_STATUS_SUCCESS)
      throw TargetError("cublasLtMatmulAlgoGetHeuristic found no algorithm for " + c.describe() +
                        " on " + s.device.name);
    algo_ = result.algo;
    description_ = describe_algo(workspace_bytes);
  }

  void run(const void* a, const void* b, void* c) override {
    check(cublasLtMatmul(lt_.get(), desc_.get(), scalars_.alpha(), a, a_layout_.get(), b,
                         b_layout_.get(), scalars_.beta(), c, c_layout_.get(), c, c_layout_.get(),
                         &algo_, workspace_.get(), workspace_.bytes(), stream_),
          "cublasLtMatmul");
  }
  std::string describe() const override { return description_; }

 private:
  template <class V>
  void set_desc(cublasLtMatmulDescAttributes_t attribute, const V& value, const char* name) {
    check(cublasLtMatmulDescSetAttribute(desc_.get(), attribute, &value, sizeof(value)),
          (std::string("cublasLtMatmulDescSetAttribute(") + name + ")").c_str());
  }

  static LtLayout make_layout(cudaDataType_t type, int rows, int cols, int ld) {
    cublasLtMatrixLayout_t layout = nullptr;
    check(cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(rows),
                                     static_cast<std::uint64_t>(cols), ld),
          "cublasLtMatrixLayoutCreate");
    return LtLayout(layout);
  }

  std::string describe_algo(std::size_t workspace_bytes) const {
    std::ostringstream os;
    os << "cuBLASLt algo " << algo_attribute<std::int32_t>(algo_, CUBLASLT_ALGO_CONFIG_ID, "ID")
       << " tile " << algo_attribute<std::uint32_t>(algo_, CUBLASLT_ALGO_CONFIG_TILE_ID, "TILE_ID")
       << " stages "
       << algo_attribute<std::uint32_t>(algo_, CUBLASLT_ALGO_CONFIG_STAGES_ID, "STAGES_ID")
       << " splitK "
       << algo_attribute<std::int32_t>(algo_, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, "SPLITK_NUM")
       << " reduction "
       << algo_attribute<std::uint32_t>(algo_, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME,
                                        "REDUCTION_SCHEME")
       << " swizzle "
       << algo_attribute<std::uint32_t>(algo_, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, "CTA_SWIZZLING")
       << " custom "
       << algo_attribute<std::uint32_t>(algo_, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, "CUSTOM_OPTION")
       << " inner shape "
       << algo_attribute<std::uint16_t>(algo_, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, "INNER_SHAPE_ID")
       << " cluster "
       << algo_attribute<std::uint16_t>(algo_, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID,
                                        "CLUSTER_SHAPE_ID")
       << ", workspace " << workspace_bytes << " bytes";
    return os.str();
  }

  cudaStream_t stream_;
  LtHandle lt_;
  Scalars scalars_;
  DeviceMemory workspace_;
  LtMatmulDesc desc_;
  LtLayout a_layout_, b_layout_, c_layout_;
  cublasLtMatmulAlgo_t algo_{};
  std::string description_;
};

}  // namespace

std::unique_ptr<Launcher> make_launcher(const TargetSetup& setup, cudaStream_t stream) {
  switch (setup.config.op) {
    case Op::gemv:
      return std::make_unique<GemvLauncher>(setup, stream);
    case Op::gemm:
      return std::make_unique<GemmLauncher>(setup, stream);
    case Op::gemm_ex:
      return std::make_unique<GemmExLauncher>(setup, stream);
    case Op::lt_matmul:
      return std::make_unique<LtMatmulLauncher>(setup, stream);
    case Op::dot:
      break;
  }
  throw TargetError("cublas: op " + std::string(to_string(setup.config.op)) +
                    " has no matrix launcher");
}

}  // namespace fprev::cublas::detail
