// Structural descriptions (fprev/structure.hpp): recognition and expansion.
//
// Recognition, bottom-up over the canonical tree:
//  * The accumulator of an inner node is its child with strictly the most leaves, if that child is
//    an inner node. A node *absorbs* its accumulator c — both belong to one chain — when c is a full
//    step of its chain (arity(c) == the chain's width) and the node is no wider than that width. A
//    chain's width is the arity of its lowest node; only its top node may be narrower.
//  * Every node that is not absorbed is the top of an expression: its chain's items (all children
//    of the lowest node, then the non-accumulator children of each node above) or, for a chain of
//    one node, that node's children. Items are leaves or tops of other expressions.
//  * Expressions that are translations of each other (same kind, same items relative to their
//    smallest leaf) share a template, so lanes, blocks and thread halves are written once.
// Expansion validates sizes and leaf ranges from the templates alone before building anything.
#include <algorithm>
#include <limits>
#include <string>
#include <unordered_map>

#include "fprev/structure.hpp"
#include "tree/structure_recognition.hpp"

namespace fprev {
namespace {

// An expression's item before runs are merged: a leaf or a template, relative to the base.
struct RawItem {
  StructureItem::Kind kind;
  std::uint32_t templ;
  std::int64_t offset;
};

struct KeyHash {
  std::size_t operator()(const std::vector<std::int64_t>& key) const {
    std::uint64_t h = 1469598103934665603ull;
    for (std::int64_t v : key) {
      h ^= static_cast<std::uint64_t>(v);
      h *= 1099511628211ull;
    }
    return static_cast<std::size_t>(h);
  }
};

// Merges runs of three or more items of one kind (and template) whose offsets advance by a
// constant step.
std::vector<StructureItem> merge_runs(const std::vector<RawItem>& raw) {
  std::vector<StructureItem> items;
  std::size_t i = 0;
  while (i < raw.size()) {
    std::size_t end = i + 1;
    if (i + 2 < raw.size()) {
      const auto same = [&](std::size_t a, std::size_t b) {
        return raw[a].kind == raw[b].kind && raw[a].templ == raw[b].templ;
      };
      const std::int64_t step = raw[i + 1].offset - raw[i].offset;
      while (end < raw.size() && same(i, end) && raw[end].offset - raw[end - 1].offset == step) ++end;
      if (end - i < 3) end = i + 1;
    }
    StructureItem item;
    item.kind = raw[i].kind;
    item.templ = raw[i].kind == StructureItem::Kind::templ ? raw[i].templ : 0;
    item.first = raw[i].offset;
    item.count = static_cast<std::uint32_t>(end - i);
    item.step = item.count > 1 ? raw[i + 1].offset - raw[i].offset : 1;
    items.push_back(item);
    i = end;
  }
  return items;
}

std::int64_t last_offset(const StructureItem& item) {
  return item.first + item.step * static_cast<std::int64_t>(item.count - 1);
}

}  // namespace

StructureError::StructureError(std::size_t line, std::size_t column, const std::string& message)
    : std::runtime_error(line == 0 ? message
                                   : "line " + std::to_string(line) +
                                         (column == 0 ? "" : ", column " + std::to_string(column)) +
                                         ": " + message),
      line_(line),
      column_(column),
      message_(message) {}

namespace detail {

RecognizedStructure recognize_structure(const Tree& tree) {
  if (tree.empty()) throw std::invalid_argument("describe_structure: the tree is empty");
  const std::size_t n = tree.leaf_count();
  const std::size_t nodes = tree.node_count();
  RecognizedStructure recognized;
  recognized.accumulator.assign(nodes, kNoNode);
  recognized.absorbed.assign(nodes, false);
  recognized.template_of.assign(nodes, kNoTemplate);
  StructureDescription& description = recognized.description;
  description.leaves = n;
  if (n == 1) return recognized;

  // Accumulators, absorption and chain widths, children first (ids are in post-order).
  std::vector<NodeId>& accumulator = recognized.accumulator;
  std::vector<bool>& absorbed = recognized.absorbed;
  std::vector<std::uint32_t> width(nodes, 0);
  for (NodeId v = static_cast<NodeId>(n); v < nodes; ++v) {
    const auto children = tree.children(v);
    NodeId best = kNoNode;
    bool unique = false;
    for (NodeId c : children) {
      if (best == kNoNode || tree.leaves_under(c) > tree.leaves_under(best)) {
        best = c;
        unique = true;
      } else if (tree.leaves_under(c) == tree.leaves_under(best)) {
        unique = false;
      }
    }
    const auto arity = static_cast<std::uint32_t>(children.size());
    width[v] = arity;
    if (unique && !tree.is_leaf(best)) {
      accumulator[v] = best;
      const bool full_step = tree.children(best).size() == width[best];
      if (full_step && arity <= width[best]) {
        absorbed[best] = true;
        width[v] = width[best];
      }
    }
  }

  std::vector<std::uint32_t>& template_of = recognized.template_of;
  std::unordered_map<std::vector<std::int64_t>, std::uint32_t, KeyHash> templates_by_key;
  std::vector<RawItem> raw;
  std::vector<std::int64_t> key;
  for (NodeId top = static_cast<NodeId>(n); top < nodes; ++top) {
    if (absorbed[top]) continue;
    const std::vector<NodeId> path = expression_steps(recognized, top);
    const std::int64_t base = tree.smallest_leaf(top);
    raw.clear();
    for (std::size_t t = 0; t < path.size(); ++t) {
      for (NodeId c : tree.children(path[t])) {
        if (t > 0 && c == accumulator[path[t]]) continue;
        if (tree.is_leaf(c)) {
          raw.push_back({StructureItem::Kind::leaf, 0, static_cast<std::int64_t>(c) - base});
        } else {
          raw.push_back({StructureItem::Kind::templ, template_of[c],
                         static_cast<std::int64_t>(tree.smallest_leaf(c)) - base});
        }
      }
    }
    const std::uint32_t chain_width = path.size() == 1 ? 0 : width[top];
    key.clear();
    key.push_back(chain_width);
    for (const RawItem& item : raw) {
      key.push_back(item.kind == StructureItem::Kind::leaf ? -1 : item.templ);
      key.push_back(item.offset);
    }
    const auto [it, inserted] =
        templates_by_key.try_emplace(key, static_cast<std::uint32_t>(description.templates.size()));
    if (inserted) description.templates.push_back({chain_width, merge_runs(raw)});
    template_of[top] = it->second;
  }
  // The root's template must be the last: it is the only expression with all n leaves, and it is
  // created last because the root has the largest id.
  return recognized;
}

std::vector<NodeId> expression_steps(const RecognizedStructure& recognized, NodeId top) {
  std::vector<NodeId> path{top};
  while (recognized.accumulator[path.back()] != kNoNode &&
         recognized.absorbed[recognized.accumulator[path.back()]])
    path.push_back(recognized.accumulator[path.back()]);
  std::reverse(path.begin(), path.end());  // lowest node first
  return path;
}

}  // namespace detail

StructureDescription describe_structure(const Tree& tree) {
  return detail::recognize_structure(tree).description;
}

Tree expand_structure(const StructureDescription& description) {
  const std::size_t n = description.leaves;
  if (n == 0 || n > kMaxStructureLeaves)
    throw StructureError(0, 0, "a tree has between 1 and 2^31 - 1 leaves");
  const auto& templates = description.templates;
  if (templates.empty()) {
    if (n != 1) throw StructureError(0, 0, "no templates for " + std::to_string(n) + " leaves");
    TreeBuilder builder(1);
    return builder.build();
  }
  // Sizes and leaf ranges first, from the templates alone.
  constexpr std::uint64_t kMaxLeaves = std::uint64_t{1} << 32;
  std::vector<std::uint64_t> size(templates.size(), 0);
  std::vector<std::int64_t> low(templates.size(), 0), high(templates.size(), 0);
  for (std::size_t t = 0; t < templates.size(); ++t) {
    const StructureTemplate& tmpl = templates[t];
    const std::string where = "T" + std::to_string(t + 1) + ": ";
    if (tmpl.items.empty()) throw StructureError(0, 0, where + "no items");
    if (tmpl.chain_width == 1) throw StructureError(0, 0, where + "a chain step adds at least 2 terms");
    std::uint64_t entries = 0;
    std::uint64_t total = 0;
    bool first = true;
    for (const StructureItem& item : tmpl.items) {
      if (item.count == 0) throw StructureError(0, 0, where + "an item with no copies");
      if (item.count > 1 && item.step == 0) throw StructureError(0, 0, where + "a step of 0");
      std::uint64_t each = 1;
      std::int64_t item_low = std::min(item.first, last_offset(item));
      std::int64_t item_high = std::max(item.first, last_offset(item));
      if (item.kind == StructureItem::Kind::templ) {
        if (item.templ >= t)
          throw StructureError(0, 0, where + "refers to T" + std::to_string(item.templ + 1) +
                                         ", which is not defined before it");
        each = size[item.templ];
        item_low += low[item.templ];
        item_high += high[item.templ];
      }
      entries += item.count;
      total += each * item.count;
      if (total > kMaxLeaves) throw StructureError(0, 0, where + "expands to more than 2^32 leaves");
      low[t] = first ? item_low : std::min(low[t], item_low);
      high[t] = first ? item_high : std::max(high[t], item_high);
      first = false;
    }
    const std::uint64_t needed = tmpl.chain_width == 0 ? 2 : tmpl.chain_width;
    if (entries < needed)
      throw StructureError(0, 0, where + "needs at least " + std::to_string(needed) + " items");
    size[t] = total;
  }
  const std::size_t root = templates.size() - 1;
  if (size[root] != n)
    throw StructureError(0, 0, "the root T" + std::to_string(root + 1) + " has " +
                                   std::to_string(size[root]) + " leaves, expected " +
                                   std::to_string(n));
  if (low[root] != 0 || high[root] != static_cast<std::int64_t>(n) - 1)
    throw StructureError(0, 0, "leaves outside 0.." + std::to_string(n - 1));

  // Build with an explicit stack: one frame per template copy being expanded.
  struct Frame {
    std::uint32_t templ;
    std::int64_t offset;
    std::size_t item = 0;
    std::uint32_t copy = 0;
    std::vector<NodeId> children;
  };
  TreeBuilder builder(n);
  std::vector<Frame> stack;
  stack.push_back({static_cast<std::uint32_t>(root), 0, 0, 0, {}});
  NodeId finished = kNoNode;
  try {
    while (true) {
      Frame& frame = stack.back();
      if (finished != kNoNode) {
        frame.children.push_back(finished);
        finished = kNoNode;
      }
      const StructureTemplate& tmpl = templates[frame.templ];
      if (frame.item < tmpl.items.size()) {
        const StructureItem& item = tmpl.items[frame.item];
        const std::int64_t at =
            frame.offset + item.first + item.step * static_cast<std::int64_t>(frame.copy);
        if (++frame.copy == item.count) {
          frame.copy = 0;
          ++frame.item;
        }
        if (item.kind == StructureItem::Kind::leaf) {
          frame.children.push_back(static_cast<NodeId>(at));
        } else {
          stack.push_back({item.templ, at, 0, 0, {}});
        }
        continue;
      }
      // All items done: build this copy's node(s).
      const std::vector<NodeId>& c = frame.children;
      NodeId node;
      if (tmpl.chain_width == 0) {
        node = builder.add_node(c);
      } else {
        const std::size_t w = tmpl.chain_width;
        node = builder.add_node(std::span<const NodeId>(c.data(), w));
        std::vector<NodeId> step;
        for (std::size_t pos = w; pos < c.size(); pos += w - 1) {
          step.assign(1, node);
          step.insert(step.end(), c.begin() + static_cast<std::ptrdiff_t>(pos),
                      c.begin() + static_cast<std::ptrdiff_t>(std::min(c.size(), pos + w - 1)));
          node = builder.add_node(step);
        }
      }
      stack.pop_back();
      if (stack.empty()) break;
      finished = node;
    }
    return builder.build();
  } catch (const TreeError& e) {
    throw StructureError(0, 0, std::string("the templates do not form a tree: ") + e.what());
  }
}

}  // namespace fprev
