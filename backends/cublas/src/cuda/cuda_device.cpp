// Finding the CUDA device, or saying precisely why there is none. Works on machines without a
// driver: libcudart loads the driver lazily and reports cudaErrorInsufficientDriver (no driver,
// or one older than the runtime) or cudaErrorNoDevice instead of crashing.
#include <cuda_runtime_api.h>

#include <string>

#include "cuda_support.hpp"
#include "fprev/backends/cublas.hpp"
#include "instance.hpp"

namespace fprev::cublas {
namespace {

std::string hint(cudaError_t error) {
  switch (error) {
    case cudaErrorInsufficientDriver:
      return "; no NVIDIA driver is loaded, or it is older than the CUDA runtime " +
             format_cuda_version(CUDART_VERSION) + " this build uses";
    case cudaErrorNoDevice:
      return "; no CUDA-capable GPU is visible (check the driver and CUDA_VISIBLE_DEVICES)";
    default:
      return "";
  }
}

}  // namespace

DeviceQuery detail::query_device(int ordinal) {
  DeviceQuery query;
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    query.reason = "no CUDA device: cudaGetDeviceCount failed with " + detail::describe(error) +
                   hint(error);
    return query;
  }
  if (count <= 0) {
    query.reason = "no CUDA device: cudaGetDeviceCount reports 0 devices";
    return query;
  }
  if (ordinal < 0 || ordinal >= count) {
    query.reason = "no CUDA device " + std::to_string(ordinal) + ": only " +
                   std::to_string(count) + " visible (ordinals 0.." + std::to_string(count - 1) + ")";
    return query;
  }
  cudaDeviceProp prop{};
  const cudaError_t prop_error = cudaGetDeviceProperties(&prop, ordinal);
  if (prop_error != cudaSuccess) {
    (void)cudaGetLastError();
    query.reason = "no usable CUDA device: cudaGetDeviceProperties(" + std::to_string(ordinal) +
                   ") failed with " + detail::describe(prop_error);
    return query;
  }
  DeviceDescription device;
  device.ordinal = ordinal;
  device.name = prop.name;
  device.cc_major = prop.major;
  device.cc_minor = prop.minor;
  device.sm_count = prop.multiProcessorCount;
  (void)cudaDriverGetVersion(&device.driver_version);
  (void)cudaRuntimeGetVersion(&device.runtime_version);
  query.device = device;
  return query;
}

}  // namespace fprev::cublas
