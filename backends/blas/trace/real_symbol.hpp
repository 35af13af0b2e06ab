// Finding the real BLAS routine behind one of the interposer's symbols.
//
// dlsym(RTLD_NEXT) finds it when the BLAS is in the global scope (a program linked to it). A BLAS
// that came in as a dependency of a library opened with RTLD_LOCAL (NumPy's extension modules
// under Python, which link libblas.so.3) is not in the global scope: there the symbol is looked up
// in the scope of the object that made the call (dladdr of the return address, dlsym on its
// handle), which is what the dynamic linker would have bound that call to without the interposer.
#pragma once

#include <atomic>
#include <mutex>

namespace fprev_trace {

class RealSymbol {
 public:
  constexpr explicit RealSymbol(const char* name) : name_(name) {}
  // The real routine for a call made from `caller`, never `self` (the interposer's own
  // definition); aborts with a message when there is none (the program called a BLAS routine
  // that no loaded library defines).
  void* resolve(void* caller, void* self);
  const char* name() const { return name_; }

 private:
  void* from_caller_scope(void* caller, void* self) const;
  void* from_any_object(void* self) const;

  const char* name_;
  std::atomic<void*> global_{nullptr};
  std::atomic<bool> global_tried_{false};
  struct Cached {
    void* caller = nullptr;
    void* real = nullptr;
  };
  static constexpr int kCached = 16;
  std::mutex mutex_;
  Cached cached_[kCached];
  int used_ = 0;
};

}  // namespace fprev_trace
