#include "real_symbol.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>

namespace fprev_trace {
namespace {

struct Search {
  const char* name;
  void* self;
  void* found;
};

// Looks the symbol up in each loaded object's own scope, skipping the interposer.
int search_object(struct dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
  void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return 0;
  void* symbol = dlsym(handle, search->name);
  dlclose(handle);
  if (symbol == nullptr || symbol == search->self) return 0;
  search->found = symbol;
  return 1;
}

}  // namespace

void* RealSymbol::resolve(void* caller, void* self) {
  if (!global_tried_.load(std::memory_order_acquire)) {
    void* real = dlsym(RTLD_NEXT, name_);
    if (real == self) real = nullptr;
    global_.store(real, std::memory_order_relaxed);
    global_tried_.store(true, std::memory_order_release);
  }
  if (void* real = global_.load(std::memory_order_relaxed)) return real;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int i = 0; i < used_; ++i)
      if (cached_[i].caller == caller) return cached_[i].real;
  }
  void* real = from_caller_scope(caller, self);
  if (real == nullptr) real = from_any_object(self);
  if (real == nullptr) {
    std::fprintf(stderr, "fprev-golden trace: %s was called, but no loaded library defines it\n", name_);
    std::abort();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (used_ < kCached) cached_[used_++] = {caller, real};
  return real;
}

void* RealSymbol::from_caller_scope(void* caller, void* self) const {
  Dl_info info{};
  if (dladdr(caller, &info) == 0 || info.dli_fname == nullptr || info.dli_fname[0] == '\0') return nullptr;
  void* handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  void* real = dlsym(handle, name_);
  dlclose(handle);
  return real == self ? nullptr : real;
}

void* RealSymbol::from_any_object(void* self) const {
  Search search{name_, self, nullptr};
  dl_iterate_phdr(search_object, &search);
  return search.found;
}

}  // namespace fprev_trace
