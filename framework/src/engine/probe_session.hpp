// The engine's only door to a target: batches probes up to the target's max_batch (single-output
// targets) or places them on the rows or columns of a grid target, times every call, decodes and
// validates every output. Algorithms above it deal in l(i,j) values, never raw floats.
//
// Probe streams (RevealOptions::streams): a large set of requests on a single-output target is
// split into contiguous runs of whole batches, one per stream, each measured on its own target
// instance and buffers on its own thread. Each request's measurement depends only on the request,
// and the split keeps batch boundaries, so the measurements, probes and target calls are those of
// the serial loop; a failure rethrown is the one of the earliest failing request.
#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fprev/mask_scheme.hpp"
#include "fprev/reveal.hpp"
#include "fprev/target.hpp"
#include "stream_pool.hpp"

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
  ~ProbeSession();
  ProbeSession(const ProbeSession&) = delete;
  ProbeSession& operator=(const ProbeSession&) = delete;

  const TargetInfo& info() const { return info_; }
  const MaskScheme& scheme() const { return scheme_; }
  std::size_t leaves() const { return info_.n; }

  // The background with every leaf active (shared by all-active probes).
  const Background* all_active() const { return &all_active_; }
  static Background restricted(std::vector<std::uint32_t> active);

  // Single-output targets: measures every request, in as few target calls as the batch allows.
  void measure(std::span<const ProbeRequest> requests, std::span<Measurement> out);

  // Single-output targets with TargetInfo::extra_masks: probes with every leaf active, +-M of
  // `values` on their plus and minus leaves and further masks (probe k: extras[extra_begin[k],
  // extra_begin[k + 1])), in as few calls as the batch allows, on the caller's target. Returns the
  // raw outputs (the multi-pair proof decodes them against its own prediction).
  std::vector<double> measure_with_extras(const ProbeValues& values, std::span<const Probe> probes,
                                          std::span<const std::uint32_t> extra_begin,
                                          std::span<const ExtraMask> extras);

  // Grid targets: one call with request p on row (or column) p, lines.size() <= the lines of the
  // grid; `out` receives every element's measurement, row-major (elements of idle lines: {0, true}
  // and never read). Every element of a used line is decoded and validated; a bad one fails with its
  // position.
  void measure_grid(Placement placement, std::span<const ProbeRequest> lines,
                    std::vector<Measurement>& out);

  // Evaluates arbitrary inputs (rows x n values of a, shared b), batched. Single-output targets.
  std::vector<double> evaluate_values(std::size_t rows, std::span<const double> a,
                                      std::span<const double> b);
  // What a value call's inputs are for the stats: values (RevealStats::random_inputs), or probes
  // written as values (the pair grid's masks, which its caller counts as such).
  enum class ValueInputs : std::uint8_t { values, probes };
  // Grid targets: one call with input p on row (or column) p, inputs <= the lines of the grid;
  // returns the whole grid, row-major. `column_factors`: ValueBatch::column_factors.
  std::vector<double> evaluate_value_grid(Placement placement, std::size_t inputs,
                                          std::span<const double> a, std::span<const double> b,
                                          std::span<const std::uint32_t> column_factors = {},
                                          ValueInputs kind = ValueInputs::values);

  // Lines (rows or columns) of the grid for `placement`.
  std::size_t lines(Placement placement) const {
    return placement == Placement::rows ? info_.grid.rows : info_.grid.columns;
  }

  void report_progress(std::size_t leaves_placed);
  // The probes the progress line expects (the cost model's by default): a confirmation knows its
  // count exactly.
  void expect_probes(std::size_t probes) { probes_expected_ = probes; }
  // Throws RevealOverBudget once RevealOptions::max_seconds have passed since the session began.
  void check_budget() const;

 private:
  struct GridElement {
    std::size_t row, column;
  };
  // A target with its own buffers and counters: the caller's (stream 0, counting into the
  // session's stats) or a worker's.
  struct Stream {
    Target* target = nullptr;
    std::unique_ptr<Target> owned;  // workers: made by RevealOptions::make_worker
    RevealStats* stats = nullptr;
    RevealStats own_stats;
    std::vector<Probe> probes;
    std::vector<const Background*> backgrounds;
    std::vector<ProbeBatch> calls;
    std::vector<double> outputs;
    double seconds_per_call = 0.0;  // measured on this stream's runs (0: not yet)
  };

  Measurement decode(const ProbeRequest& request, double output,
                     const GridElement* element = nullptr) const;
  void call_target(Stream& stream, const ProbeBatch& batch, std::span<double> outputs,
                   const ProbeRequest& first);
  // Value calls in one run; returns the seconds it took.
  double call_values(std::span<const ValueBatch> calls, std::span<double> outputs,
                     ValueInputs kind = ValueInputs::values);
  // What the target threw, as the engine's diagnostic (`first`: the probe of the failing call).
  [[noreturn]] static void rethrow_target_failure(std::exception_ptr error, const ProbeRequest* first);
  // How many calls of a wave go to the target in one run, from the stream's measured call time.
  static std::size_t calls_per_run(const Stream& stream);
  static void note_run(Stream& stream, std::size_t calls, double seconds);
  // Measures requests in batches on one stream; stream 0 also reports progress.
  void measure_on(Stream& stream, std::span<const ProbeRequest> requests, std::span<Measurement> out);
  // How many streams a set of `requests` probes is worth splitting over (1: serial).
  std::size_t streams_for(std::size_t requests) const;
  void start_streams();
  void merge_stream_stats(std::size_t count);
  void maybe_report_progress();

  Target& target_;
  TargetInfo info_;
  MaskScheme scheme_;
  const RevealOptions& options_;
  RevealStats& stats_;
  Background all_active_;
  std::chrono::steady_clock::time_point start_;
  std::vector<Stream> streams_;  // [0]: the caller's target; workers made on the first large wave
  std::unique_ptr<StreamPool> pool_;
  std::atomic<std::size_t> probes_measured_{0};  // by every stream, for progress within a wave
  std::chrono::steady_clock::time_point last_progress_;
  std::size_t leaves_placed_ = 0;
  std::size_t wave_base_ = 0;
  std::size_t probes_expected_ = 0;  // the cost model's, for progress  // probes counted in stats_ before the current measure()
  // reusable buffers (grid calls, on the caller's target)
  std::vector<Probe> probes_;
  std::vector<const Background*> backgrounds_;
  std::vector<double> outputs_;
  struct LastDecode {  // measure_grid: a line's last raw output and its decode
    double raw = 0.0;
    Measurement value{0, true};
    bool valid = false;
  };
  std::vector<LastDecode> last_decodes_;
};

// A double with all its digits ("0.25000000000000006").
std::string format_double(double v);

// Formats "A^{3,7} (+M at leaf 3, -M at leaf 7, 998 active leaves)".
std::string describe_probe(std::uint32_t plus, std::uint32_t minus, std::uint32_t active_count);

// Another instance of the target `info` describes, from options.make_worker (probe streams, the
// placement check's lanes); fails with target_fault or target_error when it cannot be made or is
// not the same target (other n or batch). Call it on the caller's thread: a backend's make_target
// need not be thread-safe.
std::unique_ptr<Target> make_another_instance(const RevealOptions& options, const TargetInfo& info);

[[noreturn]] void fail(Finding finding, std::string message, std::string probe = {},
                       std::optional<double> raw_output = std::nullopt,
                       std::string likely_cause = {});

}  // namespace fprev::detail
