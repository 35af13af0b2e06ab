// What both parts of the backend say about it (cuda_seam.hpp): its name, parameters and suite
// validation, without CUDA.
#include "cuda_seam.hpp"
#include "fprev/backends/cublas.hpp"

namespace fprev::cublas::detail {

std::string_view CublasBackendBase::name() const { return "cublas"; }

std::string_view CublasBackendBase::summary() const {
  return "cuBLAS and cuBLASLt on an NVIDIA GPU: dot, gemv, gemm, GemmEx and LtMatmul with "
         "float32/float64 and the Tensor Core formats float16, bfloat16, tf32, fp8";
}

std::vector<ParamSpec> CublasBackendBase::instance_params() const { return instance_param_specs(); }

std::vector<ParamSpec> CublasBackendBase::case_params() const { return case_param_specs(); }

void CublasBackendBase::validate_case(const Params& resolved) const {
  (void)parse_case(resolved,
                   parse_instance_settings(resolve_params(instance_param_specs(), {}, "cublas")));
}

}  // namespace fprev::cublas::detail
