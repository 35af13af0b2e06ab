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
  const double seconds = options_.spent_seconds + std::chrono::duration<double>(Clock::now() - start_).count();
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

namespace {

// A wave's calls go to the target in runs (Target::evaluate_probe_calls) sized to take about this
// long: long enough that a target in a worker process pays its round trip once per run, short
// enough that progress and the time budget are looked at several times a second.
constexpr double kSecondsPerRun = 0.05;
constexpr std::size_t kMaxCallsPerRun = 65536;

}  // namespace

std::size_t ProbeSession::calls_per_run(const Stream& stream) {
  if (stream.seconds_per_call <= 0.0) return 8;  // nothing measured yet
  const double calls = kSecondsPerRun / stream.seconds_per_call;
  return static_cast<std::size_t>(std::clamp(calls, 1.0, static_cast<double>(kMaxCallsPerRun)));
}

void ProbeSession::note_run(Stream& stream, std::size_t calls, double seconds) {
  if (calls == 0) return;
  const double per_call = seconds / static_cast<double>(calls);
  stream.seconds_per_call =
      stream.seconds_per_call <= 0.0 ? per_call : 0.5 * (stream.seconds_per_call + per_call);
}

// The engine's handling of what a target throws, the same for one call or a run of them.
void ProbeSession::rethrow_target_failure(std::exception_ptr error, const ProbeRequest* first) {
  const std::string probe = first != nullptr ? describe_probe(first->plus, first->minus, first->active_count)
                                             : std::string();
  try {
    std::rethrow_exception(error);
  } catch (const BatchInconsistent& e) {
    fail(Finding::batch_inconsistent, e.what(), probe, std::nullopt,
         "the rows or columns of one batched call follow different orders (an edge kernel) and "
         "the target compares them itself: expose it as a grid target so that the engine reveals "
         "an order map instead");
  } catch (const RanksDisagree& e) {
    fail(Finding::ranks_disagree, e.what(), probe, std::nullopt, kRanksDisagreeCause);
  } catch (const TargetFault& e) {
    fail(Finding::target_fault, e.what(), probe, std::nullopt, e.likely_cause());
  } catch (const TargetError& e) {
    fail(Finding::target_error,
         std::string(first != nullptr ? "the target failed: " : "the target failed on random input: ") +
             e.what(),
         probe);
  }
}

void ProbeSession::call_target(Stream& stream, const ProbeBatch& batch, std::span<double> outputs,
                               const ProbeRequest& first) {
  const auto start = Clock::now();
  try {
    stream.target->evaluate(batch, outputs);
  } catch (const TargetError&) {
    rethrow_target_failure(std::current_exception(), &first);
  }
  RevealStats& stats = *stream.stats;
  stats.target_seconds += std::chrono::duration<double>(Clock::now() - start).count();
  ++stats.target_calls;
  stats.probes += batch.probes.size();
}

// The requests in calls of max_batch probes (the calls of the serial loop), handed to the target
// in runs of whole calls; every output decoded in order.
void ProbeSession::measure_on(Stream& stream, std::span<const ProbeRequest> requests,
                              std::span<Measurement> out) {
  const std::size_t batch = std::max<std::size_t>(1, info_.max_batch);
  for (std::size_t begin = 0; begin < requests.size();) {
    const std::size_t run_calls = calls_per_run(stream);
    const std::size_t end = std::min(requests.size(), begin + run_calls * batch);
    stream.probes.clear();
    stream.backgrounds.clear();
    stream.calls.clear();
    // Every call lists its own backgrounds (ProbeBatch::backgrounds); the lists live in one vector.
    std::vector<std::pair<std::size_t, std::size_t>> lists;  // (first background, count) per call
    for (std::size_t call = begin; call < end; call += batch) {
      const std::size_t call_end = std::min(end, call + batch);
      const std::size_t first_background = stream.backgrounds.size();
      for (std::size_t r = call; r < call_end; ++r) {
        const ProbeRequest& request = requests[r];
        if (stream.backgrounds.size() == first_background ||
            stream.backgrounds.back() != request.background)
          stream.backgrounds.push_back(request.background);
        stream.probes.push_back({request.plus, request.minus,
                                 static_cast<std::uint32_t>(stream.backgrounds.size() - 1 - first_background)});
      }
      lists.emplace_back(first_background, stream.backgrounds.size() - first_background);
    }
    std::size_t probe_offset = 0;
    for (std::size_t c = 0; c < lists.size(); ++c) {
      const std::size_t count = std::min(batch, end - begin - probe_offset);
      ProbeBatch call;
      call.values = &scheme_.values;
      call.backgrounds = std::span<const Background* const>(stream.backgrounds).subspan(lists[c].first, lists[c].second);
      call.probes = std::span<const Probe>(stream.probes).subspan(probe_offset, count);
      stream.calls.push_back(call);
      probe_offset += count;
    }
    stream.outputs.assign(end - begin, 0.0);
    const auto start = Clock::now();
    std::size_t done = 0;
    RevealStats& stats = *stream.stats;
    try {
      stream.target->evaluate_probe_calls(stream.calls, stream.outputs, done);
    } catch (const TargetError&) {
      stats.target_calls += done;
      stats.probes += std::min(end - begin, done * batch);
      rethrow_target_failure(std::current_exception(), &requests[std::min(end - 1, begin + done * batch)]);
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    note_run(stream, stream.calls.size(), seconds);
    stats.target_seconds += seconds;
    stats.target_calls += stream.calls.size();
    stats.probes += end - begin;
    for (std::size_t r = begin; r < end; ++r) out[r] = decode(requests[r], stream.outputs[r - begin]);
    probes_measured_.fetch_add(end - begin, std::memory_order_relaxed);
    begin = end;
    check_budget();
    if (&stream == &streams_[0]) maybe_report_progress();
  }
}

std::vector<double> ProbeSession::measure_with_extras(const ProbeValues& values, std::span<const Probe> probes,
                                                      std::span<const std::uint32_t> extra_begin,
                                                      std::span<const ExtraMask> extras) {
  if (!info_.extra_masks || info_.is_grid() || extra_begin.size() != probes.size() + 1)
    fail(Finding::inconsistent_structure, "internal: probes with further masks for a target that does not take them");
  const std::size_t batch = std::max<std::size_t>(1, info_.max_batch);
  Stream& stream = streams_[0];
  const Background* const all_active[1] = {&all_active_};
  std::vector<double> outputs(probes.size());
  for (std::size_t begin = 0; begin < probes.size();) {
    const std::size_t end = std::min(probes.size(), begin + calls_per_run(stream) * batch);
    stream.calls.clear();
    for (std::size_t call = begin; call < end; call += batch) {
      const std::size_t count = std::min(end - call, batch);
      ProbeBatch b;
      b.values = &values;
      b.backgrounds = all_active;
      b.probes = probes.subspan(call, count);
      b.extra_begin = extra_begin.subspan(call, count + 1);
      b.extra_masks = extras;
      stream.calls.push_back(b);
    }
    const auto start = Clock::now();
    std::size_t done = 0;
    try {
      target_.evaluate_probe_calls(stream.calls, std::span<double>(outputs).subspan(begin, end - begin), done);
    } catch (const TargetError&) {
      stats_.target_calls += done;
      stats_.probes += std::min(end - begin, done * batch);
      rethrow_target_failure(std::current_exception(), nullptr);
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    note_run(stream, stream.calls.size(), seconds);
    stats_.target_seconds += seconds;
    stats_.target_calls += stream.calls.size();
    stats_.probes += end - begin;
    begin = end;
    check_budget();
  }
  stream.calls.clear();  // they point at all_active, which ends here
  return outputs;
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
    stream.owned = make_another_instance(options_, info_);
    stream.target = stream.owned.get();
    streams_.push_back(std::move(stream));
  }
  for (std::size_t k = 1; k < streams_.size(); ++k) streams_[k].stats = &streams_[k].own_stats;
  pool_ = std::make_unique<StreamPool>(workers);
}

std::unique_ptr<Target> make_another_instance(const RevealOptions& options, const TargetInfo& info) {
  std::unique_ptr<Target> made;
  try {
    made = options.make_worker();
  } catch (const TargetFault& e) {
    fail(Finding::target_fault, std::string("a probe stream's target could not be made: ") + e.what(), {},
         std::nullopt, e.likely_cause());
  } catch (const TargetError& e) {
    fail(Finding::target_error, std::string("a probe stream's target could not be made: ") + e.what());
  }
  if (!made || made->info().n != info.n || made->info().max_batch != info.max_batch)
    fail(Finding::target_error, "a probe stream's target is not another instance of the target (other n or batch)");
  return made;
}

void ProbeSession::measure(std::span<const ProbeRequest> requests, std::span<Measurement> out) {
  wave_base_ = stats_.probes;
  ++stats_.waves;
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
  Stream& stream = streams_[0];
  std::vector<ValueBatch> calls;
  for (std::size_t begin = 0; begin < rows;) {
    const std::size_t end = std::min(rows, begin + calls_per_run(stream) * batch);
    calls.clear();
    for (std::size_t call = begin; call < end; call += batch) {
      const std::size_t count = std::min(end - call, batch);
      ValueBatch values;
      values.rows = count;
      values.a = a.subspan(call * n, count * n);
      values.b = b;
      calls.push_back(values);
    }
    const double seconds =
        call_values(calls, std::span<double>(outputs).subspan(begin, end - begin));
    note_run(stream, calls.size(), seconds);
    begin = end;
  }
  return outputs;
}

std::vector<double> ProbeSession::evaluate_value_grid(Placement placement, std::size_t inputs,
                                                      std::span<const double> a, std::span<const double> b,
                                                      std::span<const std::uint32_t> column_factors,
                                                      ValueInputs kind) {
  if (inputs == 0 || inputs > lines(placement))
    fail(Finding::inconsistent_structure, "internal: a grid call with " + std::to_string(inputs) +
                                              " random inputs on " +
                                              std::to_string(lines(placement)) + " lines");
  ValueBatch values;
  values.rows = inputs;
  values.a = a.subspan(0, inputs * info_.n);
  values.b = b;
  values.column_factors = column_factors;
  values.placement = placement;
  std::vector<double> outputs(info_.grid.size());
  call_values(std::span<const ValueBatch>(&values, 1), outputs, kind);
  return outputs;
}

double ProbeSession::call_values(std::span<const ValueBatch> calls, std::span<double> outputs,
                                 ValueInputs kind) {
  const auto start = Clock::now();
  std::size_t done = 0;
  try {
    target_.evaluate_value_calls(calls, outputs, done);
  } catch (const TargetError&) {
    stats_.target_calls += done;
    rethrow_target_failure(std::current_exception(), nullptr);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  stats_.target_seconds += seconds;
  stats_.target_calls += calls.size();
  if (kind == ValueInputs::values)
    for (const ValueBatch& call : calls) stats_.value_inputs += call.rows;
  return seconds;
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
