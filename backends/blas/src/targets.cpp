#include "targets.hpp"

#include "dot_target.hpp"
#include "matrix_target.hpp"

namespace fprev::blas {
namespace {

template <class T>
std::unique_ptr<Target> make_typed(std::shared_ptr<const Library> library, int threads,
                                   const BlasCase& c, const Kernels<T>& kernels,
                                   std::string description) {
  if (c.op == Op::dot)
    return std::make_unique<DotTarget<T>>(std::move(library), threads, kernels.dot, c.reduction,
                                          c.dtype, std::move(description));
  return std::make_unique<MatrixTarget<T>>(std::move(library), threads, c, kernels,
                                           std::move(description));
}

}  // namespace

std::unique_ptr<Target> make_target(std::shared_ptr<const Library> library, int threads,
                                    const BlasCase& blas_case, std::string description) {
  if (blas_case.dtype == Format::float32) {
    const Kernels<float> kernels = library->single();
    return make_typed<float>(std::move(library), threads, blas_case, kernels,
                             std::move(description));
  }
  const Kernels<double> kernels = library->dbl();
  return make_typed<double>(std::move(library), threads, blas_case, kernels,
                            std::move(description));
}

}  // namespace fprev::blas
