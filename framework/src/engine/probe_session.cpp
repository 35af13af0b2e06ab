#include "probe_session.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <sstream>

#include "fprev/cost_estimate.hpp"

namespace fprev::detail {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kRanksDisagreeCause =
    "the ranks reduce in different orders (each rank runs its own reduction tree), so the result "
    "depends on the rank that reads it";

}  // namespace

std::string format_double(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string describe_probe(std::uint32_t plus, std::uint32_t minus, std::uint32_t active_count) {
  std::ostringstream os;
  os << "A^{" << plus << "," << minus << "} (+M at leaf " << plus << ", -M at leaf " << minus
     << ", " << active_count << " active leaves)";
  return os.str();
}

void fail(Finding finding, std::string message, std::string probe, std::optional<double> raw_output,
          std::string likely_cause) {
  Diagnostic d;
  d.finding = finding;
  d.message = std::move(message);
  d.probe = std::move(probe);
  d.raw_output = raw_output;
  d.likely_cause = std::move(likely_cause);
  throw RevealFailure(std::move(d));
}

ProbeSession::ProbeSession(Target& target, const MaskScheme& scheme, const RevealOptions& options,
                           RevealStats& stats)
    : target_(target),
      info_(target.info()),
      scheme_(scheme),
      options_(options),
      stats_(stats),
      start_(Clock::now()),
      last_progress_(start_) {
  all_active_.id = Background::next_id();
  all_active_.all_active = true;
  probes_expected_ = model_probe_count(info_.n, options_.algorithm).expected;
  streams_.resize(1);
  streams_[0].target = &target_;
  streams_[0].stats = &stats_;
}

// The pool's threads are joined before the workers' targets go.
ProbeSession::~ProbeSession() { pool_.reset(); }

void ProbeSession::check_budget() const {
  if (options_.max_seconds <= 0.0) return;
  const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  if (seconds > options_.max_seconds)
    throw RevealOverBudget(options_.max_seconds, seconds, wave_base_ + probes_measured_.load());
}

Background ProbeSession::restricted(std::vector<std::uint32_t> active) {
  Background b;
  b.id = Background::next_id();
  b.all_active = false;
  b.active = std::move(active);
  return b;
}

Measurement ProbeSession::decode(const ProbeRequest& request, double output,
                                 const GridElement* element) const {
  const DecodedOutput decoded = decode_output(scheme_, output);
  const std::uint64_t max_count = request.active_count - 2;  // units other than the two masks
  const auto probe = [&] {
    std::string text = describe_probe(request.plus, request.minus, request.active_count);
    if (element != nullptr)
      text += " at output element (" + std::to_string(element->row) + ", " +
              std::to_string(element->column) + ")";
    return text;
  };
  switch (decoded.status) {
    case DecodeStatus::non_finite:
      fail(Finding::non_finite_output,
           "the target returned a non-finite value where a count of unmasked units was expected",
           probe(), output,
           "the kernel overflows or produces NaN on large inputs (the masks are +-" +
               format_double(scheme_.values.plus.value()) + ")");
    case DecodeStatus::negative:
      fail(Finding::count_out_of_range, "the target returned a negative count of units", probe(),
           output, "the masks did not cancel exactly (M - M != 0): non-IEEE arithmetic");
    case DecodeStatus::not_whole:
      fail(Finding::not_whole_count,
           "the output is not a whole number of units (unit = " +
               format_double(scheme_.output_unit) + ")",
           probe(), output,
           "extra precision or a scaled result (alpha != 1), or a mask partially absorbed");
    case DecodeStatus::exact:
      if (decoded.count > max_count)
        fail(Finding::count_out_of_range,
             "the output counts " + std::to_string(decoded.count) + " units but only " +
                 std::to_string(max_count) + " are active",
             probe(), output, "the target adds some summands more than once, or ignores the input");
      return {static_cast<std::uint32_t>(request.active_count - decoded.count), false};
    case DecodeStatus::saturated:
      // A rounded count: only "at least exact_count_limit" is known. Allow the rounding slack.
      if (static_cast<double>(decoded.count) >
          static_cast<double>(max_count) * (1.0 + 1.0 / 64) + 1.0)
        fail(Finding::count_out_of_range,
             "the output counts about " + std::to_string(decoded.count) + " units but only " +
                 std::to_string(max_count) + " are active",
             probe(), output, "the target adds some summands more than once");
      if (max_count < scheme_.exact_count_limit)
        fail(Finding::count_out_of_range,
             "the output is beyond the exact counting range although only " +
                 std::to_string(max_count) + " units are active",
             probe(), output, "the target adds some summands more than once");
      return {0, true};
  }
  fail(Finding::inconsistent_structure, "unreachable decode status", probe(), output);
}

void ProbeSession::call_target(Stream& stream, const ProbeBatch& batch, std::span<double> outputs,
                               const ProbeRequest& first) {
  const auto start = Clock::now();
  try {
    stream.target->evaluate(batch, outputs);
  } catch (const BatchInconsistent& e) {
    fail(Finding::batch_inconsistent, e.what(),
         describe_probe(first.plus, first.minus, first.active_count), std::nullopt,
         "the rows or columns of one batched call follow different orders (an edge kernel) and "
         "the target compares them itself: expose it as a grid target so that the engine reveals "
         "an order map instead");
  } catch (const RanksDisagree& e) {
    fail(Finding::ranks_disagree, e.what(),
         describe_probe(first.plus, first.minus, first.active_count), std::nullopt,
         kRanksDisagreeCause);
  } catch (const TargetError& e) {
    fail(Finding::target_error, std::string("the target failed: ") + e.what(),
         describe_probe(first.plus, first.minus, first.active_count));
  }
  RevealStats& stats = *stream.stats;
  stats.target_seconds += std::chrono::duration<double>(Clock::now() - start).count();
  ++stats.target_calls;
  stats.probes += batch.probes.size();
}

void ProbeSession::measure_on(Stream& stream, std::span<const ProbeRequest> requests,
                              std::span<Measurement> out) {
  const std::size_t batch = std::max<std::size_t>(1, info_.max_batch);
  ProbeBatch probe_batch;
  probe_batch.values = &scheme_.values;
  for (std::size_t begin = 0; begin < requests.size(); begin += batch) {
    const std::size_t end = std::min(requests.size(), begin + batch);
    stream.probes.clear();
    stream.backgrounds.clear();
    for (std::size_t r = begin; r < end; ++r) {
      const ProbeRequest& request = requests[r];
      if (stream.backgrounds.empty() || stream.backgrounds.back() != request.background)
        stream.backgrounds.push_back(request.background);
      stream.probes.push_back({request.plus, request.minus,
                               static_cast<std::uint32_t>(stream.backgrounds.size() - 1)});
    }
    stream.outputs.assign(stream.probes.size(), 0.0);
    probe_batch.backgrounds = stream.backgrounds;
    probe_batch.probes = stream.probes;
    call_target(stream, probe_batch, stream.outputs, requests[begin]);
    for (std::size_t r = begin; r < end; ++r) out[r] = decode(requests[r], stream.outputs[r - begin]);
    probes_measured_.fetch_add(end - begin, std::memory_order_relaxed);
    check_budget();
    if (&stream == &streams_[0]) maybe_report_progress();
  }
}

// Splitting pays when every stream gets many calls: a dispatch costs microseconds, a dot call of a
// few thousand summands about as much.
std::size_t ProbeSession::streams_for(std::size_t requests) const {
  constexpr std::size_t kMinCallsPerStream = 32;
  if (options_.streams <= 1 || !options_.make_worker || info_.is_grid()) return 1;
  const std::size_t calls = (requests + std::max<std::size_t>(1, info_.max_batch) - 1) /
                            std::max<std::size_t>(1, info_.max_batch);
  return std::max<std::size_t>(1, std::min(options_.streams, calls / kMinCallsPerStream));
}

// The workers' targets are made here, on the caller's thread (a backend's make_target need not be
// thread-safe), and only once a wave is large enough to use them.
void ProbeSession::start_streams() {
  if (pool_) return;
  const std::size_t workers = options_.streams - 1;
  for (std::size_t w = 0; w < workers; ++w) {
    Stream stream;
    try {
      stream.owned = options_.make_worker();
    } catch (const TargetError& e) {
      fail(Finding::target_error, std::string("a probe stream's target could not be made: ") + e.what());
    }
    if (!stream.owned || stream.owned->info().n != info_.n ||
        stream.owned->info().max_batch != info_.max_batch)
      fail(Finding::target_error,
           "a probe stream's target is not another instance of the target (other n or batch)");
    stream.target = stream.owned.get();
    streams_.push_back(std::move(stream));
  }
  for (std::size_t k = 1; k < streams_.size(); ++k) streams_[k].stats = &streams_[k].own_stats;
  pool_ = std::make_unique<StreamPool>(workers);
}

void ProbeSession::measure(std::span<const ProbeRequest> requests, std::span<Measurement> out) {
  wave_base_ = stats_.probes;
  probes_measured_.store(0);
  const std::size_t count = streams_for(requests.size());
  if (count <= 1) {
    measure_on(streams_[0], requests, out);
  } else {
    start_streams();
    // Contiguous runs of whole batches: the calls are exactly the serial loop's.
    const std::size_t batch = std::max<std::size_t>(1, info_.max_batch);
    const std::size_t calls = (requests.size() + batch - 1) / batch;
    std::vector<std::size_t> first(count + 1);
    for (std::size_t k = 0; k <= count; ++k)
      first[k] = std::min(requests.size(), (calls * k / count) * batch);
    for (std::size_t k = 1; k < count; ++k) streams_[k].own_stats = {};
    const std::function<void(std::size_t)> job = [&](std::size_t k) {
      const std::size_t length = first[k + 1] - first[k];
      measure_on(streams_[k], requests.subspan(first[k], length), out.subspan(first[k], length));
    };
    try {
      pool_->run(count, job);
    } catch (...) {
      merge_stream_stats(count);
      throw;
    }
    merge_stream_stats(count);
    stats_.streams = std::max(stats_.streams, count);
  }
  probes_measured_.store(0);
}

void ProbeSession::measure_grid(Placement placement, std::span<const ProbeRequest> lines,
                                std::vector<Measurement>& out) {
  const std::size_t rows = info_.grid.rows, columns = info_.grid.columns;
  if (lines.empty() || lines.size() > this->lines(placement))
    fail(Finding::inconsistent_structure, "internal: a grid call with " +
                                              std::to_string(lines.size()) + " inputs on " +
                                              std::to_string(this->lines(placement)) + " lines");
  probes_.clear();
  backgrounds_.clear();
  for (const ProbeRequest& request : lines) {
    auto it = std::find(backgrounds_.begin(), backgrounds_.end(), request.background);
    if (it == backgrounds_.end()) it = backgrounds_.insert(backgrounds_.end(), request.background);
    probes_.push_back({request.plus, request.minus,
                       static_cast<std::uint32_t>(it - backgrounds_.begin())});
  }
  ProbeBatch batch;
  batch.values = &scheme_.values;
  batch.backgrounds = backgrounds_;
  batch.probes = probes_;
  batch.placement = placement;
  outputs_.assign(rows * columns, 0.0);
  wave_base_ = stats_.probes;
  call_target(streams_[0], batch, outputs_, lines.front());
  check_budget();
  out.assign(rows * columns, Measurement{0, true});
  // Decode every element of the used lines; equal raw outputs on one line share a decode (the
  // validation is a function of the raw value and the line's request). The grid is walked in
  // memory order, each line keeping its last decode (a column walk would stride through it).
  const bool by_rows = placement == Placement::rows;
  last_decodes_.assign(lines.size(), LastDecode{});
  const std::size_t used_rows = by_rows ? lines.size() : rows;
  const std::size_t used_columns = by_rows ? columns : lines.size();
  for (std::size_t r = 0; r < used_rows; ++r) {
    for (std::size_t c = 0; c < used_columns; ++c) {
      const std::size_t line = by_rows ? r : c;
      LastDecode& last = last_decodes_[line];
      const double raw = outputs_[r * columns + c];
      if (!last.valid || std::memcmp(&raw, &last.raw, sizeof raw) != 0) {
        const GridElement element{r, c};
        last.value = decode(lines[line], raw, &element);
        last.raw = raw;
        last.valid = true;
      }
      out[r * columns + c] = last.value;
    }
  }
}

std::vector<double> ProbeSession::evaluate_values(std::size_t rows, std::span<const double> a,
                                                  std::span<const double> b) {
  const std::size_t n = info_.n;
  const std::size_t batch = std::max<std::size_t>(1, info_.max_batch);
  std::vector<double> outputs(rows);
  for (std::size_t begin = 0; begin < rows; begin += batch) {
    const std::size_t count = std::min(rows - begin, batch);
    ValueBatch values;
    values.rows = count;
    values.a = a.subspan(begin * n, count * n);
    values.b = b;
    call_values(values, std::span<double>(outputs).subspan(begin, count));
  }
  return outputs;
}

std::vector<double> ProbeSession::evaluate_value_grid(Placement placement, std::size_t inputs,
                                                      std::span<const double> a,
                                                      std::span<const double> b) {
  if (inputs == 0 || inputs > lines(placement))
    fail(Finding::inconsistent_structure, "internal: a grid call with " + std::to_string(inputs) +
                                              " random inputs on " +
                                              std::to_string(lines(placement)) + " lines");
  ValueBatch values;
  values.rows = inputs;
  values.a = a.subspan(0, inputs * info_.n);
  values.b = b;
  values.placement = placement;
  std::vector<double> outputs(info_.grid.size());
  call_values(values, outputs);
  return outputs;
}

void ProbeSession::call_values(const ValueBatch& values, std::span<double> outputs) {
  const auto start = Clock::now();
  try {
    target_.evaluate(values, outputs);
  } catch (const BatchInconsistent& e) {
    fail(Finding::batch_inconsistent, e.what());
  } catch (const RanksDisagree& e) {
    fail(Finding::ranks_disagree, e.what(), {}, std::nullopt, kRanksDisagreeCause);
  } catch (const TargetError& e) {
    fail(Finding::target_error, std::string("the target failed on random input: ") + e.what());
  }
  stats_.target_seconds += std::chrono::duration<double>(Clock::now() - start).count();
  ++stats_.target_calls;
  stats_.value_inputs += values.rows;
}

void ProbeSession::merge_stream_stats(std::size_t count) {
  for (std::size_t k = 1; k < count; ++k) {
    const RevealStats& s = streams_[k].own_stats;
    stats_.target_seconds += s.target_seconds;
    stats_.target_calls += s.target_calls;
    stats_.probes += s.probes;
    streams_[k].own_stats = {};
  }
}

void ProbeSession::report_progress(std::size_t leaves_placed) {
  leaves_placed_ = leaves_placed;
  if (!options_.on_progress) return;
  Progress p;
  p.probes_done = stats_.probes;
  p.leaves_placed = leaves_placed;
  p.leaves_total = info_.n;
  p.probes_expected = probes_expected_;
  p.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  last_progress_ = Clock::now();
  options_.on_progress(p);
}

// Within a long wave (a million probes of one pivot), progress every quarter second: stream 0's
// probes plus what the other streams have measured so far.
void ProbeSession::maybe_report_progress() {
  if (!options_.on_progress) return;
  const auto now = Clock::now();
  if (now - last_progress_ < std::chrono::milliseconds(250)) return;
  last_progress_ = now;
  Progress p;
  p.probes_done = wave_base_ + probes_measured_.load(std::memory_order_relaxed);
  p.leaves_placed = leaves_placed_;
  p.leaves_total = info_.n;
  p.probes_expected = probes_expected_;
  p.seconds = std::chrono::duration<double>(now - start_).count();
  options_.on_progress(p);
}

}  // namespace fprev::detail
