// BasicFPRev (Xie et al., USENIX ATC 2025 Alg. 2), extended to multiway trees: measure l(i,j) for every pair, then
// merge bottom-up by increasing l. At each level, the pairs join components into new nodes (several
// components at once for a fused node) whose leaf count must be exactly l. Every one of the n(n-1)/2
// measurements is checked against the tree being built, so any inconsistency is caught.
#include <algorithm>
#include <numeric>
#include <sstream>

#include "algorithms.hpp"

namespace fprev::detail {
namespace {

class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }
  std::uint32_t find(std::uint32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void attach(std::uint32_t child, std::uint32_t root) { parent_[child] = root; }

 private:
  std::vector<std::uint32_t> parent_;
};

struct PairLevel {
  std::uint32_t l;
  std::uint32_t i;
  std::uint32_t j;
};

class BasicFprev final : public RevealAlgorithm {
 public:
  BasicFprev(std::size_t n, const MaskScheme& scheme, const Background* all_active)
      : n_(static_cast<std::uint32_t>(n)) {
    if (n_ >= 2 && n_ - 2 >= scheme.exact_count_limit)
      fail(Finding::unsupported,
           "BasicFPRev needs every count up to n-2 = " + std::to_string(n_ - 2) +
               " to be exact, but the output format counts exactly only below " +
               std::to_string(scheme.exact_count_limit) +
               "; use the default algorithm (fprev), which switches to the low-dynamic-range variant");
    requests_.reserve(static_cast<std::size_t>(n_) * (n_ - 1) / 2);
    for (std::uint32_t i = 0; i < n_; ++i)
      for (std::uint32_t j = i + 1; j < n_; ++j) requests_.push_back({i, j, all_active, n_});
  }

  bool done() const override { return answered_; }
  std::span<const ProbeRequest> wave() override {
    return answered_ ? std::span<const ProbeRequest>() : std::span<const ProbeRequest>(requests_);
  }
  void accept(std::span<const Measurement> results) override {
    tree_ = build(results);
    answered_ = true;
    requests_ = {};
  }
  Tree finish() override { return n_ < 2 ? TreeBuilder(n_).build() : std::move(tree_); }

 private:
  Tree build(std::span<const Measurement> results) const;

  std::uint32_t n_;
  std::vector<ProbeRequest> requests_;
  bool answered_ = false;
  Tree tree_;
};

Tree BasicFprev::build(std::span<const Measurement> results) const {
  const std::uint32_t n = n_;
  const std::vector<ProbeRequest>& requests = requests_;
  std::vector<PairLevel> pairs(requests.size());
  for (std::size_t k = 0; k < requests.size(); ++k)
    pairs[k] = {results[k].l, requests[k].plus, requests[k].minus};
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const PairLevel& a, const PairLevel& b) { return a.l < b.l; });

  if (n >= 3 && !pairs.empty() && pairs.back().l == 2)
    fail(Finding::order_independent,
         "every probe returned all active units: the result does not depend on the order",
         describe_probe(0, 2, n), std::nullopt,
         "an order-independent summation (exact or correctly rounded), or a much wider accumulator");

  TreeBuilder builder(n);
  DisjointSets sets(n);
  std::vector<NodeId> node_of(n);          // tree node of a component (by its set root)
  std::vector<std::uint32_t> level_of(n, 1);  // level at which the component was formed
  std::iota(node_of.begin(), node_of.end(), 0u);
  std::vector<std::vector<NodeId>> joining(n);  // children gathered for a node formed at this level

  const auto inconsistent = [&](const PairLevel& p, const std::string& what) {
    std::ostringstream os;
    os << what << " (l(" << p.i << "," << p.j << ") = " << p.l << ")";
    fail(Finding::inconsistent_structure, os.str(), describe_probe(p.i, p.j, n), std::nullopt,
         "the l(i,j) values cannot come from one fixed summation tree: value-dependent order, "
         "non-determinism, or extra precision");
  };

  std::size_t begin = 0;
  while (begin < pairs.size()) {
    const std::uint32_t l = pairs[begin].l;
    std::size_t end = begin;
    while (end < pairs.size() && pairs[end].l == l) ++end;
    if (l < 2 || l > n) inconsistent(pairs[begin], "l(i,j) out of range");
    std::vector<std::uint32_t> formed;  // set roots of components formed at this level
    for (std::size_t k = begin; k < end; ++k) {
      const PairLevel& p = pairs[k];
      std::uint32_t a = sets.find(p.i), b = sets.find(p.j);
      if (a == b) {
        if (level_of[a] != l) inconsistent(p, "leaves already joined at a lower level");
        continue;
      }
      // Components formed before this level become children of the new node.
      for (std::uint32_t* root : {&a, &b}) {
        if (level_of[*root] != l) {
          joining[*root].assign(1, node_of[*root]);
          level_of[*root] = l;
          formed.push_back(*root);
        }
      }
      if (joining[a].size() < joining[b].size()) std::swap(a, b);
      joining[a].insert(joining[a].end(), joining[b].begin(), joining[b].end());
      joining[b].clear();
      joining[b].shrink_to_fit();
      sets.attach(b, a);
    }
    for (std::uint32_t root : formed) {
      if (sets.find(root) != root) continue;  // merged into another component of this level
      const NodeId node = builder.add_node(joining[root]);
      if (builder.leaves_under(node) != l)
        inconsistent(pairs[begin], "a node formed at level " + std::to_string(l) + " has " +
                                       std::to_string(builder.leaves_under(node)) + " leaves");
      node_of[root] = node;
      joining[root].clear();
      joining[root].shrink_to_fit();
    }
    begin = end;
  }
  return builder.build();
}

}  // namespace

std::unique_ptr<RevealAlgorithm> make_basic(std::size_t n, const MaskScheme& scheme,
                                            const Background* all_active) {
  return std::make_unique<BasicFprev>(n, scheme, all_active);
}

}  // namespace fprev::detail
