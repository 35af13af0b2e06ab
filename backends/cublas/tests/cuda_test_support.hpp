// Helpers for the cuBLAS backend tests. GPU tests start with
//   if (!fprev_cuda_device_available()) GTEST_SKIP() << fprev_cuda_skip_reason();
// so that without a GPU they are reported as skipped, never as passed.
#pragma once

#include <string>

#include "fprev/backend.hpp"
#include "fprev/backends/cublas.hpp"

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
