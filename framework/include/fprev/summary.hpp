// A summary of a summation tree for people: size, depth, arity histogram and a one-line
// description of the accumulation pattern ("sequential", "8 lanes strided, lanes combined
// pairwise", "16 lanes strided, lanes combined pairwise, then the last 8 summands added one by
// one", "fused groups of 17", ...; docs/summaries.md). Patterns are recognised by building the
// candidate tree of each plausible pattern and comparing it with the tree, or by taking the tree
// apart exactly (lanes, the tree above them, a tail), so a description is never a guess, and one
// structure gets the same words at every size.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "fprev/tree.hpp"

namespace fprev {

struct TreeSummary {
  std::size_t leaves = 0;
  std::size_t inner_nodes = 0;
  std::size_t depth = 0;
  std::map<std::size_t, std::size_t> arity;  // children per inner node -> number of such nodes
  std::size_t max_arity = 0;
  std::string description;   // the pattern, or a generic "binary tree, depth 12"
  bool recognized = false;   // description names a known pattern (not the generic fallback)

  friend bool operator==(const TreeSummary&, const TreeSummary&) = default;
};

// Cheap: at most a handful of candidate trees are built, each only when the tree's shape makes it
// plausible (O(n) each), so summaries of 10^5-leaf trees take milliseconds.
TreeSummary summarize(const Tree& tree);

// The fused nodes of an arity histogram: "fused 4-term sums", "fused 3- and 4-term sums",
// "fused 3-, 5- and 9-term sums"; "no fused sums" for a binary tree. A tree that is not a
// recognised pattern is described as "multiway tree: fused 3- and 4-term sums, depth 7".
std::string fused_widths(const std::map<std::size_t, std::size_t>& arity);
// "{2: 1023}" or "{2: 12, 17: 4}"; "{}" for a single leaf.
std::string format_arity(const std::map<std::size_t, std::size_t>& arity);
// "1024 leaves, depth 11, arity {2: 1023}, 8 lanes strided, lanes combined pairwise"
std::string format_summary(const TreeSummary& summary);

// The recognised patterns, as trees. Definitions (those of the reference backend):
//   sequential     ((x0 + x1) + x2) + ...
//   reverse        ((x[n-1] + x[n-2]) + x[n-3]) + ... + x0
//   pairwise       sum(x[0:n]) = sum(x[0:m]) + sum(x[m:n]), m = n/2 (integer division)
//   strided        lane r adds x[r], x[r+K], ... sequentially (only the first min(K, n) lanes
//                  exist); the lane sums combined pairwise (same halving rule over lane indices) or
//                  sequentially
//   blocked        blocks of B consecutive summands, each summed sequentially; block sums combined
//                  sequentially (the last block may be shorter)
//   fused groups   one node fuses x[0..w-1]; each later node fuses the running sum with the next
//                  w-1 summands (the last one may be narrower)
// All require n >= 1; lanes, block >= 1; width >= 2. Built iteratively.
namespace patterns {
enum class LaneCombine { pairwise, sequential };
Tree sequential(std::size_t n);
Tree reverse(std::size_t n);
Tree pairwise(std::size_t n);
Tree strided(std::size_t n, std::size_t lanes, LaneCombine combine);
Tree blocked(std::size_t n, std::size_t block);
Tree fused_groups(std::size_t n, std::size_t width);
}  // namespace patterns

}  // namespace fprev
