// OpenBLAS with the kernel family of this process (OPENBLAS_CORETYPE, set per CTest test; the
// library reads it when it loads): the order map of sgemm and dgemm (30, 100, 200; 1000 in the
// "long" tests) and of sgemv 200, checked against an independent single-element oracle: FPRev's
// own method (Xie et al., USENIX ATC 2025), which masks row 0 of A, keeps B all ones, reads C[0, 0]
// only and evaluates one probe per call. The class holding element (0, 0) must have the oracle's
// tree. The maps are printed, so the test log shows what each family does.
//
// A family the CPU cannot execute is skipped (never loaded: its kernels would fault).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "fprev/backend.hpp"
#include "fprev/blas/blas_backend.hpp"
#include "fprev/blas/library.hpp"
#include "fprev/order_map.hpp"
#include "fprev/probe_inputs.hpp"
#include "fprev/reveal.hpp"
#include "fprev/summary.hpp"

namespace fprev::blas {
namespace {

std::string family() {
  const char* value = std::getenv("OPENBLAS_CORETYPE");
  return value == nullptr ? "" : value;
}

std::set<std::string> cpu_flags() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

// The CPU features each family's kernels use (OpenBLAS's own dynamic.c checks the same).
std::vector<std::string> needed_flags(const std::string& name) {
  if (name == "Prescott") return {"pni"};
  if (name == "Sandybridge") return {"avx"};
  if (name == "Haswell") return {"avx2", "fma"};
  if (name == "SkylakeX") return {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"};
  return {};
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class FamilyEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const std::string name = family();
    if (name.empty()) return;  // the library's own choice for this CPU
    const std::vector<std::string> needed = needed_flags(name);
    if (needed.empty()) GTEST_SKIP() << "no CPU requirements known for kernel family " << name;
    const std::set<std::string> flags = cpu_flags();
    for (const std::string& flag : needed)
      if (flags.count(flag) == 0)
        GTEST_SKIP() << "this CPU lacks " << flag << ": it cannot run OpenBLAS's " << name
                     << " kernels";
  }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new FamilyEnvironment);

std::unique_ptr<BackendInstance> open_openblas() {
  unsetenv(kLibraryEnvironmentVariable);
  const Backend* backend = builtin_backends().find("blas");
  auto instance = backend->open({{"library", "openblas"}, {"threads", "1"}});
  const auto& details = instance->identity().details;
  const auto core = details.find("core");
  if (!family().empty() && (core == details.end() || lower(core->second) != lower(family())))
    throw std::runtime_error("OPENBLAS_CORETYPE=" + family() + " but OpenBLAS runs core '" +
                             (core == details.end() ? "?" : core->second) + "'");
  return instance;
}

// C[0, 0] of the routine, with the input in row 0 of op(A) (every other row zero) and every
// element of op(B) (or x) equal to the shared factor: one output per call.
template <class T>
class ElementZeroTarget final : public Target {
 public:
  ElementZeroTarget(std::shared_ptr<const Library> library, bool gemv, std::size_t m, std::size_t n,
                    std::size_t k, Format dtype)
      : library_(std::move(library)), gemv_(gemv), m_(m), n_(n), k_(k),
        a_(m * k, T{}), b_(k * (gemv ? 1 : n), T{1}), c_(m * (gemv ? 1 : n), T{}) {
    info_.description = "C[0, 0] of OpenBLAS " + std::string(gemv ? "gemv" : "gemm");
    info_.n = k;
    info_.traits.input = info_.traits.accumulator = info_.traits.output = dtype;
    info_.traits.summand = SummandKind::product_shared_rhs;
    info_.traits.exact_arithmetic_model = false;
  }
  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    std::vector<T> row(k_);
    write_probe_row<T>(batch, 0, k_, row.data(), nullptr);
    std::fill(b_.begin(), b_.end(), static_cast<T>(batch.values->unit.b));
    outputs[0] = run(row);
  }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    std::vector<T> row(batch.a.begin(), batch.a.begin() + static_cast<std::ptrdiff_t>(k_));
    const std::size_t columns = gemv_ ? 1 : n_;
    for (std::size_t j = 0; j < columns; ++j)
      for (std::size_t l = 0; l < k_; ++l)
        b_[l + j * k_] = static_cast<T>(batch.b.empty() ? 1.0 : batch.b[l]);
    outputs[0] = run(row);
  }

 private:
  double run(const std::vector<T>& row) {
    for (std::size_t l = 0; l < k_; ++l) a_[l * m_] = row[l];  // row 0, column-major lda = m
    std::fill(c_.begin(), c_.end(), T{});
    library_->use_threads(1);
    const Kernels<T>& kernels = kernels_of();
    const T one = 1, zero = 0;
    const FortranInt m = static_cast<FortranInt>(m_), n = static_cast<FortranInt>(n_),
                     k = static_cast<FortranInt>(k_), inc = 1;
    if (gemv_) {  // y = A x with A m x k
      kernels.gemv("N", &m, &k, &one, a_.data(), &m, b_.data(), &inc, &zero, c_.data(), &inc, 1);
    } else {
      kernels.gemm("N", "N", &m, &n, &k, &one, a_.data(), &m, b_.data(), &k, &zero, c_.data(), &m, 1, 1);
    }
    return static_cast<double>(c_[0]);
  }
  const Kernels<T>& kernels_of() const {
    if constexpr (std::is_same_v<T, float>) return library_->single();
    else return library_->dbl();
  }

  std::shared_ptr<const Library> library_;
  bool gemv_;
  std::size_t m_, n_, k_;
  std::vector<T> a_, b_, c_;
  TargetInfo info_;
};

void check_against_oracle(const std::string& op, const std::string& dtype, std::size_t size) {
  const auto instance = open_openblas();
  Params params = {{"op", op}, {"dtype", dtype}, {"m", std::to_string(size)},
                   {"n", std::to_string(size)}};
  if (op == "gemm") params["k"] = std::to_string(size);
  const Params resolved = resolve_params(instance->case_params(), params, "test case");
  const auto target = instance->make_target(resolved);
  const RevealResult result = reveal(*target);

  std::ostringstream report;
  report << "kernel family " << (family().empty() ? "(default)" : family()) << ", "
         << target->info().description << ": " << result.map.classes.size() << " classes, "
         << result.stats.probes << " probes in " << result.stats.target_calls << " calls ("
         << result.stats.target_seconds << " s in the target)\n";
  for (const std::string& line : describe_map(result.map)) report << "  " << line << "\n";
  std::cout << report.str();

  // The oracle: FPRev on element (0, 0) alone.
  const auto library = Library::load("openblas");
  const Format format = dtype == "float32" ? Format::float32 : Format::float64;
  std::unique_ptr<Target> oracle;
  if (format == Format::float32)
    oracle = std::make_unique<ElementZeroTarget<float>>(library, op == "gemv", size, size, size, format);
  else
    oracle = std::make_unique<ElementZeroTarget<double>>(library, op == "gemv", size, size, size, format);
  const RevealResult truth = reveal(*oracle);
  EXPECT_EQ(truth.stats.probes, truth.stats.target_calls - truth.stats.value_inputs)
      << "one probe per call";
  EXPECT_EQ(result.map.class_at(0, 0).tree, truth.tree)
      << report.str() << "oracle: " << format_summary(summarize(truth.tree));
}

class KernelFamily : public ::testing::TestWithParam<std::tuple<std::string, std::string, std::size_t>> {};

TEST_P(KernelFamily, ClassOfElementZeroIsTheOracleTree) {
  const auto& [op, dtype, size] = GetParam();
  check_against_oracle(op, dtype, size);
}

std::string name(const ::testing::TestParamInfo<KernelFamily::ParamType>& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param) + "_" + std::to_string(std::get<2>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Shapes, KernelFamily,
                         ::testing::Values(std::make_tuple("gemm", "float32", 30),
                                           std::make_tuple("gemm", "float32", 100),
                                           std::make_tuple("gemm", "float32", 200),
                                           std::make_tuple("gemm", "float64", 30),
                                           std::make_tuple("gemm", "float64", 100),
                                           std::make_tuple("gemm", "float64", 200),
                                           std::make_tuple("gemv", "float32", 200)),
                         name);

// 1000 x 1000 x 1000: about a thousand oracle calls of a full GEMM each (minutes), run by the
// CTest tests labelled "long".
INSTANTIATE_TEST_SUITE_P(Long, KernelFamily,
                         ::testing::Values(std::make_tuple("gemm", "float32", 1000),
                                           std::make_tuple("gemm", "float64", 1000)),
                         name);

}  // namespace
}  // namespace fprev::blas
