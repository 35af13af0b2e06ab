#include "cuda_support.hpp"

#include <utility>

namespace fprev::cublas::detail {

std::string describe(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) + ")";
}

std::string describe(cublasStatus_t status) {
  return std::string(cublasGetStatusName(status)) + " (" + cublasGetStatusString(status) + ")";
}

void throw_cuda_error(cudaError_t error, const char* function) {
  // Clear the non-sticky error state so that the next, unrelated call does not report it again.
  (void)cudaGetLastError();
  throw TargetError(std::string(function) + " failed: " + describe(error));
}

void throw_cublas_error(cublasStatus_t status, const char* function) {
  throw TargetError(std::string(function) + " failed: " + describe(status));
}

// ---- memory ------------------------------------------------------------------------------------

void* DeviceAllocator::allocate(std::size_t bytes) {
  void* ptr = nullptr;
  check(cudaMalloc(&ptr, bytes), "cudaMalloc");
  return ptr;
}
void DeviceAllocator::release(void* ptr) { (void)cudaFree(ptr); }

void* PinnedAllocator::allocate(std::size_t bytes) {
  void* ptr = nullptr;
  check(cudaMallocHost(&ptr, bytes), "cudaMallocHost");
  return ptr;
}
void PinnedAllocator::release(void* ptr) { (void)cudaFreeHost(ptr); }

// ---- handles -----------------------------------------------------------------------------------

void destroy_stream(cudaStream_t stream) { (void)cudaStreamDestroy(stream); }
void destroy_cublas(cublasHandle_t handle) { (void)cublasDestroy(handle); }
void destroy_lt(cublasLtHandle_t handle) { (void)cublasLtDestroy(handle); }
void destroy_lt_matmul_desc(cublasLtMatmulDesc_t desc) { (void)cublasLtMatmulDescDestroy(desc); }
void destroy_lt_layout(cublasLtMatrixLayout_t layout) { (void)cublasLtMatrixLayoutDestroy(layout); }
void destroy_lt_preference(cublasLtMatmulPreference_t preference) {
  (void)cublasLtMatmulPreferenceDestroy(preference);
}

Stream make_stream() {
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return Stream(stream);
}

CublasHandle make_cublas_handle() {
  cublasHandle_t handle = nullptr;
  check(cublasCreate(&handle), "cublasCreate");
  return CublasHandle(handle);
}

LtHandle make_lt_handle() {
  cublasLtHandle_t handle = nullptr;
  check(cublasLtCreate(&handle), "cublasLtCreate");
  return LtHandle(handle);
}

}  // namespace fprev::cublas::detail
