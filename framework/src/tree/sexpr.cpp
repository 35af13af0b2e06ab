// One-line S-expressions for trees: printing and the strict parser. Both iterative (any depth).
#include "fprev/sexpr.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <vector>

#include "text/text_checks.hpp"

namespace fprev {
namespace {

void append_number(std::string& out, std::uint32_t value) {
  char digits[16];
  const auto result = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, result.ptr);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string describe(char c) {
  if (c == ' ') return "' ' (a space)";
  if (c > ' ' && c < 127) return std::string("'") + c + "'";
  static const char* hex = "0123456789abcdef";
  const auto byte = static_cast<unsigned char>(c);
  return std::string("byte 0x") + hex[byte >> 4] + hex[byte & 15];
}

// A child reference while parsing: leaves by their index in text order, inner nodes by the order
// in which they were closed.
struct Ref {
  bool inner;
  std::uint32_t index;
};

struct WrittenLeaf {
  std::uint64_t value;  // saturated at kTooLarge
  std::size_t position;
};

constexpr std::uint64_t kTooLarge = std::uint64_t{1} << 40;

}  // namespace

SexprError::SexprError(std::size_t position, const std::string& message)
    : SexprError(SourcePosition::at_offset("S-expression", position), message) {}

SexprError::SexprError(SourcePosition where, const std::string& message)
    : std::runtime_error(format_position(where) + ": " + message), where_(std::move(where)) {}

std::string to_sexpr(const Tree& tree) {
  std::string out;
  if (tree.empty()) return out;
  const NodeId root = tree.root();
  if (tree.is_leaf(root)) {
    append_number(out, root);
    return out;
  }
  out.reserve(tree.node_count() * 4);
  struct Frame {
    NodeId node;
    std::uint32_t next;
  };
  std::vector<Frame> stack{{root, 0}};
  out += '(';
  while (!stack.empty()) {
    Frame& top = stack.back();
    const std::span<const NodeId> kids = tree.children(top.node);
    if (top.next == kids.size()) {
      out += ')';
      stack.pop_back();
      continue;
    }
    if (top.next > 0) out += ' ';
    const NodeId child = kids[top.next++];
    if (tree.is_leaf(child)) {
      append_number(out, child);
    } else {
      out += '(';
      stack.push_back({child, 0});
    }
  }
  return out;
}

Tree parse_sexpr(std::string_view text) {
  if (text.size() > kMaxSexprBytes) {
    throw SexprError(kMaxSexprBytes, "the text has " + detail::with_thousands_separators(text.size()) +
                                         " bytes, more than the " +
                                         detail::with_thousands_separators(kMaxSexprBytes) +
                                         " an S-expression may have");
  }
  std::vector<WrittenLeaf> leaves;
  std::vector<Ref> pending;              // children of the open nodes, innermost last
  std::vector<std::size_t> open;         // per open node: where its children start in `pending`
  std::vector<Ref> closed_children;      // children of closed inner nodes, flattened
  std::vector<std::size_t> closed_begin{0};

  const std::size_t length = text.size();
  std::size_t pos = 0;
  bool want_tree = true;  // else: a child (or the whole tree) just ended
  while (true) {
    if (want_tree) {
      if (pos == length) {
        throw SexprError(pos, "expected a leaf index or '(' but found the end of the text");
      }
      const char c = text[pos];
      if (c == '(') {
        open.push_back(pending.size());
        ++pos;
        continue;
      }
      if (!is_digit(c)) {
        throw SexprError(pos, "expected a leaf index or '(' but found " + describe(c));
      }
      // A leaf: "0" or a digit 1-9 followed by digits. After a '0' the leaf is complete, so a
      // leading zero shows up as an unexpected digit below.
      const std::size_t start = pos;
      std::uint64_t value = 0;
      if (c == '0') {
        ++pos;
      } else {
        while (pos < length && is_digit(text[pos])) {
          value = std::min(kTooLarge, value * 10 + static_cast<std::uint64_t>(text[pos] - '0'));
          ++pos;
        }
      }
      if (leaves.size() >= kNoNode / 2) throw SexprError(start, "too many leaves");
      pending.push_back({false, static_cast<std::uint32_t>(leaves.size())});
      leaves.push_back({value, start});
      want_tree = false;
      continue;
    }

    const char* leading_zero =
        pos < length && is_digit(text[pos]) && text[pos - 1] == '0'
            ? " (leaf indices are written without leading zeros)"
            : "";
    if (open.empty()) {
      if (pos == length) break;
      throw SexprError(pos, "expected the end of the text after the complete tree but found " +
                                describe(text[pos]) + leading_zero);
    }
    if (pos == length) {
      throw SexprError(pos, "expected ' ' or ')' but found the end of the text (" +
                                std::to_string(open.size()) + " '(' not closed)");
    }
    const char c = text[pos];
    if (c == ' ') {
      ++pos;
      want_tree = true;
      continue;
    }
    if (c != ')') {
      throw SexprError(pos, "expected ' ' or ')' but found " + describe(c) + leading_zero);
    }
    const std::size_t first_child = open.back();
    if (pending.size() - first_child < 2) {
      throw SexprError(pos, "expected ' ' and a second child but found ')': an inner node needs "
                            "at least two children");
    }
    closed_children.insert(closed_children.end(), pending.begin() + static_cast<std::ptrdiff_t>(first_child),
                           pending.end());
    closed_begin.push_back(closed_children.size());
    pending.resize(first_child);
    pending.push_back({true, static_cast<std::uint32_t>(closed_begin.size() - 2)});
    open.pop_back();
    ++pos;
  }

  // Leaves must be exactly 0..n-1; report the first offender in text order.
  const std::size_t n = leaves.size();
  std::vector<std::size_t> first_seen(n, length);
  for (const WrittenLeaf& leaf : leaves) {
    if (leaf.value >= n) {
      std::size_t end = leaf.position;
      while (end < length && is_digit(text[end])) ++end;
      throw SexprError(leaf.position,
                       "leaf index " +
                           detail::bounded_number_text(text.substr(leaf.position, end - leaf.position)) +
                           " is out of range: the text has " + std::to_string(n) +
                           " leaves, so the indices must be 0.." + std::to_string(n - 1));
    }
    std::size_t& seen = first_seen[leaf.value];
    if (seen != length) {
      throw SexprError(leaf.position, "leaf " + std::to_string(leaf.value) +
                                          " appears twice (first at position " +
                                          std::to_string(seen) + ")");
    }
    seen = leaf.position;
  }

  TreeBuilder builder(n);
  std::vector<NodeId> children;
  for (std::size_t k = 0; k + 1 < closed_begin.size(); ++k) {
    children.clear();
    for (std::size_t c = closed_begin[k]; c < closed_begin[k + 1]; ++c) {
      const Ref ref = closed_children[c];
      children.push_back(ref.inner ? static_cast<NodeId>(n + ref.index)
                                   : static_cast<NodeId>(leaves[ref.index].value));
    }
    builder.add_node(children);
  }
  return builder.build();
}

}  // namespace fprev
