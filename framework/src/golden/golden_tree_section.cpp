// A tree in a golden: derived lines, then node lines or a structural description.
#include "golden/golden_tree_section.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "fprev/sexpr.hpp"
#include "fprev/structure.hpp"
#include "text/text_checks.hpp"

namespace fprev::detail {
namespace {

constexpr std::string_view kNodesMarker =
    "# nodes: n<a>.<k> is the inner node whose smallest leaf is a and which has k leaves";
constexpr std::string_view kStructureMarker =
    "# structure: T<k> = <expression>; each template uses earlier ones, the last is the root";
constexpr std::size_t kMaxSexprLine = 200;  // longer trees are readable from the body only
// Trees this small are always written as node lines: they read (and diff) best that way.
constexpr std::size_t kNodeLinesUpTo = 64;
constexpr std::size_t kMaxStructureLineBytes = 64 * 1024;

std::string node_name(const Tree& tree, NodeId node) {
  if (tree.is_leaf(node)) return std::to_string(node);
  return "n" + std::to_string(tree.smallest_leaf(node)) + "." + std::to_string(tree.leaves_under(node));
}

std::string node_line(const Tree& tree, NodeId node) {
  std::string line = node_name(tree, node) + " = (";
  bool first = true;
  for (NodeId child : tree.children(node)) {
    if (!first) line += ' ';
    first = false;
    line += node_name(tree, child);
  }
  line += ')';
  return line;
}

std::string arity_text(const Tree& tree) {
  const auto histogram = tree.arity_histogram();
  if (histogram.empty()) return "none";
  std::string out;
  for (const auto& [arity, count] : histogram) {
    if (!out.empty()) out += ' ';
    out += std::to_string(arity) + ":" + std::to_string(count);
  }
  return out;
}

// The one-line S-expression when it is short enough to be worth a line, else nullopt.
std::optional<std::string> short_sexpr(const Tree& tree) {
  // At least one character per leaf, so a tree with more leaves can never fit.
  if (tree.leaf_count() > kMaxSexprLine) return std::nullopt;
  std::string text = to_sexpr(tree);
  if (text.size() > kMaxSexprLine) return std::nullopt;
  return text;
}

std::size_t node_lines_bytes(const Tree& tree) {
  std::size_t bytes = 0;
  for (NodeId node = static_cast<NodeId>(tree.leaf_count()); node < tree.node_count(); ++node)
    bytes += node_line(tree, node).size() + 1;
  return bytes;
}

// The structural description's lines when the tree is written that way (canonical: decided by the
// tree alone), else nullopt: node lines for small trees, and wherever the description is no
// shorter than the node lines (an irregular tree).
std::optional<std::vector<std::string>> structure_body(const Tree& tree) {
  if (tree.inner_count() <= kNodeLinesUpTo || tree.leaf_count() > kMaxGoldenTotalLeaves) return std::nullopt;
  std::vector<std::string> lines = structure_lines(describe_structure(tree));
  std::size_t bytes = 0;
  for (const std::string& line : lines) {
    if (line.size() > kMaxStructureLineBytes) return std::nullopt;
    bytes += line.size() + 1;
  }
  if (bytes >= node_lines_bytes(tree)) return std::nullopt;
  return lines;
}

// An upper bound on the leaves the node lines from here to the next comment line name: every leaf
// is a child on a node line, and a line "<name> = (<a> <b> ...)" has one more child than spaces
// inside its list.
std::size_t children_written(std::string_view rest) {
  std::size_t children = 0;
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    const std::string_view line = rest.substr(0, end);
    if (!line.empty() && line.front() == '#') break;
    if (const std::size_t list = line.find(" = ("); list != std::string_view::npos)
      children += 1 + static_cast<std::size_t>(
                          std::count(line.begin() + static_cast<std::ptrdiff_t>(list + 4), line.end(), ' '));
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  return children;
}

// The `leaves` value: a whole number from 1 to kMaxTreeLeaves (checked before anything is
// allocated for it).
std::size_t parse_leaf_count(GoldenLineReader& reader, const KeyLine& written) {
  const std::string_view text = written.value;
  std::uint64_t value = 0;
  const bool digits = all_digits(text) && (text.size() == 1 || text[0] != '0');
  for (const char c : digits ? text : std::string_view())
    value = std::min<std::uint64_t>(value * 10 + static_cast<std::uint64_t>(c - '0'), std::uint64_t{1} << 40);
  if (!digits || value == 0)
    reader.fail_at(written.line, "leaves must be a positive whole number, got " + quoted_excerpt(text));
  if (value > kMaxTreeLeaves)
    reader.fail_at(written.line,
                   "leaves is " + bounded_number_text(text) + ", more than the " +
                       with_thousands_separators(kMaxTreeLeaves) +
                       " leaves a tree can have (its node ids are 32-bit)");
  return static_cast<std::size_t>(value);
}

// Builder-local facts about a node defined by a node line.
struct ParsedNode {
  NodeId builder_id;
  std::uint32_t smallest_leaf;
  std::uint32_t leaves;
  std::size_t line;
};

std::uint64_t name_key(std::uint32_t smallest_leaf, std::uint32_t leaves) {
  return (static_cast<std::uint64_t>(smallest_leaf) << 32) | leaves;
}

// "n<a>.<k>" -> (a, k)
std::optional<std::pair<std::uint32_t, std::uint32_t>> parse_node_name(std::string_view token) {
  if (token.size() < 4 || token[0] != 'n') return std::nullopt;
  const std::size_t dot = token.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto a = parse_index(token.substr(1, dot - 1));
  const auto k = parse_index(token.substr(dot + 1));
  if (!a || !k) return std::nullopt;
  return std::pair{*a, *k};
}

class NodeParser {
 public:
  NodeParser(GoldenLineReader& reader, std::size_t leaf_count)
      : reader_(reader), n_(leaf_count), builder_(leaf_count), leaf_used_(leaf_count, false) {}

  void parse_line(std::string_view line) {
    constexpr std::string_view kSyntax = "expected 'n<a>.<k> = (<child> <child> ...)'";
    const std::size_t equals = line.find(" = (");
    if (equals == std::string_view::npos || line.back() != ')')
      reader_.fail("malformed node line " + quoted_excerpt(line) + ": " + std::string(kSyntax));
    const std::string_view name = line.substr(0, equals);
    const auto declared = parse_node_name(name);
    if (!declared)
      reader_.fail("malformed node name " + quoted_excerpt(name) + ": " + std::string(kSyntax));
    if (const auto it = by_name_.find(name_key(declared->first, declared->second));
        it != by_name_.end())
      reader_.fail("node " + std::string(name) + " is defined twice (first on line " +
                   std::to_string(nodes_[it->second].line) + ")");
    if (nodes_.size() + 1 > (n_ > 0 ? n_ - 1 : 0))
      reader_.fail("more inner nodes than a tree with " + std::to_string(n_) + " leaves can have");

    std::string_view list = line.substr(equals + 4, line.size() - equals - 5);
    std::vector<NodeId> children;
    std::vector<NodeId> inner_children;
    std::uint32_t smallest = kNoNode;
    std::uint32_t leaves = 0;
    std::uint32_t previous_smallest = 0;
    while (true) {
      const std::size_t space = list.find(' ');
      const std::string_view token = list.substr(0, space);
      if (token.empty())
        reader_.fail("malformed child list in " + quoted_excerpt(line) +
                     ": children are separated by single spaces");
      const auto [child, child_smallest, child_leaves, child_is_inner] = resolve_child(token);
      if (child_is_inner) inner_children.push_back(child);
      if (!children.empty() && child_smallest <= previous_smallest)
        reader_.fail("children of " + std::string(name) +
                     " are not ordered by their smallest leaf (canonical order)");
      previous_smallest = child_smallest;
      smallest = std::min(smallest, child_smallest);
      leaves += child_leaves;
      children.push_back(child);
      if (space == std::string_view::npos) break;
      list.remove_prefix(space + 1);
    }
    if (children.size() < 2) reader_.fail("node " + std::string(name) + " has fewer than two children");
    if (smallest != declared->first || leaves != declared->second)
      reader_.fail("node name " + std::string(name) + " does not match its children (smallest leaf " +
                   std::to_string(smallest) + ", " + std::to_string(leaves) + " leaves: expected n" +
                   std::to_string(smallest) + "." + std::to_string(leaves) + ")");
    NodeId id = kNoNode;
    try {
      id = builder_.add_node(children);
    } catch (const TreeError& error) {
      reader_.fail(std::string("invalid node: ") + error.what());
    }
    by_name_.emplace(name_key(smallest, leaves), nodes_.size());
    nodes_.push_back({id, smallest, leaves, reader_.line()});
    used_inner_.insert(inner_children.begin(), inner_children.end());
  }

  Tree finish(std::size_t end_line) {
    for (std::size_t leaf = 0; leaf < n_ && n_ > 1; ++leaf)
      if (!leaf_used_[leaf])
        reader_.fail_at(end_line, "leaf " + std::to_string(leaf) + " is not a child of any node");
    if (n_ > 1) {
      std::size_t roots = 0;
      for (const auto& node : nodes_)
        if (!used_inner_.contains(node.builder_id)) ++roots;
      if (roots != 1)
        reader_.fail_at(end_line, "the nodes form " + std::to_string(roots) +
                                      " separate trees instead of one");
    }
    try {
      return builder_.build();
    } catch (const TreeError& error) {
      reader_.fail_at(end_line, std::string("the nodes do not form a valid tree: ") + error.what());
    }
  }

  const std::vector<ParsedNode>& nodes() const { return nodes_; }

 private:
  struct Child {
    NodeId id;
    std::uint32_t smallest_leaf;
    std::uint32_t leaves;
    bool inner;
  };

  Child resolve_child(std::string_view token) {
    if (token.front() == 'n') {
      const auto name = parse_node_name(token);
      if (!name) reader_.fail("malformed child " + quoted_excerpt(token));
      const auto it = by_name_.find(name_key(name->first, name->second));
      if (it == by_name_.end())
        reader_.fail("child " + std::string(token) +
                     " is not defined on an earlier line (children come before parents)");
      const ParsedNode& node = nodes_[it->second];
      if (used_inner_.contains(node.builder_id))
        reader_.fail("node " + std::string(token) + " is a child of two nodes");
      return {node.builder_id, node.smallest_leaf, node.leaves, true};
    }
    const auto leaf = parse_index(token);
    if (!leaf) reader_.fail("malformed child " + quoted_excerpt(token));
    if (*leaf >= n_)
      reader_.fail("leaf " + std::string(token) + " out of range (leaves: " + std::to_string(n_) + ")");
    if (leaf_used_[*leaf]) reader_.fail("leaf " + std::string(token) + " is a child of two nodes");
    leaf_used_[*leaf] = true;
    return {*leaf, *leaf, 1, false};
  }

  GoldenLineReader& reader_;
  std::size_t n_;
  TreeBuilder builder_;
  std::vector<bool> leaf_used_;
  std::unordered_set<NodeId> used_inner_;  // builder ids of inner nodes that have a parent
  std::unordered_map<std::uint64_t, std::size_t> by_name_;  // name -> index into nodes_
  std::vector<ParsedNode> nodes_;
};

bool at_comment(const GoldenLineReader& reader) {
  const auto upcoming = reader.peek();
  return !upcoming || (!upcoming->empty() && upcoming->front() == '#');
}

template <class Spend>
Tree parse_node_lines(GoldenLineReader& reader, const KeyLine& leaves_line, std::size_t leaves, Spend spend) {
  if (leaves > 1) {
    const std::size_t named = children_written(reader.rest());
    if (leaves > named)
      reader.fail_at(leaves_line.line, "leaves is " + bounded_number_text(leaves_line.value) +
                                           " but the node lines name at most " +
                                           with_thousands_separators(named) +
                                           " children (file truncated?)");
  }
  spend();
  NodeParser nodes(reader, leaves);
  while (!at_comment(reader)) {
    const std::string_view line = *reader.next();
    if (line.empty()) reader.fail("unexpected empty line");
    nodes.parse_line(line);
  }
  if (!reader.peek()) reader.fail_at(reader.line() + 1, "missing '# end' line: the file is truncated");
  Tree tree = nodes.finish(reader.line() + 1);
  // The node lines must be in canonical (post-order) order, so that re-writing gives the same bytes.
  const auto& parsed = nodes.nodes();
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    const NodeId node = static_cast<NodeId>(tree.leaf_count() + i);
    if (parsed[i].smallest_leaf != tree.smallest_leaf(node) || parsed[i].leaves != tree.leaves_under(node))
      reader.fail_at(parsed[i].line, "node lines are not in canonical order (children before "
                                     "parents, earlier subtrees first): expected " +
                                         shorten_message(node_line(tree, node), 120) + " here");
  }
  return tree;
}

Tree parse_structure_lines(GoldenLineReader& reader, std::size_t leaves) {
  const std::size_t marker_line = reader.line();
  std::vector<std::string_view> lines;
  while (!at_comment(reader)) lines.push_back(*reader.next());
  if (!reader.peek()) reader.fail_at(reader.line() + 1, "missing '# end' line: the file is truncated");
  StructureDescription description;
  try {
    description = parse_structure(lines, leaves, kMaxStructureLineBytes);
  } catch (const StructureError& e) {
    const std::size_t line = e.line() == 0 ? marker_line : marker_line + e.line();
    reader.fail_at(line, (e.column() > 0 ? "column " + std::to_string(e.column()) + ": " : std::string()) +
                             e.message());
  }
  Tree tree = expand_structure(description);
  // Canonical: the same tree always writes the same description.
  if (!(describe_structure(tree) == description))
    reader.fail_at(marker_line + 1, "the structural description is not the canonical one of its tree "
                                    "(fprev-golden update rewrites it)");
  return tree;
}

}  // namespace

bool is_tree_body_marker(std::string_view line) { return line == kNodesMarker || line == kStructureMarker; }

bool TreeKeys::take(const KeyLine& line) {
  std::optional<KeyLine>* slot = nullptr;
  if (line.key == "leaves") slot = &leaves;
  else if (line.key == "inner-nodes") slot = &inner_nodes;
  else if (line.key == "depth") slot = &depth;
  else if (line.key == "arity") slot = &arity;
  else if (line.key == "sexpr") slot = &sexpr;
  if (slot == nullptr) return false;
  *slot = line;
  return true;
}

void append_tree_section(std::string& out, const Tree& tree) {
  append_key(out, "leaves", std::to_string(tree.leaf_count()));
  append_key(out, "inner-nodes", std::to_string(tree.inner_count()));
  append_key(out, "depth", std::to_string(tree.depth()));
  append_key(out, "arity", arity_text(tree));
  if (const auto sexpr = short_sexpr(tree)) append_key(out, "sexpr", *sexpr);
  if (const auto structure = structure_body(tree)) {
    out += kStructureMarker;
    out += '\n';
    for (const std::string& line : *structure) {
      out += line;
      out += '\n';
    }
    return;
  }
  out += kNodesMarker;
  out += '\n';
  for (NodeId node = static_cast<NodeId>(tree.leaf_count()); node < tree.node_count(); ++node) {
    out += node_line(tree, node);
    out += '\n';
  }
}

Tree parse_tree_section(GoldenLineReader& reader, const TreeKeys& keys, std::size_t block_end_line,
                        LeafBudget& leaf_budget, int format_version) {
  const std::pair<const std::optional<KeyLine>*, std::string_view> required[] = {
      {&keys.leaves, "leaves"}, {&keys.inner_nodes, "inner-nodes"}, {&keys.depth, "depth"},
      {&keys.arity, "arity"}};
  const auto marker = reader.peek();
  if (!marker)
    reader.fail_at(reader.line() + 1, "missing '# nodes' line: the file is truncated");
  for (const auto& [key, name] : required)
    if (!*key) reader.fail_at(reader.line() + 1, "missing key '" + std::string(name) + "'");
  const std::size_t leaves = parse_leaf_count(reader, *keys.leaves);
  if (leaf_budget.per_tree != 0 && leaves != leaf_budget.per_tree)
    reader.fail_at(keys.leaves->line, "leaves is " + with_thousands_separators(leaves) + ", but the case has " +
                                          with_thousands_separators(leaf_budget.per_tree) +
                                          " summands: this tree belongs to a case of another size");
  // Checked before anything is allocated for the leaves (node lines: once their count is known to
  // be plausible, for the more specific message).
  const auto spend = [&] {
    if (leaves > leaf_budget.left)
      reader.fail_at(keys.leaves->line,
                     "leaves is " + with_thousands_separators(leaves) + ": a golden holds at most " +
                         with_thousands_separators(kMaxGoldenTotalLeaves) +
                         " leaves in all its trees together (the memory to build them)");
    leaf_budget.left -= leaves;
  };
  reader.next();  // the marker
  Tree tree;
  if (*marker == kNodesMarker) {
    tree = parse_node_lines(reader, *keys.leaves, leaves, spend);
  } else if (*marker == kStructureMarker && format_version >= 2) {
    spend();
    tree = parse_structure_lines(reader, leaves);
  } else {
    reader.fail("unexpected comment line; expected 'key: value', '" + std::string(kNodesMarker) +
                "' or '" + std::string(kStructureMarker) + "'");
  }
  // Version 1 wrote node lines only; since version 2 the form is decided by the tree (canonical).
  const bool as_structure = *marker == kStructureMarker;
  if (format_version >= 2 && as_structure != structure_body(tree).has_value())
    reader.fail_at(block_end_line + 1,
                   std::string("this tree is written as ") +
                       (as_structure ? "node lines" : "a structural description") +
                       " in canonical form, not as " +
                       (as_structure ? "a structural description" : "node lines") +
                       " (fprev-golden update rewrites it)");

  // The derived lines must agree with the tree.
  const auto check = [&](const KeyLine& written, std::string_view name, const std::string& actual) {
    if (written.value != actual)
      reader.fail_at(written.line, std::string(name) + " is " + quoted_excerpt(written.value) +
                                       " but the nodes give " + quoted_excerpt(actual, 240));
  };
  check(*keys.inner_nodes, "inner-nodes", std::to_string(tree.inner_count()));
  check(*keys.depth, "depth", std::to_string(tree.depth()));
  check(*keys.arity, "arity", arity_text(tree));
  const auto sexpr = short_sexpr(tree);
  if (sexpr && !keys.sexpr)
    reader.fail_at(block_end_line + 1, "missing key 'sexpr' (written for trees whose S-expression has at "
                                       "most " + std::to_string(kMaxSexprLine) + " characters)");
  if (!sexpr && keys.sexpr)
    reader.fail_at(keys.sexpr->line,
                   "unexpected key 'sexpr' (only written for trees whose S-expression has at most " +
                       std::to_string(kMaxSexprLine) + " characters)");
  if (sexpr) check(*keys.sexpr, "sexpr", *sexpr);
  return tree;
}

}  // namespace fprev::detail
