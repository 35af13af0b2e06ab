// The summation kernels, one function per order. Each is a real loop over the summands (no tree
// data structure is evaluated, except for random_tree whose definition is a merge list).
//
// Kernels are templates over
//   * the summand source S: s(k) is summand k in the input type (x[k], or x[k]*y[k] rounded to
//     the input type for dot products);
//   * the arithmetic A: A::Acc is the type partial sums are kept in and a.add(p, q) adds two of
//     them (a native float/double addition, or an addition rounded into a narrower format).
// so that the float32 sequential sum compiles to `acc += x[k]` in a tight loop.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "arithmetic.hpp"
#include "fprev/backends/reference.hpp"

namespace fprev::reference::detail {

template <class T>
struct PlainSummands {
  const T* x;
  T operator()(std::size_t k) const { return x[k]; }
};

template <class T>
struct ProductSummands {
  const T* x;
  const T* y;
  T operator()(std::size_t k) const {
    const T product = x[k] * y[k];  // rounded to T (the library builds with -ffp-contract=off)
    return product;
  }
};

// Partial sums in the input type itself.
template <class T>
struct NativeArithmetic {
  using Acc = T;
  explicit NativeArithmetic(Format accumulator) : fuser(accumulator) {}
  FusedAdder fuser;
  Acc load(T x) const { return x; }
  Acc add(Acc p, Acc q) const { return p + q; }
  double fused(const double* terms, std::size_t count) const { return fuser.sum(terms, count); }
};

// Partial sums rounded into a format narrower than the input (float16, bfloat16, or float32 for
// float64 inputs), kept in a double. A summand enters its first addition exactly as given (as
// fprev::simulate_sum models it); every addition rounds its exact result to the accumulator.
struct RoundedArithmetic {
  using Acc = double;
  explicit RoundedArithmetic(Format accumulator) : rounder(accumulator), fuser(accumulator) {}
  FormatRounder rounder;
  FusedAdder fuser;
  template <class T>
  Acc load(T x) const {
    return static_cast<double>(x);
  }
  Acc add(Acc p, Acc q) const { return rounder.add(p, q); }
  double fused(const double* terms, std::size_t count) const { return fuser.sum(terms, count); }
};

template <class S, class A>
typename A::Acc sum_sequential(const S& s, std::size_t n, const A& a) {
  using Acc = typename A::Acc;
  Acc acc = a.load(s(0));
  for (std::size_t k = 1; k < n; ++k) acc = a.add(acc, a.load(s(k)));
  return acc;
}

template <class S, class A>
typename A::Acc sum_reverse(const S& s, std::size_t n, const A& a) {
  using Acc = typename A::Acc;
  Acc acc = a.load(s(n - 1));
  for (std::size_t k = n - 1; k-- > 0;) acc = a.add(acc, a.load(s(k)));
  return acc;
}

// Pairwise over get(lo..hi-1): split at lo + (hi - lo) / 2. The recursion depth is log2(n) <= 31,
// bounded by the input size's bit width, not by n.
template <class Get, class A>
typename A::Acc sum_pairwise(const Get& get, std::size_t lo, std::size_t hi, const A& a) {
  using Acc = typename A::Acc;
  const std::size_t count = hi - lo;
  if (count == 1) return a.load(get(lo));
  if (count == 2) return a.add(a.load(get(lo)), a.load(get(lo + 1)));
  const std::size_t mid = lo + count / 2;
  const Acc left = sum_pairwise(get, lo, mid, a);
  const Acc right = sum_pairwise(get, mid, hi, a);
  return a.add(left, right);
}

// Lane r adds s(r), s(r+K), ... sequentially; returns the number of lanes used (min(K, n)).
template <class S, class A>
std::size_t sum_lanes(const S& s, std::size_t n, std::size_t lanes, const A& a,
                      typename A::Acc* lane) {
  const std::size_t used = std::min(lanes, n);
  for (std::size_t r = 0; r < used; ++r) lane[r] = a.load(s(r));
  std::size_t base = lanes;
  for (; base + lanes <= n; base += lanes)  // full rows: independent lanes, vectorisable
    for (std::size_t r = 0; r < lanes; ++r) lane[r] = a.add(lane[r], a.load(s(base + r)));
  for (std::size_t r = 0; base + r < n; ++r) lane[r] = a.add(lane[r], a.load(s(base + r)));
  return used;
}

template <class S, class A>
typename A::Acc sum_strided_pairwise(const S& s, std::size_t n, std::size_t lanes, const A& a,
                                     typename A::Acc* lane) {
  const std::size_t used = sum_lanes(s, n, lanes, a, lane);
  const auto get = [lane](std::size_t r) { return lane[r]; };
  return sum_pairwise(get, 0, used, a);
}

template <class S, class A>
typename A::Acc sum_strided_sequential(const S& s, std::size_t n, std::size_t lanes, const A& a,
                                       typename A::Acc* lane) {
  const std::size_t used = sum_lanes(s, n, lanes, a, lane);
  typename A::Acc acc = lane[0];
  for (std::size_t r = 1; r < used; ++r) acc = a.add(acc, lane[r]);
  return acc;
}

// Eigen's redux over a vector whose first `peel` summands lie before the first aligned vector: the
// aligned rest in `lanes` lanes (combined pairwise), then the peeled summands one at a time.
template <class S, class A>
typename A::Acc sum_aligned_peel(const S& s, std::size_t n, std::size_t lanes, std::size_t offset,
                                 const A& a, typename A::Acc* lane) {
  const std::size_t peel = std::min(n, (lanes - offset % lanes) % lanes);
  if (peel == n) return sum_sequential(s, n, a);
  const auto rest = [&s, peel](std::size_t k) { return s(peel + k); };
  typename A::Acc acc = sum_strided_pairwise(rest, n - peel, lanes, a, lane);
  for (std::size_t k = 0; k < peel; ++k) acc = a.add(acc, a.load(s(k)));
  return acc;
}

template <class S, class A>
typename A::Acc sum_blocked(const S& s, std::size_t n, std::size_t block, const A& a) {
  using Acc = typename A::Acc;
  Acc total{};
  for (std::size_t begin = 0; begin < n; begin += block) {
    const std::size_t end = std::min(n, begin + block);
    Acc partial = a.load(s(begin));
    for (std::size_t k = begin + 1; k < end; ++k) partial = a.add(partial, a.load(s(k)));
    total = begin == 0 ? partial : a.add(total, partial);
  }
  return total;
}

// First node: s(0..w-1); then running sum + next w-1 summands. A two-term step is an ordinary
// addition (a binary node means an IEEE addition everywhere in the project).
template <class S, class A>
typename A::Acc sum_fused(const S& s, std::size_t n, std::size_t width, const A& a) {
  using Acc = typename A::Acc;
  if (n == 1) return a.load(s(0));
  double terms[kMaxFusedWidth];
  const auto node = [&](std::size_t count) -> Acc {
    if (count == 2) return a.add(static_cast<Acc>(terms[0]), static_cast<Acc>(terms[1]));
    return static_cast<Acc>(a.fused(terms, count));
  };
  std::size_t k = std::min(width, n);
  for (std::size_t t = 0; t < k; ++t) terms[t] = static_cast<double>(a.load(s(t)));
  Acc acc = node(k);
  while (k < n) {
    const std::size_t take = std::min(width - 1, n - k);
    terms[0] = static_cast<double>(acc);
    for (std::size_t t = 0; t < take; ++t) terms[1 + t] = static_cast<double>(a.load(s(k + t)));
    acc = node(take + 1);
    k += take;
  }
  return acc;
}

template <class S, class A>
typename A::Acc sum_merges(const S& s, std::size_t n, const std::vector<Merge>& merges,
                           const A& a, typename A::Acc* slot) {
  for (std::size_t k = 0; k < n; ++k) slot[k] = a.load(s(k));
  for (const Merge& m : merges) slot[m.into] = a.add(slot[m.into], slot[m.from]);
  return merges.empty() ? slot[0] : slot[merges.back().into];
}

template <class S, class A>
typename A::Acc sum_permuted(const S& s, const std::vector<std::uint32_t>& permutation,
                             const A& a) {
  using Acc = typename A::Acc;
  Acc acc = a.load(s(permutation[0]));
  for (std::size_t k = 1; k < permutation.size(); ++k)
    acc = a.add(acc, a.load(s(permutation[k])));
  return acc;
}

// Sorts the summands by magnitude (ties: the negative one first, so that equal magnitudes are
// ordered the same whatever their positions) into `sorted` and adds them sequentially.
template <class T, class S, class A>
typename A::Acc sum_sorted_magnitude(const S& s, std::size_t n, const A& a, T* sorted) {
  for (std::size_t k = 0; k < n; ++k) sorted[k] = s(k);
  std::sort(sorted, sorted + n, [](T p, T q) {
    const T ap = std::fabs(p), aq = std::fabs(q);
    return ap < aq || (ap == aq && p < q);
  });
  return sum_sequential(PlainSummands<T>{sorted}, n, a);
}

// Sequential, but NaN as soon as one summand reaches `threshold` in magnitude.
template <class S, class A>
typename A::Acc sum_nan(const S& s, std::size_t n, const A& a, double threshold) {
  using Acc = typename A::Acc;
  Acc acc = a.load(s(0));
  bool broken = std::fabs(static_cast<double>(s(0))) >= threshold;
  for (std::size_t k = 1; k < n; ++k) {
    const auto x = s(k);
    broken = broken || std::fabs(static_cast<double>(x)) >= threshold;
    acc = a.add(acc, a.load(x));
  }
  return broken ? static_cast<Acc>(std::nan("")) : acc;
}

}  // namespace fprev::reference::detail
