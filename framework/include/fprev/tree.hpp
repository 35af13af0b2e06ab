// Summation trees: leaves 0..n-1 are the summands, inner nodes are additions. An inner node with
// w > 2 children is a fused w-term sum (matrix accelerators). Trees are immutable and canonical:
// children are ordered by their smallest leaf and inner nodes are numbered in post-order, so two
// trees describing the same order compare equal and print the same bytes. Every traversal here is
// iterative, so trees millions of levels deep are fine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace fprev {

using NodeId = std::uint32_t;
inline constexpr NodeId kNoNode = 0xffffffffu;
// The most leaves a tree holds: its 2n - 1 node ids stay below kNoNode.
inline constexpr std::size_t kMaxTreeLeaves = (std::size_t{1} << 31) - 1;

class Tree {
 public:
  Tree() = default;  // the empty tree (no leaves)

  std::size_t leaf_count() const { return n_; }
  std::size_t node_count() const { return parent_.size(); }
  std::size_t inner_count() const { return parent_.size() - n_; }
  bool empty() const { return n_ == 0; }

  // Node ids: leaves are 0..n-1, inner nodes n..node_count()-1 in canonical post-order;
  // the root is the last node.
  NodeId root() const { return parent_.empty() ? kNoNode : static_cast<NodeId>(parent_.size() - 1); }
  bool is_leaf(NodeId node) const { return node < n_; }
  NodeId parent(NodeId node) const { return parent_[node]; }
  std::span<const NodeId> children(NodeId node) const;  // empty for leaves; by smallest leaf
  std::uint32_t leaves_under(NodeId node) const { return leaves_under_[node]; }
  NodeId smallest_leaf(NodeId node) const { return smallest_leaf_[node]; }

  // Edges on the longest root-to-leaf path (a single leaf has depth 0).
  std::size_t depth() const { return depth_; }
  // children count -> number of inner nodes with that many children
  std::map<std::size_t, std::size_t> arity_histogram() const;
  std::size_t max_arity() const;

  // l(i,j): number of leaves under the lowest common ancestor of leaves i and j (i != j).
  // O(depth); use LcaIndex for many queries on deep trees. lca() takes any two nodes; an id
  // >= node_count() throws std::out_of_range.
  std::uint32_t lca_leaf_count(NodeId i, NodeId j) const;
  NodeId lca(NodeId a, NodeId b) const;
  std::size_t node_depth(NodeId node) const;

  friend bool operator==(const Tree& a, const Tree& b) {
    return a.n_ == b.n_ && a.parent_ == b.parent_;
  }

 private:
  friend class TreeBuilder;
  std::size_t n_ = 0;
  std::vector<NodeId> parent_;          // kNoNode for the root
  std::vector<std::uint32_t> child_begin_;  // per inner node (index node - n), into children_
  std::vector<NodeId> children_;
  std::vector<std::uint32_t> leaves_under_;
  std::vector<NodeId> smallest_leaf_;
  std::vector<std::uint32_t> node_depth_;
  std::size_t depth_ = 0;
};

class TreeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Builds a tree bottom-up. Node ids handed out by the builder are builder-local; build() renumbers
// canonically. Any structural error (a node used twice, fewer than two children, several roots,
// a leaf missing) throws TreeError: add_node/add_child reject unknown nodes, nodes that already
// have a parent and cycles at once (and leave the builder unchanged); build() rejects inner nodes
// with fewer than two children and anything but exactly one parentless node.
class TreeBuilder {
 public:
  explicit TreeBuilder(std::size_t leaf_count);  // at most kMaxTreeLeaves leaves
  // New inner node whose children are `children` (each must currently have no parent). Fewer than
  // two children are allowed here, to be completed with add_child before build().
  NodeId add_node(std::span<const NodeId> children);
  NodeId add_node(std::initializer_list<NodeId> children) {
    return add_node(std::span<const NodeId>(children.begin(), children.size()));
  }
  // Makes `child` (currently parentless) one more child of the existing inner node `parent`.
  // O(depth of parent): it updates the leaf counts of parent's ancestors and rules out a cycle.
  void add_child(NodeId parent, NodeId child);
  std::size_t leaf_count() const { return n_; }
  bool has_parent(NodeId node) const { return parent_[node] != kNoNode; }
  std::uint32_t leaves_under(NodeId node) const { return leaves_under_[node]; }
  Tree build() const;

 private:
  std::size_t n_;
  std::vector<NodeId> parent_;
  std::vector<std::vector<NodeId>> children_;  // per inner node (index node - n)
  std::vector<std::uint32_t> leaves_under_;
  // True while every child has a smaller id than its parent (only add_child can break it); build()
  // then sweeps ids in order instead of walking the tree.
  bool ids_children_first_ = true;
  std::vector<NodeId> inner_nodes_children_first(NodeId root) const;
};

// O(1) l(i,j) and LCA queries after O(N) preprocessing (N = node count). The tour is the pre-order
// of the nodes: for u != v with pre(u) < pre(v), LCA(u, v) is the parent of a shallowest node among
// pre-order positions (pre(u), pre(v)]. Range minima come from a sparse table over blocks of 64
// positions plus per-position bit masks inside a block, so memory stays near 16 bytes per node even
// for trees of millions of leaves (a plain sparse table would need ~20 levels of N entries).
// The index keeps a pointer to `tree`: the tree must outlive it and must not move.
class LcaIndex {
 public:
  explicit LcaIndex(const Tree& tree);
  std::uint32_t leaf_count(NodeId i, NodeId j) const;  // l(i,j)
  NodeId lca(NodeId a, NodeId b) const;
  // Position of `node` in the pre-order of the canonical tree (children by smallest leaf).
  std::uint32_t preorder_position(NodeId node) const { return first_[node]; }

 private:
  const Tree* tree_;
  std::vector<NodeId> euler_;               // nodes in pre-order
  std::vector<std::uint32_t> first_;        // node -> its position in euler_
  std::vector<std::uint32_t> depth_at_;     // depth of euler_[p]
  std::vector<std::uint64_t> in_block_;     // bit masks of in-block suffix minima (see .cpp)
  std::vector<std::vector<std::uint32_t>> sparse_;  // over blocks: positions of min depth
  std::uint32_t argmin(std::uint32_t a, std::uint32_t b) const;  // inclusive range of positions
  std::uint32_t argmin_in_block(std::uint32_t a, std::uint32_t b) const;
  std::uint32_t shallower(std::uint32_t p, std::uint32_t q) const {
    return depth_at_[q] < depth_at_[p] ? q : p;
  }
};

}  // namespace fprev
