// The recognition behind structural descriptions (fprev/structure.hpp), for the framework's other
// readers of a tree's structure: the drawings (report/drawing.cpp) collapse exactly the chains and
// repeated shapes a description names. Private to the framework.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "fprev/structure.hpp"
#include "fprev/tree.hpp"

namespace fprev::detail {

inline constexpr std::uint32_t kNoTemplate = std::numeric_limits<std::uint32_t>::max();

// Per node of the tree (vectors indexed by NodeId):
//   accumulator  the running sum an inner node adds to (its child with strictly the most leaves,
//                when that child is an inner node), else kNoNode
//   absorbed     the node is a step of its parent's chain, not the top of an expression
//   template_of  for the top of an expression (an inner node not absorbed): the index of its
//                template in `description`; kNoTemplate for every other node. Tops with the same
//                template are translations of each other (the same shape, leaves shifted).
struct RecognizedStructure {
  std::vector<NodeId> accumulator;
  std::vector<bool> absorbed;
  std::vector<std::uint32_t> template_of;
  StructureDescription description;
};

// Linear in the tree's size; `tree` must not be empty.
RecognizedStructure recognize_structure(const Tree& tree);

// The inner nodes of the expression whose top is `top`, lowest first: one node for a plain
// expression, every step for a chain (the lowest step adds its children, each later one its
// children but the accumulator, which is the step below).
std::vector<NodeId> expression_steps(const RecognizedStructure& recognized, NodeId top);

}  // namespace fprev::detail
