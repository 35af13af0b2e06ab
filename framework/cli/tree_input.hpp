// Reading a tree given on the command line: a golden file, a file holding an S-expression, or an
// S-expression itself.
#pragma once

#include <optional>
#include <string>

#include "fprev/golden.hpp"

namespace fprev::cli {

struct TreeInput {
  std::string label;              // the path or "<sexpr>"
  Tree tree;
  std::optional<Golden> golden;   // when a golden file was given
};

TreeInput read_tree_input(const std::string& argument);  // throws UsageError with the position

}  // namespace fprev::cli
