// Inside the module: opening an instance on a CUDA device, and the device query behind it.
#pragma once

#include <memory>

#include "fprev/backend.hpp"
#include "fprev/backends/cublas.hpp"

namespace fprev::cublas::detail {

// Asks the CUDA runtime for device `ordinal`. Never throws and never crashes without a driver: the
// runtime reports cudaErrorInsufficientDriver / cudaErrorNoDevice, which end up in the reason.
DeviceQuery query_device(int ordinal);

// Opens an instance with settings that passed parse_instance_settings(), or throws
// BackendUnavailable naming what is missing (the GPU, or cuBLAS starting on it).
std::unique_ptr<BackendInstance> open_instance(const InstanceSettings& settings);

}  // namespace fprev::cublas::detail
