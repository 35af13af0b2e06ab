// The entry point of the module fprev_backend_cublas.so: the complete `cublas` backend with the
// CUDA libraries, which the linked part (src/linked/) loads when an instance is opened.
#include <memory>

#include "cuda_seam.hpp"
#include "fprev/backend_module.hpp"
#include "fprev/backends/cublas.hpp"
#include "instance.hpp"

namespace fprev::cublas {
namespace {

class CudaCublasBackend final : public detail::CudaBackend {
 public:
  std::unique_ptr<BackendInstance> open(const Params& params) const override {
    return detail::open_instance(
        parse_instance_settings(resolve_params(instance_param_specs(), params, "cublas")));
  }
  DeviceQuery query_device(int ordinal) const override { return detail::query_device(ordinal); }
};

}  // namespace
}  // namespace fprev::cublas

FPREV_BACKEND_MODULE(registry) { registry.add(std::make_unique<fprev::cublas::CudaCublasBackend>()); }
