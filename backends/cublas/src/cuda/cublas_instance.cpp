// Opening a cuBLAS instance on a CUDA device: its identity and platform key, and the targets for
// its cases.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <sstream>

#include "cuda_support.hpp"
#include "fprev/backends/cublas.hpp"
#include "instance.hpp"
#include "targets.hpp"

namespace fprev {
namespace cublas {
namespace {

std::string cublas_version() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string cublaslt_version() {
  const std::size_t v = cublasLtGetVersion();  // major * 10000 + minor * 100 + patch
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

// Environment variables that change what cuBLAS computes or how it is scheduled; recorded with
// every golden so that a difference can be traced to them.
constexpr const char* kRelevantEnvironment[] = {
    "CUBLAS_WORKSPACE_CONFIG",         "NVIDIA_TF32_OVERRIDE",
    "CUBLAS_EMULATE_SINGLE_PRECISION", "CUBLAS_EMULATE_DOUBLE_PRECISION",
    "CUBLAS_EMULATION_STRATEGY",       "CUDA_VISIBLE_DEVICES",
};

Identity make_identity(const DeviceDescription& device, const InstanceSettings& settings) {
  Identity id;
  id.library = "cuBLAS";
  id.version = cublas_version();
  std::ostringstream configuration;
  configuration << device.name << ", sm" << device.cc_major << device.cc_minor << ", "
                << device.sm_count << " SMs, math mode " << to_string(settings.math_mode);
  id.configuration = configuration.str();
  id.platform_key = format_platform_key(device, settings);

  auto& d = id.details;
  d["device"] = std::to_string(device.ordinal);
  d["gpu"] = device.name;
  d["compute_capability"] = std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor);
  d["sm_count"] = std::to_string(device.sm_count);
  d["driver_cuda_version"] = format_cuda_version(device.driver_version);
  d["cuda_runtime"] = format_cuda_version(device.runtime_version);
  d["cublas"] = id.version;
  d["cublaslt"] = cublaslt_version();
  d["cublas_built_against"] = std::to_string(CUBLAS_VER_MAJOR) + "." +
                              std::to_string(CUBLAS_VER_MINOR) + "." +
                              std::to_string(CUBLAS_VER_PATCH);
  d["math_mode"] = std::string(to_string(settings.math_mode));
  d["reduced_precision_reduction"] = settings.reduced_precision_reduction ? "allowed" : "disallowed";
  d["atomics"] = settings.atomics ? "allowed" : "not allowed";
  d["emulation_strategy"] = std::string(to_string(settings.emulation));
  d["workspace"] = settings.workspace_bytes
                       ? std::to_string(*settings.workspace_bytes) + " bytes (cublasSetWorkspace)"
                       : "default (cuBLAS pool, see CUBLAS_WORKSPACE_CONFIG)";
  d["lt_workspace"] =
      std::to_string(settings.workspace_bytes.value_or(kDefaultLtWorkspaceBytes)) + " bytes";
  d["streams"] = "1 non-blocking stream per target";
  for (const char* name : kRelevantEnvironment) {
    if (const char* value = std::getenv(name)) d[std::string("env.") + name] = value;
  }
  return id;
}

class CublasInstance final : public BackendInstance {
 public:
  CublasInstance(InstanceSettings settings, DeviceDescription device)
      : settings_(settings), device_(std::move(device)), identity_(make_identity(device_, settings_)) {}

  Identity identity() const override { return identity_; }
  std::vector<ParamSpec> case_params() const override { return case_param_specs(); }

  void validate_case(const Params& params) const override { (void)parse_case(params, settings_); }

  std::unique_ptr<Target> make_target(const Params& params) const override {
    detail::TargetSetup setup;
    setup.config = parse_case(params, settings_);
    // A case this GPU cannot run at all (fp8 before sm89) is unavailable here, not wrong.
    if (auto reason = device_cannot_run(setup.config, device_)) throw BackendUnavailable(*reason);
    setup.traits = numeric_traits(setup.config, settings_);
    setup.settings = settings_;
    setup.device = device_;
    return detail::make_target(setup);
  }

 private:
  InstanceSettings settings_;
  DeviceDescription device_;
  Identity identity_;
};

}  // namespace

namespace detail {

std::unique_ptr<BackendInstance> open_instance(const InstanceSettings& settings) {
  DeviceQuery query = query_device(settings.device);
  if (!query.device) throw BackendUnavailable(query.reason);
  // cuBLAS itself must start on the device (it fails e.g. when the GPU is too old for it).
  const cudaError_t set = cudaSetDevice(settings.device);
  if (set != cudaSuccess) {
    (void)cudaGetLastError();
    throw BackendUnavailable("CUDA device " + std::to_string(settings.device) +
                             " unusable: cudaSetDevice failed with " + detail::describe(set));
  }
  cublasHandle_t handle = nullptr;
  const cublasStatus_t status = cublasCreate(&handle);
  if (status != CUBLAS_STATUS_SUCCESS)
    throw BackendUnavailable("cuBLAS cannot start on " + query.device->name +
                             ": cublasCreate failed with " + detail::describe(status));
  (void)cublasDestroy(handle);
  return std::make_unique<CublasInstance>(settings, *query.device);
}

}  // namespace detail
}  // namespace cublas
}  // namespace fprev
