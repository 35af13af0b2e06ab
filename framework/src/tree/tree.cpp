// Tree queries and the builder that validates a tree and renumbers it canonically. Every traversal
// is iterative: a sequential sum of 10^6 summands is a tree 10^6 levels deep.
#include "fprev/tree.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace fprev {
namespace {

std::string node_name(NodeId node, std::size_t leaf_count) {
  return (node < leaf_count ? "leaf " : "inner node ") + std::to_string(node);
}

void check_node(const Tree& tree, NodeId node) {
  if (node >= tree.node_count()) {
    throw std::out_of_range("node " + std::to_string(node) + " does not exist (the tree has " +
                            std::to_string(tree.node_count()) + " nodes)");
  }
}

}  // namespace

// ---- Tree -------------------------------------------------------------------------------------

std::span<const NodeId> Tree::children(NodeId node) const {
  if (is_leaf(node)) return {};
  const std::size_t k = node - n_;
  return std::span<const NodeId>(children_).subspan(child_begin_[k],
                                                    child_begin_[k + 1] - child_begin_[k]);
}

std::map<std::size_t, std::size_t> Tree::arity_histogram() const {
  std::map<std::size_t, std::size_t> histogram;
  for (std::size_t k = 0; k < inner_count(); ++k) ++histogram[child_begin_[k + 1] - child_begin_[k]];
  return histogram;
}

std::size_t Tree::max_arity() const {
  std::size_t widest = 0;
  for (std::size_t k = 0; k < inner_count(); ++k) {
    widest = std::max<std::size_t>(widest, child_begin_[k + 1] - child_begin_[k]);
  }
  return widest;
}

NodeId Tree::lca(NodeId a, NodeId b) const {
  check_node(*this, a);
  check_node(*this, b);
  while (node_depth_[a] > node_depth_[b]) a = parent_[a];
  while (node_depth_[b] > node_depth_[a]) b = parent_[b];
  while (a != b) {
    a = parent_[a];
    b = parent_[b];
  }
  return a;
}

std::uint32_t Tree::lca_leaf_count(NodeId i, NodeId j) const { return leaves_under_[lca(i, j)]; }

std::size_t Tree::node_depth(NodeId node) const { return node_depth_[node]; }

// ---- TreeBuilder ------------------------------------------------------------------------------

TreeBuilder::TreeBuilder(std::size_t leaf_count) : n_(leaf_count) {
  if (leaf_count > kMaxTreeLeaves) {
    throw TreeError("a tree holds at most " + std::to_string(kMaxTreeLeaves) + " leaves, got " +
                    std::to_string(leaf_count));
  }
  parent_.assign(n_, kNoNode);
  leaves_under_.assign(n_, 1);
}

NodeId TreeBuilder::add_node(std::span<const NodeId> children) {
  const std::size_t id = parent_.size();
  if (id >= kNoNode) throw TreeError("add_node: too many nodes");
  const NodeId new_id = static_cast<NodeId>(id);
  std::uint64_t leaves = 0;
  for (std::size_t c = 0; c < children.size(); ++c) {
    const NodeId child = children[c];
    std::string problem;
    if (child >= id) {
      problem = "child " + std::to_string(child) + " does not exist (existing nodes are 0.." +
                std::to_string(id - 1) + ")";
    } else if (parent_[child] == new_id) {
      problem = node_name(child, n_) + " is listed twice";
    } else if (parent_[child] != kNoNode) {
      problem = node_name(child, n_) + " already has the parent " +
                node_name(parent_[child], n_) + " (a node is added to the tree only once)";
    }
    if (!problem.empty()) {
      for (std::size_t undo = 0; undo < c; ++undo) parent_[children[undo]] = kNoNode;
      throw TreeError("add_node: " + problem);
    }
    parent_[child] = new_id;
    leaves += leaves_under_[child];
  }
  parent_.push_back(kNoNode);
  children_.emplace_back(children.begin(), children.end());
  leaves_under_.push_back(static_cast<std::uint32_t>(leaves));
  return new_id;
}

void TreeBuilder::add_child(NodeId parent, NodeId child) {
  const std::size_t count = parent_.size();
  if (parent < n_ || parent >= count) {
    throw TreeError("add_child: the parent must be an existing inner node (ids " +
                    std::to_string(n_) + ".." + std::to_string(count) + " exclusive), got " +
                    std::to_string(parent));
  }
  if (child >= count) {
    throw TreeError("add_child: child " + std::to_string(child) + " does not exist");
  }
  if (parent_[child] != kNoNode) {
    throw TreeError("add_child: " + node_name(child, n_) + " already has the parent " +
                    node_name(parent_[child], n_));
  }
  // `child` is the root of its own part; attaching it below a node of that same part is a cycle.
  NodeId top = parent;
  while (parent_[top] != kNoNode) top = parent_[top];
  if (top == child) {
    throw TreeError("add_child: " + node_name(child, n_) + " is " +
                    (child == parent ? std::string("the parent itself")
                                     : "an ancestor of " + node_name(parent, n_)) +
                    "; attaching it would create a cycle");
  }
  parent_[child] = parent;
  children_[parent - n_].push_back(child);
  if (child > parent) ids_children_first_ = false;
  for (NodeId v = parent; v != kNoNode; v = parent_[v]) leaves_under_[v] += leaves_under_[child];
}

std::vector<NodeId> TreeBuilder::inner_nodes_children_first(NodeId root) const {
  std::vector<NodeId> order;
  if (ids_children_first_) return order;  // the ids n, n+1, ... already are such an order
  // Post-order from the root.
  order.reserve(children_.size());
  struct Frame {
    NodeId node;
    std::uint32_t next;
  };
  std::vector<Frame> stack;
  if (root >= n_) stack.push_back({root, 0});
  while (!stack.empty()) {
    Frame& top = stack.back();
    const std::vector<NodeId>& kids = children_[top.node - n_];
    if (top.next < kids.size()) {
      const NodeId child = kids[top.next++];
      if (child >= n_) stack.push_back({child, 0});  // invalidates `top`, not used again
      continue;
    }
    order.push_back(top.node);
    stack.pop_back();
  }
  if (order.size() != children_.size()) {  // unreachable with add_node/add_child's checks
    throw TreeError("the nodes do not form a single tree: only " + std::to_string(order.size()) +
                    " of " + std::to_string(children_.size()) + " inner nodes are below the root");
  }
  return order;
}

Tree TreeBuilder::build() const {
  if (n_ == 0) throw TreeError("a summation tree needs at least one leaf");
  const std::size_t count = parent_.size();

  for (std::size_t k = 0; k < children_.size(); ++k) {
    if (children_[k].size() < 2) {
      throw TreeError(node_name(static_cast<NodeId>(n_ + k), n_) + " has " +
                      std::to_string(children_[k].size()) +
                      (children_[k].size() == 1 ? " child" : " children") +
                      "; an addition needs at least two");
    }
  }

  std::vector<NodeId> roots;
  std::size_t root_count = 0;
  for (std::size_t v = 0; v < count; ++v) {
    if (parent_[v] != kNoNode) continue;
    ++root_count;
    if (roots.size() < 5) roots.push_back(static_cast<NodeId>(v));
  }
  if (root_count != 1) {
    std::string names;
    for (NodeId r : roots) names += (names.empty() ? "" : ", ") + node_name(r, n_);
    if (root_count > roots.size()) names += ", ...";
    throw TreeError("the nodes do not form a single tree: " + std::to_string(root_count) +
                    " nodes have no parent (" + names +
                    "); every node except the root must belong to exactly one inner node");
  }
  const NodeId root = roots.front();

  // Inner nodes, children before parents; it drives every sweep below (no recursion, and
  // sequential memory access when the builder's ids are already in that order).
  const std::size_t inner = children_.size();
  const std::vector<NodeId> order = inner_nodes_children_first(root);
  auto inner_at = [&](std::size_t k) {
    return order.empty() ? static_cast<NodeId>(n_ + k) : order[k];
  };

  // Bottom-up: each node's children sorted by smallest leaf (into one flat array), its smallest
  // leaf, and the number of inner nodes in its subtree.
  std::vector<std::size_t> sorted_begin(inner + 1, 0);
  for (std::size_t k = 0; k < inner; ++k) {
    sorted_begin[k + 1] = sorted_begin[k] + children_[k].size();
  }
  std::vector<NodeId> sorted(sorted_begin.back());
  std::vector<NodeId> smallest(count);
  for (std::size_t v = 0; v < n_; ++v) smallest[v] = static_cast<NodeId>(v);
  std::vector<std::uint32_t> inner_below(inner, 1);  // inner nodes in the subtree, itself included
  for (std::size_t k = 0; k < inner; ++k) {
    const std::size_t slot = inner_at(k) - n_;
    const std::vector<NodeId>& kids = children_[slot];
    NodeId* first = sorted.data() + sorted_begin[slot];
    std::copy(kids.begin(), kids.end(), first);
    std::sort(first, first + kids.size(),
              [&](NodeId a, NodeId b) { return smallest[a] < smallest[b]; });
    smallest[inner_at(k)] = smallest[*first];
    for (NodeId child : kids) {
      if (child >= n_) inner_below[slot] += inner_below[child - n_];
    }
  }

  // Top-down: canonical post-order ids. A node's subtree takes a contiguous range of inner ids,
  // its children's ranges follow each other in sorted order, and the node itself comes last.
  std::vector<std::uint32_t> range_start(inner, 0);
  std::vector<NodeId> new_id(count);
  for (std::size_t v = 0; v < n_; ++v) new_id[v] = static_cast<NodeId>(v);
  for (std::size_t k = inner; k-- > 0;) {
    const NodeId node = inner_at(k);
    const std::size_t slot = node - n_;
    std::uint32_t next = range_start[slot];
    for (std::size_t c = sorted_begin[slot]; c < sorted_begin[slot + 1]; ++c) {
      if (sorted[c] < n_) continue;
      range_start[sorted[c] - n_] = next;
      next += inner_below[sorted[c] - n_];
    }
    new_id[node] = static_cast<NodeId>(n_ + range_start[slot] + inner_below[slot] - 1);
  }

  Tree tree;
  tree.n_ = n_;
  tree.parent_.assign(count, kNoNode);
  tree.child_begin_.assign(inner + 1, 0);
  for (std::size_t slot = 0; slot < inner; ++slot) {
    tree.child_begin_[new_id[n_ + slot] - n_ + 1] =
        static_cast<std::uint32_t>(sorted_begin[slot + 1] - sorted_begin[slot]);
  }
  for (std::size_t k = 0; k < inner; ++k) tree.child_begin_[k + 1] += tree.child_begin_[k];
  tree.children_.resize(sorted.size());
  for (std::size_t slot = 0; slot < inner; ++slot) {
    const NodeId id = new_id[n_ + slot];
    std::uint32_t out = tree.child_begin_[id - n_];
    for (std::size_t c = sorted_begin[slot]; c < sorted_begin[slot + 1]; ++c) {
      const NodeId child = new_id[sorted[c]];
      tree.children_[out++] = child;
      tree.parent_[child] = id;
    }
  }

  // Children have smaller ids than their parent: one sweep up for sizes, one down for depths.
  tree.leaves_under_.assign(count, 1);
  tree.smallest_leaf_.resize(count);
  for (std::size_t v = 0; v < count; ++v) {
    const NodeId node = static_cast<NodeId>(v);
    if (v < n_) {
      tree.smallest_leaf_[v] = node;
      continue;
    }
    std::uint32_t leaves = 0;
    for (NodeId child : tree.children(node)) leaves += tree.leaves_under_[child];
    tree.leaves_under_[v] = leaves;
    tree.smallest_leaf_[v] = tree.smallest_leaf_[tree.children(node).front()];
  }
  tree.node_depth_.assign(count, 0);
  std::uint32_t deepest = 0;
  for (std::size_t v = count - 1; v-- > 0;) {
    tree.node_depth_[v] = tree.node_depth_[tree.parent_[v]] + 1;
    deepest = std::max(deepest, tree.node_depth_[v]);
  }
  tree.depth_ = deepest;
  return tree;
}

}  // namespace fprev
