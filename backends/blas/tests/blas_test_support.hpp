// Helpers for the blas backend's tests: opening instances of the installed libraries and of the
// toy library, and summation trees written down from a routine's source.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/blas/blas_backend.hpp"
#include "fprev/blas/platform.hpp"
#include "fprev/tree.hpp"

namespace fprev::blas::testing {

// The toy BLAS built next to the tests (tests/toy/toy_blas.cpp), by absolute path.
inline std::string toy_library() { return FPREV_BLAS_TOY_LIBRARY; }
// A stand-in for a DYNAMIC_ARCH OpenBLAS with known forced families (tests/toy/fake_openblas.cpp).
inline std::string fake_openblas() { return FPREV_BLAS_FAKE_OPENBLAS; }

// tests/data/<name>: /proc/cpuinfo files of other hosts (AMD EPYC Zen 4, Intel Xeon Sapphire
// Rapids, an AVX2-only AMD EPYC Zen 3).
inline std::string test_data(const std::string& name) {
  return std::string(FPREV_BLAS_TEST_DATA) + "/" + name;
}
inline CpuDescription cpu_from_file(const std::string& name) {
  std::ifstream in(test_data(name));
  if (!in) throw std::runtime_error("cannot read " + test_data(name));
  std::ostringstream text;
  text << in.rdbuf();
  return describe_cpu_from(text.str(), "x86_64");
}

inline const Backend& blas_backend() {
  const Backend* backend = builtin_backends().find("blas");
  if (backend == nullptr) throw std::runtime_error("the blas backend is not registered");
  return *backend;
}

// Opens `library` with `threads`, ignoring any FPREV_BLAS_LIBRARY of the caller's environment.
inline std::unique_ptr<BackendInstance> open_blas(const std::string& library, int threads = 1) {
  unsetenv(kLibraryEnvironmentVariable);
  return blas_backend().open({{"library", library}, {"threads", std::to_string(threads)}});
}

// BLIS and the netlib reference BLAS are test dependencies (the CI installs them); OpenBLAS is
// the product's default and must be there.
#define FPREV_OPEN_OR_SKIP(var, library, threads)                                           \
  std::unique_ptr<::fprev::BackendInstance> var;                                            \
  try {                                                                                     \
    var = ::fprev::blas::testing::open_blas(library, threads);                              \
  } catch (const ::fprev::BackendUnavailable& unavailable) {                                \
    if (std::string(library) == "openblas") FAIL() << unavailable.what();                   \
    GTEST_SKIP() << library << " is not installed here: " << unavailable.what();            \
  }

// A sequential sum over the leaves in `order`: ((order[0] + order[1]) + order[2]) + ...
inline Tree sequential_tree(const std::vector<std::uint32_t>& order) {
  TreeBuilder builder(order.size());
  if (order.size() == 1) return builder.build();
  NodeId acc = builder.add_node({order[0], order[1]});
  for (std::size_t i = 2; i < order.size(); ++i) acc = builder.add_node({acc, order[i]});
  return builder.build();
}

inline std::vector<std::uint32_t> iota_order(std::size_t n, std::uint32_t first = 0) {
  std::vector<std::uint32_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = first + static_cast<std::uint32_t>(i);
  return order;
}

}  // namespace fprev::blas::testing
