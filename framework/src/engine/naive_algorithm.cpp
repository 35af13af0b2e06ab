// The naive search of Xie et al., USENIX ATC 2025 Sec. 3.3: enumerate every summation tree of n <= 8 leaves (binary,
// and multiway up to the target's max_fused_width) and keep those that reproduce the target's
// outputs on random inputs under the simulation model. Exponential: for cross-checking only.
//
// Dynamic programming over leaf subsets: the candidate subtrees of a subset S are computed once,
// with their simulated values on every random input; a tree on S is a partition of S into 2..w
// blocks (the first block holding S's lowest leaf) with one candidate subtree per block.
#include <bit>
#include <functional>
#include <sstream>

#include "algorithms.hpp"
#include "simulate_internal.hpp"

namespace fprev::detail {
namespace {

constexpr std::size_t kMaxNaiveLeaves = 8;
constexpr std::size_t kInputs = kNaiveInputs;

struct Part {
  std::uint32_t subset;
  std::uint32_t candidate;
};

struct Candidates {
  std::vector<double> values;            // candidate c occupies [c*kInputs, (c+1)*kInputs)
  std::vector<std::vector<Part>> parts;  // children of the candidate's root (empty for a leaf)
  std::size_t size() const { return parts.size(); }
};

// Calls visit(blocks) for every partition of `set` into 2..max_blocks blocks, the first block
// containing the lowest element. Recursion depth is bounded by the number of leaves (<= 8).
void for_each_partition(std::uint32_t set, std::size_t max_blocks,
                        const std::function<void(const std::vector<std::uint32_t>&)>& visit) {
  std::vector<std::uint32_t> blocks;
  std::function<void(std::uint32_t)> rest = [&](std::uint32_t remaining) {
    if (remaining == 0) {
      if (blocks.size() >= 2) visit(blocks);
      return;
    }
    if (blocks.size() == max_blocks) return;
    const std::uint32_t lowest = remaining & (~remaining + 1);
    const std::uint32_t others = remaining & ~lowest;
    // every subset of `others`, joined with `lowest`, is a candidate block
    for (std::uint32_t sub = others;; sub = (sub - 1) & others) {
      const std::uint32_t block = sub | lowest;
      if (block != set) {
        blocks.push_back(block);
        rest(remaining & ~block);
        blocks.pop_back();
      }
      if (sub == 0) break;
    }
  };
  rest(set);
}

class NaiveSearch {
 public:
  NaiveSearch(const TargetInfo& info, const RandomInputs& inputs, std::size_t n)
      : traits_(info.traits), n_(n), by_subset_(std::size_t{1} << n) {
    for (std::size_t k = 0; k < n; ++k) {
      Candidates& leaf = by_subset_[std::size_t{1} << k];
      leaf.parts.emplace_back();
      for (std::size_t r = 0; r < kInputs; ++r)
        leaf.values.push_back(inputs.summand(r, n, k));  // as simulate_sum: summands unrounded
    }
  }

  // Every tree on all n leaves whose outputs equal `expected`.
  std::vector<std::vector<Part>> matches(const std::vector<double>& expected) {
    const std::uint32_t full = static_cast<std::uint32_t>((std::size_t{1} << n_) - 1);
    for (std::uint32_t size = 2; size < n_; ++size)
      for (std::uint32_t s = 1; s < full; ++s)
        if (static_cast<std::uint32_t>(std::popcount(s)) == size) build(s, nullptr, nullptr);
    std::vector<std::vector<Part>> found;
    build(full, &expected, &found);
    return found;
  }

  Tree to_tree(const std::vector<Part>& root_parts) const {
    TreeBuilder builder(n_);
    // Post-order construction with an explicit stack (depth <= n <= 8 anyway).
    std::function<NodeId(const std::vector<Part>&)> make = [&](const std::vector<Part>& parts) {
      std::vector<NodeId> children;
      for (const Part& p : parts) {
        if (std::popcount(p.subset) == 1) {
          children.push_back(static_cast<NodeId>(std::countr_zero(p.subset)));
        } else {
          children.push_back(make(by_subset_[p.subset].parts[p.candidate]));
        }
      }
      return builder.add_node(children);
    };
    make(root_parts);
    return builder.build();
  }

 private:
  void build(std::uint32_t set, const std::vector<double>* expected,
             std::vector<std::vector<Part>>* found) {
    const std::size_t max_blocks = std::max<std::size_t>(2, traits_.max_fused_width);
    Candidates& out = by_subset_[set];
    std::vector<double> terms;
    std::vector<double> result(kInputs);
    for_each_partition(set, max_blocks, [&](const std::vector<std::uint32_t>& blocks) {
      std::vector<std::uint32_t> index(blocks.size(), 0);
      for (;;) {
        for (std::size_t r = 0; r < kInputs; ++r) {
          if (blocks.size() == 2) {
            result[r] = add_in_format(value(blocks[0], index[0], r), value(blocks[1], index[1], r),
                                      traits_.accumulator);
          } else {
            terms.clear();
            for (std::size_t b = 0; b < blocks.size(); ++b) terms.push_back(value(blocks[b], index[b], r));
            result[r] = fused_sum(terms, traits_.accumulator, traits_.fused_extra_bits);
          }
        }
        std::vector<Part> parts(blocks.size());
        for (std::size_t b = 0; b < blocks.size(); ++b) parts[b] = {blocks[b], index[b]};
        if (expected != nullptr) {
          bool same = true;
          for (std::size_t r = 0; r < kInputs && same; ++r)
            same = round_to_format(result[r], traits_.output) == (*expected)[r];
          if (same) found->push_back(std::move(parts));
        } else {
          out.values.insert(out.values.end(), result.begin(), result.end());
          out.parts.push_back(std::move(parts));
        }
        // next combination of candidate subtrees (mixed-radix counter)
        std::size_t b = 0;
        while (b < blocks.size() && ++index[b] == by_subset_[blocks[b]].size()) index[b++] = 0;
        if (b == blocks.size()) break;
      }
    });
  }

  double value(std::uint32_t subset, std::uint32_t candidate, std::size_t input) const {
    return by_subset_[subset].values[candidate * kInputs + input];
  }

  NumericTraits traits_;
  std::size_t n_;
  std::vector<Candidates> by_subset_;
};

}  // namespace

void check_naive_size(std::size_t n) {
  if (n > kMaxNaiveLeaves)
    fail(Finding::unsupported, "the naive search enumerates every tree and is limited to n <= " +
                                   std::to_string(kMaxNaiveLeaves) + " (n = " + std::to_string(n) + ")");
}

RandomInputs naive_inputs(const TargetInfo& info, std::uint64_t seed) {
  // Summands within a few binades of each other: every addition rounds, so different trees give
  // different results (widely spread values would swamp each other and hide the order).
  return make_random_inputs(info, kNaiveInputs, seed, 3);
}

Tree naive_search(const TargetInfo& info, const RandomInputs& inputs,
                  const std::vector<double>& expected) {
  const std::size_t n = info.n;
  check_naive_size(n);
  if (n == 1) return TreeBuilder(1).build();
  NaiveSearch search(info, inputs, n);
  const auto found = search.matches(expected);
  if (found.empty())
    fail(Finding::verification_failed,
         "no summation tree of " + std::to_string(n) +
             " leaves reproduces the target's outputs on random inputs",
         {}, expected.front(),
         "the target's arithmetic differs from the simulation model (extra precision, FMA chains, "
         "a fused-sum model other than truncation), or its order depends on the values");
  if (found.size() > 1)
    fail(Finding::unsupported,
         std::to_string(found.size()) +
             " different trees reproduce the random inputs; the naive search cannot decide");
  return search.to_tree(found.front());
}

Tree run_naive(ProbeSession& session, std::uint64_t seed) {
  const TargetInfo& info = session.info();
  check_naive_size(info.n);
  if (info.n == 1) return TreeBuilder(1).build();
  const RandomInputs inputs = naive_inputs(info, seed);
  return naive_search(info, inputs, session.evaluate_values(kNaiveInputs, inputs.a, inputs.b));
}

}  // namespace fprev::detail
