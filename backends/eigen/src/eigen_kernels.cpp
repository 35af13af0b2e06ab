// Eigen 3.4's reductions and products on Maps, for the eigen backend (see eigen_kernels.hpp).
// Compiled twice: FPREV_EIGEN_MODULE set builds the shared library's entry point, else the
// baseline table. Nothing here knows the ISA: the compiler flags decide Eigen's packets.
#include <Eigen/Core>
#include <string>

#include "eigen_kernels.hpp"

namespace fprev::eigen {
namespace {

template <class T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;  // column-major
using Stride = Eigen::OuterStride<>;

template <class T>
T sum(const T* x, std::size_t n) {
  return Eigen::Map<const Vector<T>>(x, static_cast<Eigen::Index>(n)).sum();
}

template <class T>
T dot(const T* x, const T* y, std::size_t n) {
  const auto size = static_cast<Eigen::Index>(n);
  return Eigen::Map<const Vector<T>>(x, size).dot(Eigen::Map<const Vector<T>>(y, size));
}

template <class T>
void gemv(const char* /*trans*/, const int* m, const int* n, const T* /*alpha*/, const T* a, const int* lda,
          const T* x, const int* /*incx*/, const T* /*beta*/, T* y, const int* /*incy*/, std::size_t) {
  const Eigen::Map<const Matrix<T>, 0, Stride> A(a, *m, *n, Stride(*lda));
  Eigen::Map<Vector<T>> Y(y, *m);
  Y.noalias() = A * Eigen::Map<const Vector<T>>(x, *n);
}

template <class T>
void gemm(const char* /*transa*/, const char* /*transb*/, const int* m, const int* n, const int* k,
          const T* /*alpha*/, const T* a, const int* lda, const T* b, const int* ldb, const T* /*beta*/, T* c,
          const int* ldc, std::size_t, std::size_t) {
  const Eigen::Map<const Matrix<T>, 0, Stride> A(a, *m, *k, Stride(*lda));
  const Eigen::Map<const Matrix<T>, 0, Stride> B(b, *k, *n, Stride(*ldb));
  Eigen::Map<Matrix<T>, 0, Stride> C(c, *m, *n, Stride(*ldc));
  C.noalias() = A * B;
}

const std::string& version() {
  static const std::string text = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
                                  "." + std::to_string(EIGEN_MINOR_VERSION);
  return text;
}

const Kernels& table() {
  static const Kernels kernels = [] {
    // GEMM blocking follows the cache sizes Eigen reads from the CPU; pinned, so the order of a
    // product depends on the ISA and the shape, not on the host's caches (README).
    Eigen::setCpuCacheSizes(32 * 1024, 1024 * 1024, 8 * 1024 * 1024);
    return Kernels{&sum<float>,  &sum<double>,  &dot<float>,  &dot<double>, &gemv<float>,
                   &gemv<double>, &gemm<float>, &gemm<double>, Eigen::SimdInstructionSetsInUse(),
                   version().c_str()};
  }();
  return kernels;
}

}  // namespace

#ifndef FPREV_EIGEN_MODULE
const Kernels& baseline_kernels() { return table(); }
#endif

}  // namespace fprev::eigen

#ifdef FPREV_EIGEN_MODULE
extern "C" __attribute__((visibility("default"))) const fprev::eigen::Kernels* fprev_eigen_kernels_v1() {
  return &fprev::eigen::table();
}
#endif
