// The engine's only door to a target: batches probes up to the target's max_batch (single-output
// targets) or places them on the rows or columns of a grid target, times every call, decodes and
// validates every output. Algorithms above it deal in l(i,j) values, never raw floats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fprev/mask_scheme.hpp"
#include "fprev/reveal.hpp"
#include "fprev/target.hpp"

namespace fprev::detail {

// One l(i,j) measurement request: +M at `plus`, -M at `minus`, units on `background`.
struct ProbeRequest {
  std::uint32_t plus;
  std::uint32_t minus;
  const Background* background;
  std::uint32_t active_count;  // active leaves of the background, plus and minus included
};

// l = active leaves under LCA(plus, minus). A saturated output only tells that l is small:
// l <= active_count - exact_count_limit.
struct Measurement {
  std::uint32_t l;
  bool saturated;
};

class ProbeSession {
 public:
  ProbeSession(Target& target, const MaskScheme& scheme, const RevealOptions& options,
               RevealStats& stats);

  const TargetInfo& info() const { return info_; }
  const MaskScheme& scheme() const { return scheme_; }
  std::size_t leaves() const { return info_.n; }

  // The background with every leaf active (shared by all-active probes).
  const Background* all_active() const { return &all_active_; }
  static Background restricted(std::vector<std::uint32_t> active);

  // Single-output targets: measures every request, in as few target calls as the batch allows.
  void measure(std::span<const ProbeRequest> requests, std::span<Measurement> out);

  // Grid targets: one call with request p on row (or column) p, lines.size() <= the lines of the
  // grid; `out` receives every element's measurement, row-major (elements of idle lines: {0, true}
  // and never read). Every element of a used line is decoded and validated; a bad one fails with its
  // position.
  void measure_grid(Placement placement, std::span<const ProbeRequest> lines,
                    std::vector<Measurement>& out);

  // Evaluates arbitrary inputs (rows x n values of a, shared b), batched. Single-output targets.
  std::vector<double> evaluate_values(std::size_t rows, std::span<const double> a,
                                      std::span<const double> b);
  // Grid targets: one call with input p on row (or column) p, inputs <= the lines of the grid;
  // returns the whole grid, row-major.
  std::vector<double> evaluate_value_grid(Placement placement, std::size_t inputs,
                                          std::span<const double> a, std::span<const double> b);

  // Lines (rows or columns) of the grid for `placement`.
  std::size_t lines(Placement placement) const {
    return placement == Placement::rows ? info_.grid.rows : info_.grid.columns;
  }

  void report_progress(std::size_t leaves_placed);

 private:
  struct GridElement {
    std::size_t row, column;
  };
  Measurement decode(const ProbeRequest& request, double output,
                     const GridElement* element = nullptr) const;
  void call_target(const ProbeBatch& batch, std::span<double> outputs, const ProbeRequest& first);
  void call_values(const ValueBatch& values, std::span<double> outputs);

  Target& target_;
  TargetInfo info_;
  MaskScheme scheme_;
  const RevealOptions& options_;
  RevealStats& stats_;
  Background all_active_;
  // reusable buffers
  std::vector<Probe> probes_;
  std::vector<const Background*> backgrounds_;
  std::vector<double> outputs_;
};

// A double with all its digits ("0.25000000000000006").
std::string format_double(double v);

// Formats "A^{3,7} (+M at leaf 3, -M at leaf 7, 998 active leaves)".
std::string describe_probe(std::uint32_t plus, std::uint32_t minus, std::uint32_t active_count);

[[noreturn]] void fail(Finding finding, std::string message, std::string probe = {},
                       std::optional<double> raw_output = std::nullopt,
                       std::string likely_cause = {});

}  // namespace fprev::detail
