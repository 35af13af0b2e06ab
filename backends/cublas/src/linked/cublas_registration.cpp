// The part of the backend linked into every program: the registered `cublas` backend, whose open()
// and device query load the CUDA part (the module fprev_backend_cublas.so) on first use. Nothing
// here links a CUDA library, so `fprev-golden --help` and CPU reveals never map one.
#include <memory>

#include "cuda_seam.hpp"
#include "fprev/backend_module.hpp"
#include "fprev/backends/cublas.hpp"

namespace fprev {
namespace cublas {
namespace {

class CublasBackend final : public detail::CublasBackendBase {
 public:
  std::unique_ptr<BackendInstance> open(const Params& params) const override {
    // Settings first: a bad setting is a ConfigError on every machine, GPU and toolkit or not.
    (void)parse_instance_settings(resolve_params(instance_param_specs(), params, "cublas"));
    return detail::cuda_part().open(params);
  }
};

}  // namespace

const detail::CudaBackend& detail::cuda_part() {
  if (!built_with_cuda_toolkit()) throw BackendUnavailable(no_toolkit_reason());
  const BackendModule* module = nullptr;
  try {
    module = &load_backend_module("cublas");
  } catch (const BackendModuleError& error) {
    throw BackendUnavailable(std::string("the CUDA part of the cublas backend cannot be used: ") +
                             error.what());
  }
  const auto* part = dynamic_cast<const CudaBackend*>(module->backends.find("cublas"));
  if (part == nullptr)
    throw BackendUnavailable("backend module " + module->file.string() +
                             " does not hold the CUDA part of the cublas backend");
  return *part;
}

DeviceQuery query_cuda_device(int ordinal) {
  try {
    return detail::cuda_part().query_device(ordinal);
  } catch (const BackendUnavailable& error) {
    DeviceQuery query;
    query.reason = error.what();
    return query;
  }
}

}  // namespace cublas

void register_cublas_backend(BackendRegistry& registry) {
  registry.add(std::make_unique<cublas::CublasBackend>());
}

}  // namespace fprev
