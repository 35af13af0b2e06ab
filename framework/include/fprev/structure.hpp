// Structural descriptions: a summation tree written as a few lines that expand to exactly that tree.
//
// Real kernels build their trees from a handful of motifs: a chain (an accumulator adding one item
// after another), lanes (the same chain shifted by 1, 2, ...), blocks, a balanced combination of
// lanes, thread splits, fused w-term steps — nested. A description names each distinct subtree
// *shape* once, as a template, and refers to it with an offset: subtrees that are translations of
// each other (the same shape, leaves shifted by a constant) share one template. Chains are written
// as one item list. A 10^6-leaf dot product becomes a handful of lines, and two kernels that differ
// in their lane count differ in a line or two.
//
// Text form, one template per line, each referring only to earlier ones; the last is the root:
//   T1 = chain(0..960:32)            leaves 0, 32, ..., 960 added one after the other
//   T2 = (T1 T1@4)                   one node: T1, and T1 shifted by 4
//   T3 = (T2 T2@1)
//   T4 = chain(T3@0..2:2 992..999)   (T3@0 T3@2), then + 992, + 993, ... + 999
// Items: a leaf `a`; a progression `a..b` (step 1, or -1 when b < a) or `a..b:s` (|step| s, the
// direction given by a and b; b must be reached exactly); a template `Tk` (offset 0), `Tk@a`, or
// several copies `Tk@a..b:s`, which expand in that order. Expressions:
//   (items)          one inner node whose children are the expanded items (two or more)
//   chain(items)     ((i1 + i2) + i3) + ...: a left fold, one binary node per item after the first
//   chain/w(items)   a fold of fused steps: the first node fuses the first w items, each later node
//                    fuses the running sum with the next w-1 items (the last one may take fewer)
// Offsets inside a template are relative to its smallest leaf, so every template's smallest leaf is
// 0. A single-leaf tree has no template.
//
// describe_structure() is canonical (the same tree always gives the same text) and its result is
// checked by expanding it back; expand_structure() validates everything before building: every
// template's leaf count is computed first (no allocation from an untrusted count), leaves must be in
// range and used exactly once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/tree.hpp"

namespace fprev {

// The most leaves a tree (and so a description) may have: TreeBuilder's limit.
inline constexpr std::size_t kMaxStructureLeaves = 0x7fffffff;

struct StructureItem {
  enum class Kind : std::uint8_t { leaf, templ };
  Kind kind = Kind::leaf;
  std::uint32_t templ = 0;  // 0-based index into StructureDescription::templates (Kind::templ)
  std::int64_t first = 0;   // leaf index or offset of the first copy, relative to the template base
  std::int64_t step = 1;    // between consecutive copies (may be negative; ignored when count == 1)
  std::uint32_t count = 1;  // copies

  friend bool operator==(const StructureItem&, const StructureItem&) = default;
};

struct StructureTemplate {
  std::uint32_t chain_width = 0;  // 0: one node of the items; w >= 2: chain/w (2: chain)
  std::vector<StructureItem> items;

  friend bool operator==(const StructureTemplate&, const StructureTemplate&) = default;
};

struct StructureDescription {
  std::size_t leaves = 0;
  std::vector<StructureTemplate> templates;  // the last is the root (none for a single leaf)

  friend bool operator==(const StructureDescription&, const StructureDescription&) = default;
};

class StructureError : public std::runtime_error {
 public:
  StructureError(std::size_t line, std::size_t column, const std::string& message);
  std::size_t line() const { return line_; }      // 1-based within the description text; 0: none
  std::size_t column() const { return column_; }  // 1-based; 0: the whole line
  const std::string& message() const { return message_; }

 private:
  std::size_t line_;
  std::size_t column_;
  std::string message_;
};

// The canonical description of `tree` (which must not be empty). Linear in the tree's size.
StructureDescription describe_structure(const Tree& tree);

// The tree a description stands for. Throws StructureError (line 0) for an invalid description.
Tree expand_structure(const StructureDescription& description);

// One line per template, "T<k> = <expression>", without line breaks.
std::vector<std::string> structure_lines(const StructureDescription& description);

// Parses lines written by structure_lines() for a tree of `leaves` leaves (the caller knows the
// count, e.g. from a golden's header) and checks that they expand to a tree: throws StructureError
// with the 1-based line and column of the problem. At most `max_line_length` characters per line.
StructureDescription parse_structure(const std::vector<std::string_view>& lines, std::size_t leaves,
                                     std::size_t max_line_length = 4096);

}  // namespace fprev
