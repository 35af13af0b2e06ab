// Independent definitions used to check the tree code: brute-force l(i,j) by walking parent links
// and counting leaves, and an exception check that also looks at the message.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fprev/tree.hpp"

namespace fprev::tree_tests {

// Number of leaves below each node, counted by walking up from every leaf (O(n * depth)).
inline std::vector<std::uint32_t> brute_leaf_counts(const Tree& tree) {
  std::vector<std::uint32_t> counts(tree.node_count(), 0);
  for (NodeId leaf = 0; leaf < tree.leaf_count(); ++leaf) {
    for (NodeId v = leaf; v != kNoNode; v = tree.parent(v)) ++counts[v];
  }
  return counts;
}

// l(i,j) from the definition: the leaf count of the lowest node that is an ancestor of both.
inline std::uint32_t brute_l(const Tree& tree, const std::vector<std::uint32_t>& counts, NodeId i,
                             NodeId j) {
  std::vector<bool> above_i(tree.node_count(), false);
  for (NodeId v = i; v != kNoNode; v = tree.parent(v)) above_i[v] = true;
  NodeId v = j;
  while (!above_i[v]) v = tree.parent(v);
  return counts[v];
}

template <class Exception, class Body>
void expect_throw_with(Body&& body, const std::string& fragment) {
  try {
    body();
    ADD_FAILURE() << "no exception; expected one mentioning \"" << fragment << "\"";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << "message \"" << e.what() << "\" does not mention \"" << fragment << "\"";
  }
}

}  // namespace fprev::tree_tests
