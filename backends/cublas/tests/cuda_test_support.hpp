// Helpers for the cuBLAS backend tests. GPU tests start with
//   if (!fprev_cuda_device_available()) GTEST_SKIP() << fprev_cuda_skip_reason();
// so that without a GPU they are reported as skipped, never as passed.
#pragma once

#include <cstdlib>
#include <string>

#include "fprev/backend.hpp"
#include "fprev/backends/cublas.hpp"

// These tests load the CUDA module on machines without an NVIDIA driver too, to test the loading
// and the runtime's answer: the cheap driver check that keeps `env` from loading it is turned off
// (set before main(), before any query; the real environment wins when it sets the variable).
inline const bool fprev_cuda_tests_load_the_module = setenv("FPREV_SKIP_GPU_DRIVER_CHECK", "1", 0) == 0;

inline const fprev::cublas::DeviceQuery& fprev_cuda_query() {
  static const fprev::cublas::DeviceQuery query = fprev::cublas::query_cuda_device(0);
  return query;
}

inline bool fprev_cuda_device_available() { return fprev_cuda_query().device.has_value(); }

inline std::string fprev_cuda_skip_reason() { return fprev_cuda_query().reason; }

// The cublas backend from the registry every build carries.
inline const fprev::Backend& cublas_backend() {
  const fprev::Backend* backend = fprev::builtin_backends().find("cublas");
  if (backend == nullptr) throw std::runtime_error("the cublas backend is not registered");
  return *backend;
}

// Instance and case parameters resolved the way the runner resolves them.
inline fprev::cublas::InstanceSettings settings_from(const fprev::Params& params) {
  return fprev::cublas::parse_instance_settings(
      fprev::resolve_params(fprev::cublas::instance_param_specs(), params, "test"));
}

inline fprev::cublas::CaseConfig case_from(const fprev::Params& params,
                                           const fprev::Params& instance = {}) {
  return fprev::cublas::parse_case(
      fprev::resolve_params(fprev::cublas::case_param_specs(), params, "test"),
      settings_from(instance));
}
