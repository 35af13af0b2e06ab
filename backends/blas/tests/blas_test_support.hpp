// Helpers for the blas backend's tests: opening instances of the installed libraries and of the
// toy library, and summation trees written down from a routine's source.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <span>
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
// The toy BLAS with fused nodes (tests/toy/toy_fused_blas.cpp), by absolute path.
inline std::string toy_fused_library() { return FPREV_BLAS_TOY_FUSED_LIBRARY; }
// The toy BLAS whose order depends on where the data lies (tests/toy/toy_peel_blas.cpp).
inline std::string toy_peel_library() { return FPREV_BLAS_TOY_PEEL_LIBRARY; }
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

// Case parameters with the backend's defaults applied.
inline Params resolved(const BackendInstance& instance, const Params& params) {
  return resolve_params(instance.case_params(), params, "test case");
}

// Opens `library` with `threads`, ignoring any FPREV_BLAS_LIBRARY of the caller's environment.
inline std::unique_ptr<BackendInstance> open_blas(const std::string& library, int threads = 1) {
  unsetenv(kLibraryEnvironmentVariable);
  return blas_backend().open({{"library", library}, {"threads", std::to_string(threads)}});
}

// OpenBLAS forced to one kernel family, so that a test's expectations do not depend on the family
// OpenBLAS would pick for this machine's CPU. Sandybridge (AVX) runs on every x86-64 CI machine.
inline std::unique_ptr<BackendInstance> open_openblas_family(const std::string& kernel = "Sandybridge",
                                                             int threads = 1) {
  unsetenv(kLibraryEnvironmentVariable);
  return blas_backend().open(
      {{"library", "openblas"}, {"kernel", kernel}, {"threads", std::to_string(threads)}});
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

// One evaluate() call, answered per input: for a grid target every element of the input's line
// (row p or column p of the grid), for a single-output target its one output.
inline std::vector<std::vector<double>> per_input(const TargetInfo& info, Placement placement,
                                                  std::size_t inputs,
                                                  const std::vector<double>& outputs) {
  std::vector<std::vector<double>> answers(inputs);
  if (!info.is_grid()) {
    for (std::size_t p = 0; p < inputs; ++p) answers[p].push_back(outputs[p]);
    return answers;
  }
  const std::size_t columns = info.grid.columns;
  for (std::size_t r = 0; r < info.grid.rows; ++r)
    for (std::size_t c = 0; c < columns; ++c) {
      const std::size_t line = placement == Placement::rows ? r : c;
      if (line < inputs) answers[line].push_back(outputs[r * columns + c]);
    }
  return answers;
}

// Inputs one call takes: the lines of the grid for `placement`, or max_batch.
inline std::size_t inputs_per_call(const TargetInfo& info, Placement placement) {
  if (!info.is_grid()) return info.max_batch;
  return placement == Placement::rows ? info.grid.rows : info.grid.columns;
}

inline std::vector<std::vector<double>> run_probes(Target& target, const ProbeValues& values,
                                                   std::span<const Background* const> backgrounds,
                                                   std::span<const Probe> probes,
                                                   Placement placement = Placement::rows) {
  ProbeBatch batch{&values, backgrounds, probes, placement};
  const TargetInfo& info = target.info();
  std::vector<double> out(info.is_grid() ? info.grid.size() : probes.size());
  target.evaluate(batch, out);
  return per_input(info, placement, probes.size(), out);
}

inline std::vector<std::vector<double>> run_values(Target& target, std::size_t inputs,
                                                   std::span<const double> a,
                                                   std::span<const double> b,
                                                   Placement placement = Placement::rows) {
  ValueBatch batch;
  batch.rows = inputs;
  batch.a = a;
  batch.b = b;
  batch.placement = placement;
  const TargetInfo& info = target.info();
  std::vector<double> out(info.is_grid() ? info.grid.size() : inputs);
  target.evaluate(batch, out);
  return per_input(info, placement, inputs, out);
}

}  // namespace fprev::blas::testing
