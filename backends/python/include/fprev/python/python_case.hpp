// The python backend's cases and settings, checked in the gate before any interpreter starts:
// op sum|dot|gemv|gemm, dtype, shapes and transposes with FPRev's conventions (x.sum(), x @ y,
// A @ x or x @ A, A @ B with the transposes), and the instance settings that decide what the
// worker's environment must hold before the library loads.
#pragma once

#include <string>
#include <vector>

#include "fprev/backend.hpp"

namespace fprev::python {

std::vector<ParamSpec> case_param_specs();
// Throws ConfigError naming the parameter (one that does not apply to the op, a missing shape, a
// case too large to reveal).
void check_case(const Params& resolved);

std::vector<ParamSpec> instance_param_specs();

// What is wrong with a `function:` value ("" when it is package.module:callable): a file path
// (mysums.py:total, ./mysums.py) gets the module form to write instead.
std::string function_spec_problem(const std::string& spec);

// The settings of one instance, resolved and checked against each other.
struct Settings {
  std::string python;       // the interpreter
  bool python_named = false;  // not the default python3: unusable is a failure, never a skip
  std::string library;      // numpy, torch, jax, cupy
  std::string function;     // package.module:callable, or empty
  std::string capability;   // torch: default, avx2, avx512; empty: ATen's own choice
  std::string blas_kernel;  // an OpenBLAS kernel family (blas `kernel` names), or empty
  int threads = 1;
  std::string device;       // cpu, cuda
};
Settings parse_settings(const Params& given);

// The CPU features ATen's dispatch needs for a capability (ATen's cpuinfo checks).
std::vector<std::string> capability_needs(const std::string& capability);

}  // namespace fprev::python
