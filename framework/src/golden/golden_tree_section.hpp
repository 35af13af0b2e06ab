// A summation tree inside a golden (fprev/golden.hpp): its derived lines (leaves, inner-nodes,
// depth, arity, sexpr), then its body as node lines or as a structural description. Private to the
// golden layer.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "fprev/tree.hpp"
#include "golden/golden_lines.hpp"

namespace fprev::detail {

// Whether `line` starts the body of a tree ("# nodes: ..." or "# structure: ...").
bool is_tree_body_marker(std::string_view line);

// Appends the derived lines, the body's marker line and the body.
void append_tree_section(std::string& out, const Tree& tree);

// The derived lines of one tree, as read from a key block.
struct TreeKeys {
  std::optional<KeyLine> leaves, inner_nodes, depth, arity, sexpr;
  // Takes `line` when it is one of the derived keys; false otherwise.
  bool take(const KeyLine& line);
};

// What the trees of one golden may still hold: kMaxGoldenTotalLeaves in all at first, and, when
// the golden is read for a case, exactly that case's leaves in each tree (a golden's work is
// bounded by its case: a few lines can describe a chain of millions of leaves).
struct LeafBudget {
  std::size_t left = 0;
  std::size_t per_tree = 0;  // 0: any size
};

// Reads the body that follows a key block (the marker line "# nodes: ..." or "# structure: ...",
// then the node or template lines up to the next comment line, which is left unread) and checks the
// derived lines against the tree. `block_end_line` is the line number of the block's last line.
// `leaf_budget` is reduced by the tree's leaves, and its per-tree size compared, before anything is
// allocated for them. Version 1 goldens have node
// lines only; from version 2 on, the body's form must be the canonical one for the tree.
Tree parse_tree_section(GoldenLineReader& reader, const TreeKeys& keys, std::size_t block_end_line,
                        LeafBudget& leaf_budget, int format_version);

}  // namespace fprev::detail
