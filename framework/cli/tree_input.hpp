// Reading a result given on the command line: a golden file (a tree, an order map or a recorded
// finding), a file holding an S-expression, or an S-expression itself.
#pragma once

#include <optional>
#include <string>

#include "fprev/golden.hpp"

namespace fprev::cli {

struct TreeInput {
  std::string label;   // the path or "<sexpr>"
  Golden result;       // what it records; an S-expression is a single tree without metadata
  bool is_golden_file = false;
  const Tree* tree() const { return result.is_single_tree() ? &result.tree() : nullptr; }
};

TreeInput read_tree_input(const std::string& argument);  // throws UsageError with the position

}  // namespace fprev::cli
