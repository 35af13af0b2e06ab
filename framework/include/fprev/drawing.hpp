// Drawings of summation trees that scale: what a picture of a tree shows, before it becomes
// Graphviz DOT (fprev/render.hpp).
//
// A tree whose nodes fit in the budget is drawn node for node. A larger tree is drawn at the level
// of its structure, as its structural description (fprev/structure.hpp) sees it:
//   * a chain of many steps (an accumulator adding one item after another) shows its first two
//     steps, one "chain steps" node standing for the steps in between, and its last step; the
//     summands those middle steps add are one "leaves" node ("x3, x4, ..., x4094");
//   * an operand with the same shape as an earlier operand of the same expression (lanes, blocks,
//     the halves of a pairwise sum, thread splits) is a "copies" node naming the earlier one and the
//     shift, so a pattern is drawn once, not 8 or 2048 times;
//   * what still does not fit is a "subtree" node: its leaves and its recognised pattern.
// Subtrees are opened largest first (marked ones first of all) while the budget allows; the
// budget is a hard limit on drawn nodes, and no drawing ever has more than kMaxDrawnNodes, so
// Graphviz always gets a small graph. Every drawn node says how many summands and additions it
// stands for, and Drawing::note says what was collapsed.
//
// Edges go from an operand to the addition that consumes it (the way the additions happen), in
// the order of the addition's operands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fprev/tree.hpp"

namespace fprev {

inline constexpr std::size_t kDefaultDrawnNodes = 100;
inline constexpr std::size_t kMaxDrawnNodes = 1000;

enum class DrawnKind : std::uint8_t {
  leaf,         // one summand
  leaves,       // several summands consumed by one drawn node (a fused sum, collapsed chain steps)
  addition,     // one inner node of the tree: binary, or a fused sum of width > 2
  chain_steps,  // consecutive steps of a chain, collapsed
  subtree,      // a collapsed subtree
  copies,       // subtrees of the same shape as an earlier operand, collapsed
  operands,     // a mixed run of operands of collapsed chain steps (summands and subtrees)
};
std::string_view to_string(DrawnKind kind);

struct DrawnNode {
  DrawnKind kind = DrawnKind::leaf;
  std::vector<std::string> lines;  // the label, one entry per line
  std::size_t leaves = 0;          // summands it stands for
  std::size_t additions = 0;       // inner nodes of the tree it stands for
  std::size_t width = 0;           // addition: its operands (> 2: a fused sum); chain_steps: the chain's width
  std::size_t marked = 0;          // of its additions, how many are marked (DrawingOptions::marked)
  bool identical = false;          // every addition it stands for is in DrawingOptions::identical
  NodeId node = kNoNode;           // leaf, addition, subtree: the tree node
};

struct DrawnEdge {
  std::size_t from = 0;   // the operand (index into Drawing::nodes)
  std::size_t to = 0;     // the addition that consumes it
  std::size_t count = 1;  // operands the edge carries (a leaves, copies or operands node: several)
};

struct Drawing {
  std::vector<DrawnNode> nodes;
  std::vector<DrawnEdge> edges;  // grouped by `to`, each group in operand order
  std::size_t root = 0;          // the node holding the tree's root
  std::size_t tree_nodes = 0;    // nodes of the tree (leaves included)
  std::size_t tree_leaves = 0;
  bool complete = false;         // node for node: nothing collapsed
  // What was collapsed, for the picture: "every node drawn" or e.g. "structure: 9 of 8191 nodes
  // drawn\n4092 additions in collapsed chain steps\n4092 summands in groups".
  std::string note;
};

struct DrawingOptions {
  // The most nodes drawn (clamped to 1..kMaxDrawnNodes). A tree with at most this many nodes is
  // drawn node for node.
  std::size_t max_nodes = kDefaultDrawnNodes;
  // Per tree node (NodeId): inner nodes to highlight, e.g. the nodes of a diff that have no
  // counterpart in the other tree. Subtrees holding marked nodes are opened first and never
  // folded into copies. Empty: none.
  std::vector<bool> marked;
  // Per tree node: subtrees that are the same in another tree (a diff); their collapsed nodes say
  // so. Empty: none.
  std::vector<bool> identical;
  // The line a collapsed node with marked additions gets: "<k> of <n> additions <marked_note>";
  // and the line of a collapsed node that is all identical.
  std::string marked_note = "differ";
  std::string identical_note = "the same in both trees";
};

// Throws std::invalid_argument for an empty tree or marked/identical vectors of the wrong size.
Drawing draw_tree(const Tree& tree, const DrawingOptions& options = {});

}  // namespace fprev
