#include "fingerprint_lab.hpp"

#include <chrono>
#include <cmath>

namespace fprev::detail {

void evaluate_rows(Target& target, std::size_t rows, std::span<const double> a,
                   std::span<const double> b, std::vector<double>& outputs, FingerprintStats& stats) {
  const TargetInfo& info = target.info();
  const std::size_t n = info.n;
  // A grid target (GEMM, GEMV) answers a whole grid per call with input p on row p: the batch is
  // its rows and input p's output is element (p, 0). Only single-class results are fingerprinted,
  // so every element of row p follows the same tree.
  const bool grid = info.is_grid();
  const std::size_t batch = grid ? info.grid.rows : std::max<std::size_t>(1, info.max_batch);
  std::vector<double> out(grid ? info.grid.size() : batch);
  for (std::size_t row = 0; row < rows; row += batch) {
    const std::size_t count = std::min(batch, rows - row);
    ValueBatch values;
    values.rows = count;
    values.a = a.subspan(row * n, count * n);
    values.b = b;
    values.placement = Placement::rows;
    const auto start = std::chrono::steady_clock::now();
    target.evaluate(values, std::span<double>(out.data(), grid ? out.size() : count));
    stats.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++stats.target_calls;
    stats.inputs += count;
    for (std::size_t p = 0; p < count; ++p) outputs.push_back(out[grid ? p * info.grid.columns : p]);
  }
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
  Pending p;
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

void Lab::evaluate(std::size_t begin, std::size_t end) {
  const std::size_t n = info_.n;
  const std::size_t rows = end - begin;
  std::vector<double> a(rows * n, 0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (const LeafValue& v : pending_[begin + r].a) a[r * n + v.leaf] = v.value;
  std::vector<double> b;
  if (info_.traits.summand != SummandKind::plain) {
    b.assign(n, pending_[begin].b_default);
    for (const LeafValue& v : pending_[begin].b) b[v.leaf] = v.value;
  }
  evaluate_rows(target_, rows, a, b, outputs_, stats_);
}

void Lab::run() {
  const std::size_t batch = std::max<std::size_t>(1, info_.max_batch);
  const auto same_rhs = [](const Pending& x, const Pending& y) {
    if (x.b_default != y.b_default || x.b.size() != y.b.size()) return false;
    for (std::size_t i = 0; i < x.b.size(); ++i)
      if (x.b[i].leaf != y.b[i].leaf || x.b[i].value != y.b[i].value) return false;
    return true;
  };
  std::size_t begin = 0;
  while (begin < pending_.size()) {
    std::size_t end = begin + 1;
    while (end < pending_.size() && end - begin < batch && same_rhs(pending_[begin], pending_[end])) ++end;
    evaluate(begin, end);
    begin = end;
  }
  first_pending_ += pending_.size();
  pending_.clear();
}

}  // namespace fprev::detail
