// Semantic diff of two summation trees over the same leaves, and its rendering for people (the
// `check` failure message).
//
// Vocabulary: a *cluster* is the leaf set of an inner node. An inner node *agrees* when its cluster
// is also a cluster of the other tree (the root always agrees). A *differing region* is an agreeing
// cluster A directly above disagreement: some inner node below A in either tree disagrees and has A
// as its lowest agreeing ancestor. Both trees add up exactly A's leaves there, but in different
// ways; each region is reported with its subtree from both trees, smallest regions first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fprev/summary.hpp"
#include "fprev/tree.hpp"

namespace fprev {

struct DiffItem {
  std::vector<std::uint32_t> leaves;  // the region's leaves, sorted
  std::string leaves_text;            // compact form: "{0..63}", "{0,8..1016}", "{1,4,9}"
  std::string old_sexpr;              // the region's subtree in the old tree (see TreeDiff)
  std::string new_sexpr;              // ... and in the new tree
};

struct TreeDiff {
  bool comparable = true;  // false when the leaf counts differ (nothing else is filled then)
  bool equal = false;
  std::string note;        // why the trees are not comparable
  TreeSummary old_summary;
  TreeSummary new_summary;
  // Differing regions in the new tree's post-order (lower and further left first), at most
  // DiffOptions::max_items of them; difference_count counts all.
  std::vector<DiffItem> differences;
  std::size_t difference_count = 0;
  std::size_t agreeing_inner_nodes = 0;  // inner nodes whose cluster is in both trees
  std::size_t old_inner = 0;
  std::size_t new_inner = 0;
  // The S-expressions are plain when they fit in max_chars. Otherwise subtrees are written as
  // their leaf set in braces ("{0..63}"): first those identical in both trees, then, if still too
  // long, everything below the largest depth (from the region's root) that fits; what still does
  // not fit ends with "...". `condensed` says whether any brace form was used.
  bool condensed = false;
};

struct DiffOptions {
  std::size_t max_items = 10;   // differing regions described in full
  std::size_t max_chars = 300;  // per S-expression
};

// O(n) expected time (clusters compared as intervals of the old tree's leaf order, Day 1985),
// iterative throughout.
TreeDiff diff_trees(const Tree& old_tree, const Tree& new_tree, const DiffOptions& options = {});

// Node by node: which nodes of two trees over the same leaves agree (the pictures of a diff colour
// them). Vectors are indexed by NodeId of their tree; leaves map to themselves.
struct TreeMatching {
  std::vector<NodeId> old_to_new;    // the new node with the same leaf set (cluster), or kNoNode
  std::vector<NodeId> new_to_old;    // the same the other way round
  std::vector<bool> old_identical;   // the subtree is the same in both trees (all clusters agree)
  std::vector<bool> new_identical;
};
// O(n) expected time. Throws std::invalid_argument when the leaf counts differ.
TreeMatching match_trees(const Tree& old_tree, const Tree& new_tree);

// "{5}", "{0..63}", "{0,8..1016}" (an arithmetic progression), "{1,4,9}", or for long irregular
// sets "{1,4,9,...,998; 312 leaves}". `leaves` must be sorted.
std::string format_leaf_set(const std::vector<std::uint32_t>& leaves);

// Names and identities shown in the report; empty fields are left out.
struct DiffLabels {
  std::string old_name = "golden";
  std::string new_name = "revealed";
  std::string old_identity;  // e.g. "OpenBLAS 0.3.21 (Haswell)"
  std::string new_identity;
  std::string case_id;
  std::string platform_key;
};

// The report for people, e.g.
//   case gemm-float32-m64n64k256 on platform haswell-t1
//   golden:   OpenBLAS 0.3.21 (Haswell)      revealed: OpenBLAS 0.3.26 (Haswell)
//   golden tree:   1024 leaves, depth 11, arity {2: 1023}, 8 lanes strided, lanes combined pairwise
//   revealed tree: 1024 leaves, depth 1023, arity {2: 1023}, sequential
//   first difference, over leaves {0..1023}:
//     golden:   (((((((0 8) 16) 24) 32) ...
//     revealed: (((((((0 1) 2) 3) 4) ...
//   1 of 1023 inner nodes still agree
// Every line ends with '\n'.
std::string render_diff_text(const TreeDiff& diff, const DiffLabels& labels = {});
// Convenience: diff_trees + render_diff_text.
std::string render_diff_text(const Tree& old_tree, const Tree& new_tree,
                             const DiffLabels& labels = {}, const DiffOptions& options = {});

}  // namespace fprev
