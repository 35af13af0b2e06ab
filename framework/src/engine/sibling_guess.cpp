// Shapes for guessed subtrees (sibling_guess.hpp): moved, proven and built.
#include "sibling_guess.hpp"

#include <algorithm>
#include <stdexcept>

namespace fprev::detail {

void Shape::pair_with(const Shape& other) {
  tokens.insert(tokens.end(), other.tokens.begin(), other.tokens.end());
  tokens.push_back(kShapeNode + 2);
  leaves += other.leaves;
}

Shape move_shape(const Shape& shape, std::span<const std::uint32_t> to) {
  if (to.size() != shape.leaves) throw std::logic_error("move_shape: leaf counts differ");
  std::vector<std::uint32_t> sorted;
  sorted.reserve(shape.leaves);
  for (std::uint32_t t : shape.tokens)
    if (t < kShapeNode) sorted.push_back(t);
  std::sort(sorted.begin(), sorted.end());
  Shape moved;
  moved.leaves = shape.leaves;
  moved.tokens.reserve(shape.tokens.size());
  for (std::uint32_t t : shape.tokens) {
    if (t >= kShapeNode) {
      moved.tokens.push_back(t);
      continue;
    }
    const auto rank = std::lower_bound(sorted.begin(), sorted.end(), t) - sorted.begin();
    moved.tokens.push_back(to[static_cast<std::size_t>(rank)]);
  }
  return moved;
}

ShapeProof shape_proof(const Shape& shape) {
  struct Part {
    std::uint32_t smallest, leaves;
  };
  ShapeProof proof;
  std::vector<Part> stack;
  for (std::uint32_t t : shape.tokens) {
    if (t < kShapeNode) {
      stack.push_back({t, 1});
      continue;
    }
    const std::size_t k = t - kShapeNode;
    const std::span<const Part> children(stack.data() + stack.size() - k, k);
    Part node{children.front().smallest, 0};
    for (const Part& c : children) {
      node.smallest = std::min(node.smallest, c.smallest);
      node.leaves += c.leaves;
    }
    for (std::size_t a = 0; a < k; ++a)
      for (std::size_t b = a + 1; b < k; ++b) {
        proof.pairs.emplace_back(std::min(children[a].smallest, children[b].smallest),
                                 std::max(children[a].smallest, children[b].smallest));
        proof.expected.push_back(node.leaves);
      }
    stack.resize(stack.size() - k);
    stack.push_back(node);
  }
  return proof;
}

NodeId build_shape(const Shape& shape, TreeBuilder& builder) {
  std::vector<NodeId> stack;
  for (std::uint32_t t : shape.tokens) {
    if (t < kShapeNode) {
      stack.push_back(t);
      continue;
    }
    const std::size_t k = t - kShapeNode;
    const NodeId node = builder.add_node(std::span<const NodeId>(stack.data() + stack.size() - k, k));
    stack.resize(stack.size() - k);
    stack.push_back(node);
  }
  if (stack.size() != 1) throw std::logic_error("build_shape: not one tree");
  return stack.front();
}

}  // namespace fprev::detail
