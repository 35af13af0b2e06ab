// One-line S-expression notation for summation trees (docs/golden-format.md): a leaf is its index, an
// inner node is '(' its children separated by single spaces ')', children ordered by their smallest
// leaf index. Examples: "((0 1) (2 3))", "((0 1 2 3) 4 5)", and "0" for a single summand.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fprev/source_position.hpp"
#include "fprev/tree.hpp"

namespace fprev {

// The longest text parse_sexpr reads (16 MiB: a sequential sum of 10^6 summands takes 9 MB).
// Parsing takes memory in proportion to the text, so a longer one is refused before anything is
// allocated for it.
inline constexpr std::size_t kMaxSexprBytes = std::size_t{16} << 20;

// Iterative (any depth). The empty tree prints as "" (which parse_sexpr rejects).
std::string to_sexpr(const Tree& tree);

// what() is "S-expression, position <offset>: <message>" (format_position).
class SexprError : public std::runtime_error {
 public:
  SexprError(std::size_t position, const std::string& message);
  SexprError(SourcePosition where, const std::string& message);
  std::size_t position() const { return *where_.offset; }  // 0-based offset of the offending byte
  const SourcePosition& where() const { return where_; }

 private:
  SourcePosition where_;
};

// Strict parser: exact spacing, no leading zeros, every leaf 0..n-1 exactly once (n is the number
// of leaves written), inner nodes with at least two children. Children may appear in any order;
// the result is canonical. Throws SexprError naming the position and what was expected there; for
// "(01 2)" that is the '1' (a leaf "0" is complete), for a duplicate or out-of-range leaf the first
// such leaf in the text. Iterative (any depth). A text longer than kMaxSexprBytes is refused at
// that offset; messages quote at most a short excerpt of the text.
Tree parse_sexpr(std::string_view text);

}  // namespace fprev
