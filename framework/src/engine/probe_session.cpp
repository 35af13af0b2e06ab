#include "probe_session.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <sstream>

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
    : target_(target), info_(target.info()), scheme_(scheme), options_(options), stats_(stats) {
  all_active_.id = Background::next_id();
  all_active_.all_active = true;
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

void ProbeSession::call_target(const ProbeBatch& batch, std::span<double> outputs,
                               const ProbeRequest& first) {
  const auto start = Clock::now();
  try {
    target_.evaluate(batch, outputs);
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
  stats_.target_seconds += std::chrono::duration<double>(Clock::now() - start).count();
  ++stats_.target_calls;
  stats_.probes += batch.probes.size();
}

void ProbeSession::measure(std::span<const ProbeRequest> requests, std::span<Measurement> out) {
  const std::size_t batch = std::max<std::size_t>(1, info_.max_batch);
  ProbeBatch probe_batch;
  probe_batch.values = &scheme_.values;
  for (std::size_t begin = 0; begin < requests.size(); begin += batch) {
    const std::size_t end = std::min(requests.size(), begin + batch);
    probes_.clear();
    backgrounds_.clear();
    for (std::size_t r = begin; r < end; ++r) {
      const ProbeRequest& request = requests[r];
      if (backgrounds_.empty() || backgrounds_.back() != request.background)
        backgrounds_.push_back(request.background);
      probes_.push_back({request.plus, request.minus,
                         static_cast<std::uint32_t>(backgrounds_.size() - 1)});
    }
    outputs_.assign(probes_.size(), 0.0);
    probe_batch.backgrounds = backgrounds_;
    probe_batch.probes = probes_;
    call_target(probe_batch, outputs_, requests[begin]);
    for (std::size_t r = begin; r < end; ++r) out[r] = decode(requests[r], outputs_[r - begin]);
  }
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
  call_target(batch, outputs_, lines.front());
  out.assign(rows * columns, Measurement{0, true});
  // Decode every element of the used lines; equal raw outputs on one line share a decode (the
  // validation is a function of the raw value and the line's request).
  const bool by_rows = placement == Placement::rows;
  for (std::size_t line = 0; line < lines.size(); ++line) {
    const ProbeRequest& request = lines[line];
    const std::size_t count = by_rows ? columns : rows;
    double last_raw = 0.0;
    Measurement last{0, true};
    bool have_last = false;
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t r = by_rows ? line : k, c = by_rows ? k : line;
      const double raw = outputs_[r * columns + c];
      if (!have_last || std::memcmp(&raw, &last_raw, sizeof raw) != 0) {
        const GridElement element{r, c};
        last = decode(request, raw, &element);
        last_raw = raw;
        have_last = true;
      }
      out[r * columns + c] = last;
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

void ProbeSession::report_progress(std::size_t leaves_placed) {
  if (!options_.on_progress) return;
  Progress p;
  p.probes_done = stats_.probes;
  p.leaves_placed = leaves_placed;
  p.leaves_total = info_.n;
  options_.on_progress(p);
}

}  // namespace fprev::detail
