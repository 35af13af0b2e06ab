// Edits of a summation tree for the confirm() tests: every way the order of a library can change
// at one node (a subtree swapped with a cousin, a rotation, a binary step merged into its parent's
// fused step, a fused step split, a leaf moved elsewhere). The tree is held as child lists; build()
// drops nodes left with one child, so every edit gives a valid tree (possibly the same one: callers
// compare).
#pragma once

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

#include "fprev/tree.hpp"

namespace fprev::testing {

class EditableTree {
 public:
  explicit EditableTree(const Tree& tree) : n_(tree.leaf_count()), root_(tree.root()) {
    kids_.resize(tree.node_count());
    for (NodeId v = static_cast<NodeId>(n_); v < tree.node_count(); ++v) {
      const auto children = tree.children(v);
      kids_[v].assign(children.begin(), children.end());
    }
  }

  std::size_t node_count() const { return kids_.size(); }
  bool is_leaf(NodeId v) const { return v < n_; }
  const std::vector<NodeId>& kids(NodeId v) const { return kids_[v]; }

  // Subtrees a and b (neither inside the other) change places.
  void swap_subtrees(NodeId a, NodeId b) {
    const std::vector<NodeId> parent = parents();
    std::replace(kids_[parent[a]].begin(), kids_[parent[a]].end(), a, kNoNode);
    std::replace(kids_[parent[b]].begin(), kids_[parent[b]].end(), b, a);
    std::replace(kids_[parent[a]].begin(), kids_[parent[a]].end(), kNoNode, b);
  }
  // v = (u, s, ...) with u = (u1, u2, ...) becomes (u1, (u2, ..., s), ...): ((a b) c) -> (a (b c)).
  bool rotate(NodeId v) {
    auto& k = kids_[v];
    const auto u = std::find_if(k.begin(), k.end(), [&](NodeId c) { return !is_leaf(c); });
    if (u == k.end()) return false;
    const NodeId inner = *u;
    const auto s = std::find_if(k.begin(), k.end(), [&](NodeId c) { return c != inner; });
    const NodeId u1 = kids_[inner].front();
    kids_[inner].erase(kids_[inner].begin());
    kids_[inner].push_back(*s);
    *s = u1;
    return true;
  }
  // v's children become children of v's parent: two steps fused into one.
  bool merge_into_parent(NodeId v) {
    if (v == root_) return false;
    const std::vector<NodeId> parent = parents();
    auto& p = kids_[parent[v]];
    p.erase(std::find(p.begin(), p.end(), v));
    p.insert(p.end(), kids_[v].begin(), kids_[v].end());
    kids_[v].clear();
    return true;
  }
  // Two children a, b of v are added first, then with the others: a fused step split.
  bool split(NodeId v, std::size_t a, std::size_t b) {
    auto& k = kids_[v];
    if (k.size() < 3 || a == b || a >= k.size() || b >= k.size()) return false;
    const NodeId w = new_node({k[a], k[b]});
    auto& kv = kids_[v];  // new_node may have moved the lists
    const NodeId ka = kv[a], kb = kv[b];
    kv.erase(std::remove_if(kv.begin(), kv.end(), [&](NodeId c) { return c == ka || c == kb; }),
             kv.end());
    kv.push_back(w);
    return true;
  }
  // Leaf x leaves its parent and is added to node y first (a new step (x y) where y was).
  void move_leaf(NodeId x, NodeId y) {
    const std::vector<NodeId> parent = parents();
    auto& px = kids_[parent[x]];
    px.erase(std::find(px.begin(), px.end(), x));
    if (y == root_) {
      root_ = new_node({x, y});
      return;
    }
    const NodeId py = parents()[y];
    const NodeId w = new_node({x, y});
    std::replace(kids_[py].begin(), kids_[py].end(), y, w);
  }

  // True when a lies in the subtree of b (or is b).
  bool inside(NodeId a, NodeId b) const {
    const std::vector<NodeId> parent = parents();
    for (NodeId v = a; v != kNoNode; v = parent[v])
      if (v == b) return true;
    return false;
  }

  Tree build() const {
    TreeBuilder builder(n_);
    std::vector<NodeId> id(kids_.size(), kNoNode);
    for (NodeId v = 0; v < n_; ++v) id[v] = v;
    // Post-order without recursion: children get their ids before their parent.
    std::vector<std::pair<NodeId, bool>> stack{{root_, false}};
    while (!stack.empty()) {
      const auto [v, expanded] = stack.back();
      stack.pop_back();
      if (is_leaf(v)) continue;
      if (!expanded) {
        stack.push_back({v, true});
        for (NodeId c : kids_[v]) stack.push_back({c, false});
        continue;
      }
      std::vector<NodeId> children;
      for (NodeId c : kids_[v])
        if (id[c] != kNoNode) children.push_back(id[c]);
      if (children.size() == 1)
        id[v] = children.front();
      else if (children.size() >= 2)
        id[v] = builder.add_node(children);
    }
    return builder.build();
  }

 private:
  NodeId new_node(std::vector<NodeId> children) {
    kids_.push_back(std::move(children));
    return static_cast<NodeId>(kids_.size() - 1);
  }
  std::vector<NodeId> parents() const {
    std::vector<NodeId> parent(kids_.size(), kNoNode);
    for (NodeId v = 0; v < kids_.size(); ++v)
      for (NodeId c : kids_[v]) parent[c] = v;
    return parent;
  }

  std::size_t n_;
  NodeId root_;
  std::vector<std::vector<NodeId>> kids_;
};

}  // namespace fprev::testing
