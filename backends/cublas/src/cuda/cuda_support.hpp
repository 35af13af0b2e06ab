// Error checking and RAII owners for the CUDA runtime, cuBLAS and cuBLASLt objects the targets
// use. Every failing call becomes a fprev::TargetError naming the function and the status.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
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

// Owning CUDA memory; `Allocator` supplies allocate(bytes) -> void* (throwing TargetError) and
// release(void*) (errors cannot be reported from a destructor).
template <class Allocator>
class CudaMemory {
 public:
  CudaMemory() = default;
  explicit CudaMemory(std::size_t bytes) : bytes_(bytes) {
    if (bytes > 0) ptr_ = Allocator::allocate(bytes);
  }
  ~CudaMemory() { reset(); }
  CudaMemory(CudaMemory&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  CudaMemory& operator=(CudaMemory&& other) noexcept {
    if (this != &other) {
      reset();
      ptr_ = std::exchange(other.ptr_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  CudaMemory(const CudaMemory&) = delete;
  CudaMemory& operator=(const CudaMemory&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void reset() {
    if (ptr_ != nullptr) Allocator::release(ptr_);
    ptr_ = nullptr;
  }
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

struct DeviceAllocator {  // cudaMalloc: 256-byte aligned, as cuBLAS and cuBLASLt want it
  static void* allocate(std::size_t bytes);
  static void release(void* ptr);
};
struct PinnedAllocator {  // cudaMallocHost: page-locked, so copies are DMA transfers on our stream
  static void* allocate(std::size_t bytes);
  static void release(void* ptr);
};
using DeviceMemory = CudaMemory<DeviceAllocator>;
using PinnedMemory = CudaMemory<PinnedAllocator>;

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
