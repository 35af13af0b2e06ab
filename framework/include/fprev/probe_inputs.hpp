// Helpers for targets: turn a ProbeBatch or ValueBatch into the arrays a kernel reads.
//
// ProbeVectors keeps one background materialised and moves the two masks between probes in O(1),
// so a dot/sum target spends its time in the kernel, not in rebuilding inputs (the engine's
// overhead budget is 10% for a sequential sum of 16384).
//
// The arrays start `offset` elements after a 64-byte boundary, as the batch asks (ProbeBatch::offset,
// ValueBatch::offset): a target that reads a() and b() honours the alignment check by that alone
// (TargetInfo::alignment = honours_offsets).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "fprev/target.hpp"

namespace fprev {

template <class T>
using Encoder = T (*)(double);

template <class T>
T static_cast_encoder(double v) {
  return static_cast<T>(v);
}

template <class T>
class ProbeVectors {
 public:
  // Offsets up to this many elements (the alignment check asks for fewer than 64 bytes' worth).
  static constexpr std::size_t kMaxOffset = 63;

  explicit ProbeVectors(std::size_t n, Encoder<T> encode = &static_cast_encoder<T>)
      : n_(n), encode_(encode), a_store_(n + kRoom), b_store_(n + kRoom) {
    a_ = aligned_start(a_store_);
    b_ = aligned_start(b_store_);
  }
  // a_ and b_ point into the stores: a copy would point into the original's; a move keeps them.
  ProbeVectors(const ProbeVectors&) = delete;
  ProbeVectors& operator=(const ProbeVectors&) = delete;
  ProbeVectors(ProbeVectors&&) noexcept = default;
  ProbeVectors& operator=(ProbeVectors&&) noexcept = default;

  // After this call a() and b() hold the factors of probe p of `batch`.
  void load(const ProbeBatch& batch, std::size_t p) {
    move_to(batch.offset);
    const Probe& probe = batch.probes[p];
    const Background& background = *batch.backgrounds[probe.background];
    if (background.id != background_id_ || batch.values != values_) {
      materialise(batch, background);
    } else {
      restore(last_plus_);
      restore(last_minus_);
      for (std::uint32_t k : last_extras_) restore(k);
    }
    last_extras_.clear();
    set(probe.plus, batch.values->plus);
    set(probe.minus, batch.values->minus);
    for (const ExtraMask& extra : batch.extras(p)) {
      if (extra.leaf >= n_) throw TargetError("probe vectors: a further mask on leaf " + std::to_string(extra.leaf));
      set(extra.leaf, extra.value);
      last_extras_.push_back(extra.leaf);
    }
    last_plus_ = probe.plus;
    last_minus_ = probe.minus;
  }

  // Fills a() and b() with row `row` of a value batch. With the plain conversion the loop is a
  // straight copy the compiler vectorises: the fingerprint's value batches load every leaf per call.
  void load(const ValueBatch& batch, std::size_t row) {
    move_to(batch.offset);
    background_id_ = 0;  // the arrays no longer hold a background
    if (encode_ != &static_cast_encoder<T>) {
      for (std::size_t k = 0; k < n_; ++k) set(static_cast<std::uint32_t>(k), batch.leaf(row, n_, k));
      return;
    }
    const double* a = batch.a.data() + row * n_;
    for (std::size_t k = 0; k < n_; ++k) a_[k] = static_cast<T>(a[k]);
    if (batch.b.empty())
      std::fill(b_, b_ + n_, T(1));
    else
      for (std::size_t k = 0; k < n_; ++k) b_[k] = static_cast<T>(batch.b[k]);
  }

  const T* a() const { return a_; }
  const T* b() const { return b_; }
  T* a() { return a_; }
  T* b() { return b_; }
  std::size_t size() const { return n_; }
  std::size_t offset() const { return offset_; }

 private:
  // Room for the offset and for reaching a 64-byte boundary from the allocation's start.
  static constexpr std::size_t kRoom = kMaxOffset + 64 / sizeof(T) + 1;

  static T* aligned_start(std::vector<T>& store) {
    T* p = store.data();
    while (reinterpret_cast<std::uintptr_t>(p) % 64 != 0) ++p;  // alignof(T) divides 64
    return p;
  }
  // Moves the arrays (and what they hold) to start `offset` elements after the boundary.
  void move_to(std::size_t offset) {
    if (offset == offset_) return;
    if (offset > kMaxOffset)
      throw TargetError("probe vectors: offset " + std::to_string(offset) + " is beyond the " +
                        std::to_string(kMaxOffset) + " elements a target places its inputs at");
    T* a = aligned_start(a_store_) + offset;
    T* b = aligned_start(b_store_) + offset;
    std::memmove(a, a_, n_ * sizeof(T));
    std::memmove(b, b_, n_ * sizeof(T));
    a_ = a;
    b_ = b;
    offset_ = offset;
  }

  void set(std::uint32_t k, SummandValue v) {
    a_[k] = encode_(v.a);
    b_[k] = encode_(v.b);
  }
  bool active(std::uint32_t k) const {
    return std::binary_search(active_.begin(), active_.end(), k);
  }
  void restore(std::uint32_t k) {
    if (k >= n_) return;
    set(k, all_active_ || active(k) ? values_->unit : values_->zero());
  }
  void materialise(const ProbeBatch& batch, const Background& background) {
    values_ = batch.values;
    background_id_ = background.id;
    all_active_ = background.all_active;
    active_ = background.active;
    // Encoded once, then filled: the encoder is a pure conversion, and a call through its pointer
    // per leaf cost as much as a reference target's whole sum (restricted backgrounds change with
    // almost every probe of a block-wise proof).
    const SummandValue unit = values_->unit;
    const SummandValue zero = values_->zero();
    const T unit_a = encode_(unit.a), unit_b = encode_(unit.b);
    if (all_active_) {
      std::fill(a_, a_ + n_, unit_a);
      std::fill(b_, b_ + n_, unit_b);
    } else {
      std::fill(a_, a_ + n_, encode_(zero.a));
      std::fill(b_, b_ + n_, encode_(zero.b));
      for (std::uint32_t k : active_) {
        if (k >= n_) throw TargetError("probe vectors: an active leaf " + std::to_string(k) + " of " + std::to_string(n_));
        a_[k] = unit_a;
        b_[k] = unit_b;
      }
    }
    last_plus_ = last_minus_ = static_cast<std::uint32_t>(n_);
    last_extras_.clear();
  }

  std::size_t n_;
  Encoder<T> encode_;
  std::vector<T> a_store_, b_store_;
  T* a_ = nullptr;
  T* b_ = nullptr;
  std::size_t offset_ = 0;
  const ProbeValues* values_ = nullptr;
  std::uint64_t background_id_ = 0;
  bool all_active_ = true;
  std::vector<std::uint32_t> active_;
  std::uint32_t last_plus_ = 0, last_minus_ = 0;
  std::vector<std::uint32_t> last_extras_;  // leaves of the last probe's further masks
};

// Writes the factors of probe p into one row (length n) of a batched operand, e.g. row p of A for a
// GEMM. `b_out` receives the shared right-hand factors (the same for every probe of a batch under
// SummandKind::product_shared_rhs) and may be null.
template <class T>
void write_probe_row(const ProbeBatch& batch, std::size_t p, std::size_t n, T* a_row, T* b_out,
                     Encoder<T> encode = &static_cast_encoder<T>) {
  const Probe& probe = batch.probes[p];
  const Background& background = *batch.backgrounds[probe.background];
  const SummandValue unit = batch.values->unit;
  const SummandValue zero = batch.values->zero();
  const T unit_a = encode(unit.a), zero_a = encode(zero.a);
  if (background.all_active) {
    std::fill(a_row, a_row + n, unit_a);
  } else {
    std::fill(a_row, a_row + n, zero_a);
    for (std::uint32_t k : background.active) a_row[k] = unit_a;
  }
  a_row[probe.plus] = encode(batch.values->plus.a);
  a_row[probe.minus] = encode(batch.values->minus.a);
  for (const ExtraMask& extra : batch.extras(p)) a_row[extra.leaf] = encode(extra.value.a);
  if (b_out != nullptr) {
    for (std::size_t k = 0; k < n; ++k) b_out[k] = encode(batch.leaf(p, static_cast<std::uint32_t>(k)).b);
  }
}

}  // namespace fprev
