// The part of the backend linked into every program: the registered `cublas` backend, whose open()
// and device query load the CUDA part (the module fprev_backend_cublas.so) on first use. Nothing
// here links a CUDA library, so `fprev-golden --help` and CPU reveals never map one.
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

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

// Whether this machine can have an NVIDIA GPU driver at all, from the files a driver creates:
// loading the CUDA module maps cudart, cuBLAS and cuBLASLt (hundreds of MiB, most of a second)
// only to learn that there is no GPU, which `env` on a CPU runner would pay every time. The device
// nodes (also inside containers given a GPU), the kernel module's /proc entry, or WSL2's /dev/dxg.
// FPREV_SKIP_GPU_DRIVER_CHECK=1 loads the module anyway (a driver somewhere else).
bool may_have_nvidia_driver() {
  if (const char* skip = std::getenv("FPREV_SKIP_GPU_DRIVER_CHECK"); skip != nullptr && std::string(skip) == "1")
    return true;
  for (const char* path : {"/dev/nvidiactl", "/dev/nvidia0", "/proc/driver/nvidia/version", "/dev/dxg"}) {
    std::error_code error;
    if (std::filesystem::exists(path, error)) return true;
  }
  return false;
}

}  // namespace

const detail::CudaBackend& detail::cuda_part() {
  if (!built_with_cuda_toolkit()) throw BackendUnavailable(no_toolkit_reason());
  if (!may_have_nvidia_driver())
    throw BackendUnavailable("no NVIDIA GPU driver here (none of /dev/nvidiactl, /dev/nvidia0, "
                             "/proc/driver/nvidia/version, /dev/dxg exists), so the CUDA module was not loaded; "
                             "FPREV_SKIP_GPU_DRIVER_CHECK=1 loads it anyway");
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
