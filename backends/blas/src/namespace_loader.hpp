// Loading a second copy of a shared library into a fresh link-map namespace (dlmopen) whose C
// library sees an environment of our making (internal to the blas backend).
//
// OpenBLAS reads OPENBLAS_CORETYPE when it is loaded and BLIS reads BLIS_ARCH_TYPE at its first
// call, each once per copy: a copy per kernel family, each with its own environment, lets several
// families run in one process. A copy's C library keeps pointing at the environment block it was
// started with, so the block is never freed (it lives as long as the copy, which is never unloaded)
// and the process's own environment is never modified (setenv could reallocate the array a copy
// still reads).
#pragma once

#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace fprev::blas::detail {

class PrivateEnvironment {
 public:
  // The process's environment with `overrides` set (replacing the process's values) and
  // `removed` left out. Owned by nobody: see above.
  static PrivateEnvironment& create(
      const std::vector<std::pair<std::string, std::string>>& overrides,
      const std::vector<std::string>& removed);

  char** block() { return block_.data(); }
  // Sets one more variable after the copy was loaded, for a library that reads it at its first
  // call (BLIS). At most once, before the copy runs anything.
  void add_late(const std::string& name, const std::string& value);

 private:
  PrivateEnvironment() = default;
  std::deque<std::string> entries_;  // "NAME=value"; a deque never moves what it holds
  std::vector<char*> block_;         // entries, a spare slot, the terminating null
  std::size_t spare_ = 0;
};

// dlmopen(LM_ID_NEWLM, path) with `environment` as the environment the new namespace's C library
// starts with. Returns the handle, or nullptr with dlerror()'s text in `error`.
void* open_in_new_namespace(const std::string& path, PrivateEnvironment& environment,
                            std::string* error);

}  // namespace fprev::blas::detail
