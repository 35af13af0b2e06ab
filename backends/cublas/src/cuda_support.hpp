// Error checking and RAII owners for the CUDA runtime, cuBLAS and cuBLASLt objects the targets
// use. Every failing call becomes a fprev::TargetError naming the function and the status.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>

#include "fprev/target.hpp"

namespace fprev::cublas::detail {

[[noreturn]] void throw_cuda_error(cudaError_t error, const char* function);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* function);

// `function` is the API function's name, e.g. "cublasGemmEx".
inline void check(cudaError_t error, const char* function) {
  if (error != cudaSuccess) throw_cuda_error(error, function);
}
inline void check(cublasStatus_t status, const char* function) {
  if (status != CUBLAS_STATUS_SUCCESS) throw_cublas_error(status, function);
}

// "cudaErrorNoDevice (no CUDA-capable device is detected)"
std::string describe(cudaError_t error);
// "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not supported)"
std::string describe(cublasStatus_t status);

// ---- memory ------------------------------------------------------------------------------------

// Device memory from cudaMalloc (256-byte aligned, as cuBLAS and cuBLASLt want it).
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t bytes);
  ~DeviceMemory();
  DeviceMemory(DeviceMemory&& other) noexcept;
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Page-locked host memory (cudaMallocHost) so copies are true DMA transfers on our stream.
class PinnedMemory {
 public:
  PinnedMemory() = default;
  explicit PinnedMemory(std::size_t bytes);
  ~PinnedMemory();
  PinnedMemory(PinnedMemory&& other) noexcept;
  PinnedMemory& operator=(PinnedMemory&& other) noexcept;
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// ---- handles -----------------------------------------------------------------------------------

template <class Handle, void (*destroy)(Handle)>
struct HandleDeleter {
  void operator()(Handle handle) const {
    if (handle != nullptr) destroy(handle);
  }
};
template <class Handle, void (*destroy)(Handle)>
using Owned = std::unique_ptr<std::remove_pointer_t<Handle>, HandleDeleter<Handle, destroy>>;

void destroy_stream(cudaStream_t stream);
void destroy_cublas(cublasHandle_t handle);
void destroy_lt(cublasLtHandle_t handle);
void destroy_lt_matmul_desc(cublasLtMatmulDesc_t desc);
void destroy_lt_layout(cublasLtMatrixLayout_t layout);
void destroy_lt_preference(cublasLtMatmulPreference_t preference);

using Stream = Owned<cudaStream_t, destroy_stream>;
using CublasHandle = Owned<cublasHandle_t, destroy_cublas>;
using LtHandle = Owned<cublasLtHandle_t, destroy_lt>;
using LtMatmulDesc = Owned<cublasLtMatmulDesc_t, destroy_lt_matmul_desc>;
using LtLayout = Owned<cublasLtMatrixLayout_t, destroy_lt_layout>;
using LtPreference = Owned<cublasLtMatmulPreference_t, destroy_lt_preference>;

// A non-blocking stream of its own: the target never synchronises with other work in the process.
Stream make_stream();
CublasHandle make_cublas_handle();
LtHandle make_lt_handle();

}  // namespace fprev::cublas::detail
