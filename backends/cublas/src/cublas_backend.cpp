// The "cublas" backend as the registry sees it: its parameters, suite validation and open(). This
// part needs no CUDA headers and is in every build, so suites naming `use: cublas` load, validate
// and list the same cases on every machine; opening an instance goes through cuda_seam.hpp to the
// CUDA half (src/cuda/) or, in a build without the toolkit, to src/no_cuda/, which says why not.
#include <memory>

#include "cuda_seam.hpp"
#include "fprev/backends/cublas.hpp"

namespace fprev {
namespace cublas {
namespace {

class CublasBackend final : public Backend {
 public:
  std::string_view name() const override { return "cublas"; }
  std::string_view summary() const override {
    return "cuBLAS and cuBLASLt on an NVIDIA GPU: dot, gemv, gemm, GemmEx and LtMatmul with "
           "float32/float64 and the Tensor Core formats float16, bfloat16, tf32, fp8";
  }
  std::vector<ParamSpec> instance_params() const override { return instance_param_specs(); }

  // Suites are validated without opening an instance (there may be no GPU, or no CUDA toolkit, on
  // the machine that checks them): the case parameters and their combinations do not depend on
  // the device.
  std::vector<ParamSpec> case_params() const override { return case_param_specs(); }
  void validate_case(const Params& resolved) const override {
    (void)parse_case(resolved, parse_instance_settings(resolve_params(instance_param_specs(), {},
                                                                      "cublas")));
  }

  std::unique_ptr<BackendInstance> open(const Params& params) const override {
    // Settings first: a bad setting is a ConfigError on every machine, GPU and toolkit or not.
    const InstanceSettings settings =
        parse_instance_settings(resolve_params(instance_param_specs(), params, "cublas"));
    return detail::open_instance(settings);
  }
};

}  // namespace
}  // namespace cublas

void register_cublas_backend(BackendRegistry& registry) {
  registry.add(std::make_unique<cublas::CublasBackend>());
}

}  // namespace fprev
