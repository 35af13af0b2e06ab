// One-line S-expression notation for summation trees (docs/golden-format.md): a leaf is its index, an
// inner node is '(' its children separated by single spaces ')', children ordered by their smallest
// leaf index. Examples: "((0 1) (2 3))", "((0 1 2 3) 4 5)", and "0" for a single summand.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fprev/tree.hpp"

namespace fprev {

// Iterative (any depth). The empty tree prints as "" (which parse_sexpr rejects).
std::string to_sexpr(const Tree& tree);

class SexprError : public std::runtime_error {
 public:
  SexprError(std::size_t position, const std::string& message);
  std::size_t position() const { return position_; }  // 0-based offset of the offending character

 private:
  std::size_t position_;
};

// Strict parser: exact spacing, no leading zeros, every leaf 0..n-1 exactly once (n is the number
// of leaves written), inner nodes with at least two children. Children may appear in any order;
// the result is canonical. Throws SexprError naming the position and what was expected there; for
// "(01 2)" that is the '1' (a leaf "0" is complete), for a duplicate or out-of-range leaf the first
// such leaf in the text. Iterative (any depth).
Tree parse_sexpr(std::string_view text);

}  // namespace fprev
