// A zero-initialised array aligned to 64 bytes (a cache line, an AVX-512 vector): the alignment a
// careful application gives its matrices, so a kernel that peels unaligned heads takes the same
// path on every run.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace fprev::blas {

template <class T>
class AlignedBuffer {
 public:
  static constexpr std::size_t kAlignment = 64;

  explicit AlignedBuffer(std::size_t size) : size_(size), data_(allocate(size)) {
    std::fill(data_.get(), data_.get() + size_, T{});
  }

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  static T* allocate(std::size_t size) {
    std::size_t bytes = std::max<std::size_t>(size, 1) * sizeof(T);
    bytes = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    void* p = std::aligned_alloc(kAlignment, bytes);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }

  std::size_t size_;
  std::unique_ptr<T[], Free> data_;
};

}  // namespace fprev::blas
