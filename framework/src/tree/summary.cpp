#include "fprev/summary.hpp"

#include <stdexcept>
#include <vector>

#include "pattern_recognition.hpp"

namespace fprev {
namespace patterns {
namespace {

void require(bool condition, const char* message) {
  if (!condition) throw std::invalid_argument(message);
}

// x[items[0]] + x[items[1]] + ... left to right.
NodeId chain(TreeBuilder& builder, const std::vector<NodeId>& items) {
  NodeId acc = items.front();
  for (std::size_t i = 1; i < items.size(); ++i) acc = builder.add_node({acc, items[i]});
  return acc;
}

// The halving rule: items[0:m] + items[m:size], m = size/2, with an explicit stack.
NodeId halving(TreeBuilder& builder, const std::vector<NodeId>& items) {
  struct Frame {
    std::size_t begin;
    std::size_t end;
    int stage;  // 0: left part next, 1: right part next, 2: both done
    NodeId left;
  };
  std::vector<Frame> stack{{0, items.size(), 0, kNoNode}};
  NodeId result = kNoNode;  // the value of the frame popped last
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.end - frame.begin == 1) {
      result = items[frame.begin];
      stack.pop_back();
      continue;
    }
    const std::size_t middle = frame.begin + (frame.end - frame.begin) / 2;
    if (frame.stage == 0) {
      frame.stage = 1;
      const Frame left{frame.begin, middle, 0, kNoNode};
      stack.push_back(left);
    } else if (frame.stage == 1) {
      frame.stage = 2;
      frame.left = result;
      const Frame right{middle, frame.end, 0, kNoNode};
      stack.push_back(right);
    } else {
      result = builder.add_node({frame.left, result});
      stack.pop_back();
    }
  }
  return result;
}

std::vector<NodeId> leaf_range(std::size_t begin, std::size_t end, std::size_t step = 1) {
  std::vector<NodeId> items;
  for (std::size_t i = begin; i < end; i += step) items.push_back(static_cast<NodeId>(i));
  return items;
}

}  // namespace

Tree sequential(std::size_t n) {
  require(n >= 1, "patterns::sequential needs n >= 1");
  TreeBuilder builder(n);
  chain(builder, leaf_range(0, n));
  return builder.build();
}

Tree reverse(std::size_t n) {
  require(n >= 1, "patterns::reverse needs n >= 1");
  std::vector<NodeId> items;
  for (std::size_t i = n; i-- > 0;) items.push_back(static_cast<NodeId>(i));
  TreeBuilder builder(n);
  chain(builder, items);
  return builder.build();
}

Tree pairwise(std::size_t n) {
  require(n >= 1, "patterns::pairwise needs n >= 1");
  TreeBuilder builder(n);
  halving(builder, leaf_range(0, n));
  return builder.build();
}

Tree strided(std::size_t n, std::size_t lanes, LaneCombine combine) {
  require(n >= 1 && lanes >= 1, "patterns::strided needs n >= 1 and lanes >= 1");
  TreeBuilder builder(n);
  std::vector<NodeId> lane_sums;
  for (std::size_t r = 0; r < std::min(lanes, n); ++r)
    lane_sums.push_back(chain(builder, leaf_range(r, n, lanes)));
  if (combine == LaneCombine::pairwise) {
    halving(builder, lane_sums);
  } else {
    chain(builder, lane_sums);
  }
  return builder.build();
}

Tree blocked(std::size_t n, std::size_t block) {
  require(n >= 1 && block >= 1, "patterns::blocked needs n >= 1 and block >= 1");
  TreeBuilder builder(n);
  std::vector<NodeId> block_sums;
  for (std::size_t begin = 0; begin < n; begin += block)
    block_sums.push_back(chain(builder, leaf_range(begin, std::min(n, begin + block))));
  chain(builder, block_sums);
  return builder.build();
}

Tree fused_groups(std::size_t n, std::size_t width) {
  require(n >= 1 && width >= 2, "patterns::fused_groups needs n >= 1 and width >= 2");
  TreeBuilder builder(n);
  if (n == 1) return builder.build();
  std::vector<NodeId> terms = leaf_range(0, std::min(n, width));
  NodeId acc = builder.add_node(terms);
  for (std::size_t next = std::min(n, width); next < n;) {
    terms.assign(1, acc);
    const std::size_t end = std::min(n, next + width - 1);
    for (; next < end; ++next) terms.push_back(static_cast<NodeId>(next));
    acc = builder.add_node(terms);
  }
  return builder.build();
}

}  // namespace patterns

TreeSummary summarize(const Tree& tree) {
  TreeSummary summary;
  summary.leaves = tree.leaf_count();
  if (tree.empty()) {
    summary.description = "empty tree";
    return summary;
  }
  summary.inner_nodes = tree.inner_count();
  summary.depth = tree.depth();
  summary.arity = tree.arity_histogram();
  summary.max_arity = tree.max_arity();
  summary.description = detail::recognise_pattern(tree);
  summary.recognized = !summary.description.empty();
  if (!summary.recognized) {
    summary.description = summary.max_arity <= 2
                              ? "binary tree, depth " + std::to_string(summary.depth)
                              : "multiway tree: " + fused_widths(summary.arity) + ", depth " +
                                    std::to_string(summary.depth);
  }
  return summary;
}

std::string fused_widths(const std::map<std::size_t, std::size_t>& arity) {
  std::vector<std::size_t> widths;
  for (const auto& [children, count] : arity)
    if (children > 2 && count > 0) widths.push_back(children);
  if (widths.empty()) return "no fused sums";
  std::string text = "fused ";
  for (std::size_t k = 0; k < widths.size(); ++k) {
    if (k > 0) text += k + 1 == widths.size() ? " and " : ", ";
    text += std::to_string(widths[k]) + (k + 1 == widths.size() ? "-term sums" : "-");
  }
  return text;
}

std::string format_arity(const std::map<std::size_t, std::size_t>& arity) {
  std::string out = "{";
  for (const auto& [children, count] : arity) {
    if (out.size() > 1) out += ", ";
    out += std::to_string(children) + ": " + std::to_string(count);
  }
  return out + "}";
}

std::string format_summary(const TreeSummary& summary) {
  // An unrecognised tree's description ends with its depth, which the summary gives already.
  std::string description = summary.description;
  const std::string depth_suffix = ", depth " + std::to_string(summary.depth);
  if (!summary.recognized && description.size() > depth_suffix.size() &&
      description.compare(description.size() - depth_suffix.size(), depth_suffix.size(), depth_suffix) == 0)
    description.resize(description.size() - depth_suffix.size());
  return std::to_string(summary.leaves) + (summary.leaves == 1 ? " leaf" : " leaves") + ", depth " +
         std::to_string(summary.depth) + ", arity " + format_arity(summary.arity) + ", " + description;
}

}  // namespace fprev
