#include "fingerprint_lab.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace fprev::detail {

namespace {

// The calls in one run (Target::evaluate_value_calls: a target in a worker process gets them in
// one message), counted and timed in the fingerprint's stats; `rows` inputs in all.
void run_value_calls(Target& target, std::span<const ValueBatch> calls, std::size_t rows,
                     std::span<double> outputs, FingerprintStats& stats) {
  const auto start = std::chrono::steady_clock::now();
  std::size_t done = 0;
  target.evaluate_value_calls(calls, outputs, done);
  stats.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats.target_calls += calls.size();
  stats.inputs += rows;
}

}  // namespace

void evaluate_rows(Target& target, std::size_t rows, std::span<const double> a,
                   std::span<const double> b, std::vector<double>& outputs, FingerprintStats& stats) {
  const TargetInfo& info = target.info();
  const std::size_t n = info.n;
  // Single-output targets only: grid targets are read through a ClassView (fingerprint.cpp).
  const std::size_t batch = std::max<std::size_t>(1, info.max_batch);
  std::vector<ValueBatch> calls;
  for (std::size_t row = 0; row < rows; row += batch) {
    const std::size_t count = std::min(batch, rows - row);
    ValueBatch values;
    values.rows = count;
    values.a = a.subspan(row * n, count * n);
    values.b = b;
    calls.push_back(values);
  }
  const std::size_t first = outputs.size();
  outputs.resize(first + rows);
  run_value_calls(target, calls, rows, std::span<double>(outputs).subspan(first, rows), stats);
}

Lab::Lab(Target& target, FingerprintStats& stats)
    : target_(target), info_(target.info()), stats_(stats) {}

std::optional<std::pair<double, double>> Lab::split(double value) const {
  const Format input = info_.traits.input;
  const bool product = info_.traits.summand != SummandKind::plain;
  if (is_representable(value, input) && std::isfinite(value)) return std::pair{value, 1.0};
  if (!product || value == 0.0 || !std::isfinite(value)) return std::nullopt;
  // Move powers of two from a to b until both are exact (the significand stays with a).
  for (int shift = 1; shift < 400; ++shift)
    for (int sign : {1, -1}) {
      const double b = std::ldexp(1.0, sign * shift);
      const double a = std::ldexp(value, -sign * shift);
      if (is_representable(a, input) && is_representable(b, input) && a * b == value)
        return std::pair{a, b};
    }
  return std::nullopt;
}

std::optional<std::size_t> Lab::add(const std::vector<LeafValue>& values) {
  Experiment p;
  for (const LeafValue& v : values) {
    const auto factors = split(v.value);
    if (!factors) return std::nullopt;
    p.a.push_back({v.leaf, factors->first});
    if (factors->second != 1.0) p.b.push_back({v.leaf, factors->second});
  }
  pending_.push_back(std::move(p));
  return first_pending_ + pending_.size() - 1;
}

std::size_t Lab::add_factors(const std::vector<LeafValue>& a, double shared_b) {
  pending_.push_back({a, {}, shared_b});
  return first_pending_ + pending_.size() - 1;
}

void Lab::ship(std::span<const std::span<const std::size_t>> groups) {
  // The rows live in a_, kept between shipments: zero except at the few leaves an experiment sets
  // (thousands of experiments on a long reduction would otherwise each clear n values). The leaves
  // the last shipment set are put back first, so one that threw leaves nothing behind for the next.
  const std::size_t n = info_.n;
  const bool products = info_.traits.summand != SummandKind::plain;
  for (std::size_t k : a_dirty_) a_[k] = 0.0;
  a_dirty_.clear();
  std::size_t rows = 0;
  std::size_t distinct_b = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    rows += groups[g].size();
    if (g == 0 || right_factors_less(pending_[groups[g - 1][0]], pending_[groups[g][0]], products)) ++distinct_b;
  }
  if (a_.size() < rows * n) a_.resize(rows * n, 0.0);
  // One right-factor vector per run of groups with the same right factors (a dot's experiments,
  // one per call, mostly share theirs): the same buffer, so the worker receives it once.
  b_.resize(products ? distinct_b * n : 0);
  std::vector<ValueBatch> calls;
  calls.reserve(groups.size());
  std::size_t row = 0;
  std::size_t b_at = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::span<const std::size_t> members = groups[g];
    for (std::size_t r = 0; r < members.size(); ++r)
      for (const LeafValue& v : pending_[members[r]].a) {
        a_[(row + r) * n + v.leaf] = v.value;
        a_dirty_.push_back((row + r) * n + v.leaf);
      }
    const bool new_b = g == 0 || right_factors_less(pending_[groups[g - 1][0]], pending_[members[0]], products);
    if (products && new_b) {
      if (g > 0) b_at += n;
      const Experiment& first = pending_[members[0]];
      std::fill_n(b_.begin() + static_cast<std::ptrdiff_t>(b_at), n, first.b_default);
      for (const LeafValue& v : first.b) b_[b_at + v.leaf] = v.value;
    }
    ValueBatch call;
    call.rows = members.size();
    call.a = std::span<const double>(a_).subspan(row * n, members.size() * n);
    if (products) call.b = std::span<const double>(b_).subspan(b_at, n);
    calls.push_back(call);
    row += members.size();
  }
  std::vector<double> outputs(rows);
  run_value_calls(target_, calls, rows, outputs, stats_);
  row = 0;
  for (const std::span<const std::size_t> members : groups)
    for (const std::size_t member : members) outputs_[first_pending_ + member] = outputs[row++];
}

bool right_factors_less(const Experiment& p, const Experiment& q, bool products) {
  if (!products) return false;
  if (p.b_default != q.b_default) return p.b_default < q.b_default;
  if (p.b.size() != q.b.size()) return p.b.size() < q.b.size();
  for (std::size_t i = 0; i < p.b.size(); ++i) {
    if (p.b[i].leaf != q.b[i].leaf) return p.b[i].leaf < q.b[i].leaf;
    if (p.b[i].value != q.b[i].value) return p.b[i].value < q.b[i].value;
  }
  return false;
}

void Lab::run() {
  outputs_.resize(first_pending_ + pending_.size());
  if (courier_ && !pending_.empty()) {
    courier_(*this);
  } else {
    // A call evaluates as many inputs as the target takes at once (max_batch). The rows of one call
    // share the right factors, so experiments are grouped by their right factors first, keeping
    // their order within a group.
    const std::size_t batch = std::max<std::size_t>(1, info_.max_batch);
    const bool products = info_.traits.summand != SummandKind::plain;
    const auto rhs_less = [&](std::size_t x, std::size_t y) {
      return right_factors_less(pending_[x], pending_[y], products);
    };
    std::vector<std::size_t> order(pending_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), rhs_less);
    std::vector<std::span<const std::size_t>> groups;
    std::size_t begin = 0;
    while (begin < order.size()) {
      std::size_t end = begin + 1;
      while (end < order.size() && end - begin < batch && !rhs_less(order[begin], order[end])) ++end;
      groups.push_back(std::span<const std::size_t>(order).subspan(begin, end - begin));
      begin = end;
    }
    // The calls travel together (Target::evaluate_value_calls): a target in a worker process gets
    // a shipment in one message and answers it in one, where a message per call cost a round trip
    // each (a dot's 3,300 experiments: 0.35 s of round trips against 0.02 s of the library's own
    // time). A shipment's rows and right factors stay within kShipmentBytes (at least one call),
    // so memory stays bounded however many experiments there are.
    const std::size_t row_bytes = info_.n * sizeof(double);
    std::size_t first = 0;
    while (first < groups.size()) {
      std::size_t bytes = 0;
      std::size_t last = first;
      while (last < groups.size()) {
        const bool new_b = products && (last == first || rhs_less(groups[last - 1][0], groups[last][0]));
        const std::size_t group_bytes = (groups[last].size() + (new_b ? 1 : 0)) * row_bytes;
        if (last > first && bytes + group_bytes > kShipmentBytes) break;
        bytes += group_bytes;
        ++last;
      }
      ship(std::span<const std::span<const std::size_t>>(groups).subspan(first, last - first));
      first = last;
    }
  }
  first_pending_ += pending_.size();
  pending_.clear();
}

}  // namespace fprev::detail
