// Drawings of summation trees (fprev/drawing.hpp): node for node when the tree fits the budget,
// else at the level of its structure, opening subtrees largest first while the budget allows.
//
// The structural drawing starts as one collapsed subtree for the root. Opening a subtree draws its
// expression (detail::recognize_structure): the steps of its chain, or its one node, with their
// operands in order. Operands are runs: consecutive summands, and consecutive subtrees of one
// shape. A subtree whose shape was already opened in the same expression is drawn as a copy of it;
// every other one becomes a collapsed subtree, a candidate for opening. An opening that would pass
// the budget is undone and the subtree stays collapsed. Labels are made at the end, for the nodes
// that remain, so every subtree is read O(1) times and the whole drawing costs O(n log n).
#include <algorithm>
#include <queue>
#include <stdexcept>
#include <unordered_map>

#include "fprev/diff.hpp"
#include "fprev/drawing.hpp"
#include "fprev/summary.hpp"
#include "engine/checks.hpp"
#include "tree/structure_recognition.hpp"

namespace fprev {
namespace {

constexpr std::size_t kShownChainSteps = 5;  // longer chains show 2 + 1 steps (and marked ones)
constexpr std::size_t kListedSummands = 4;   // more consecutive summands of one node: one node
constexpr std::size_t kMaxRuns = 8;          // operand runs of one node drawn apart
constexpr std::size_t kMaxCollapsedRuns = 3; // ... of collapsed chain steps
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// "x3, x4, …, x4094" (in the order given: the order of the additions).
std::string summand_list(const std::vector<NodeId>& leaves) {
  const auto name = [](NodeId leaf) { return std::string("x").append(std::to_string(leaf)); };
  std::string out;
  if (leaves.size() <= 3) {
    for (std::size_t i = 0; i < leaves.size(); ++i) out.append(i ? ", " : "").append(name(leaves[i]));
    return out;
  }
  const auto step = static_cast<std::int64_t>(leaves[1]) - leaves[0];
  bool progression = true;
  for (std::size_t i = 2; i < leaves.size() && progression; ++i)
    progression = static_cast<std::int64_t>(leaves[i]) - leaves[i - 1] == step;
  out = name(leaves[0]) + ", " + name(leaves[1]) + (progression ? ", …, " : ", … (not evenly spaced), ") +
        name(leaves.back());
  return out;
}

// "4, 8, 12", "4, 8, …, 28" (evenly spaced) or "4, 8, … (not evenly spaced), 40".
std::string number_list(const std::vector<std::int64_t>& values) {
  std::string out;
  if (values.size() <= 3) {
    for (std::size_t i = 0; i < values.size(); ++i) out.append(i ? ", " : "").append(std::to_string(values[i]));
    return out;
  }
  bool progression = true;
  for (std::size_t i = 2; i < values.size() && progression; ++i)
    progression = values[i] - values[i - 1] == values[1] - values[0];
  return std::to_string(values[0]) + ", " + std::to_string(values[1]) +
         (progression ? ", …, " : ", … (not evenly spaced), ") + std::to_string(values.back());
}

std::string plural(std::size_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

// The subtree at `node` as a tree of its own, leaves renumbered in their order. Its inner nodes are
// the ids node - inner + 1 .. node: ids are the canonical post-order, which visits a subtree in one
// run (children first).
Tree extract_subtree(const Tree& tree, NodeId node, const std::vector<std::uint32_t>& leaves, std::size_t inner) {
  TreeBuilder builder(leaves.size());
  std::unordered_map<NodeId, NodeId> local;
  local.reserve(leaves.size() + inner);
  for (std::size_t i = 0; i < leaves.size(); ++i) local.emplace(leaves[i], static_cast<NodeId>(i));
  std::vector<NodeId> children;
  for (NodeId v = static_cast<NodeId>(node + 1 - inner); v <= node; ++v) {
    children.clear();
    for (NodeId child : tree.children(v)) children.push_back(local.at(child));
    local.emplace(v, builder.add_node(children));
  }
  return builder.build();
}

// What a node stands for beyond DrawnNode::node: the members of a group node.
struct Members {
  std::vector<NodeId> nodes;   // leaves: the summands in order; copies, operands: the operands
  NodeId reference = kNoNode;  // copies: the subtree of the same shape drawn earlier, if any
};

class Drawer {
 public:
  Drawer(const Tree& tree, const DrawingOptions& options)
      : tree_(tree),
        options_(options),
        budget_(std::clamp<std::size_t>(options.max_nodes, 1, kMaxDrawnNodes)),
        recognized_(detail::recognize_structure(tree)),
        marked_below_(tree.node_count(), 0),
        inner_below_(tree.node_count(), 0) {
    for (NodeId node = static_cast<NodeId>(tree.leaf_count()); node < tree.node_count(); ++node) {
      marked_below_[node] = is_marked(node) ? 1 : 0;
      inner_below_[node] = 1;
      for (NodeId child : tree.children(node)) {
        marked_below_[node] += marked_below_[child];
        inner_below_[node] += inner_below_[child];
      }
    }
  }

  Drawing draw() {
    drawing_.tree_nodes = tree_.node_count();
    drawing_.tree_leaves = tree_.leaf_count();
    drawing_.root = add_subtree(tree_.root());
    for (std::size_t index : pending_) queue_.push(candidate(index));
    pending_.clear();
    while (!queue_.empty()) {
      const Candidate next = queue_.top();
      queue_.pop();
      try_open(next.index);
    }
    label_all();
    return std::move(drawing_);
  }

 private:
  struct Candidate {
    bool marked;
    std::uint32_t leaves;
    NodeId node;
    std::size_t index;
    // Marked first, then larger, then further left: the queue's top is the greatest.
    bool operator<(const Candidate& other) const {
      if (marked != other.marked) return !marked;
      if (leaves != other.leaves) return leaves < other.leaves;
      return node > other.node;
    }
  };

  bool is_marked(NodeId node) const { return !options_.marked.empty() && options_.marked[node]; }
  bool is_identical(NodeId node) const { return !options_.identical.empty() && options_.identical[node]; }

  Candidate candidate(std::size_t index) const {
    const NodeId node = drawing_.nodes[index].node;
    return {marked_below_[node] > 0, tree_.leaves_under(node), node, index};
  }

  std::size_t add_node(DrawnNode node, Members members = {}) {
    drawing_.nodes.push_back(std::move(node));
    members_.push_back(std::move(members));
    return drawing_.nodes.size() - 1;
  }

  void add_edge(std::size_t from, std::size_t to, std::size_t count = 1) {
    drawing_.edges.push_back({from, to, count});
  }

  DrawnNode node_for(DrawnKind kind, NodeId node) const {
    DrawnNode drawn;
    drawn.kind = kind;
    drawn.node = node;
    drawn.leaves = tree_.leaves_under(node);
    drawn.additions = inner_below_[node];
    drawn.marked = marked_below_[node];
    drawn.identical = is_identical(node);
    return drawn;
  }

  std::size_t add_subtree(NodeId node) {
    const std::size_t index = add_node(node_for(DrawnKind::subtree, node));
    pending_.push_back(index);
    return index;
  }

  std::size_t add_leaf(NodeId leaf) { return add_node(node_for(DrawnKind::leaf, leaf)); }

  DrawnNode addition_for(NodeId node) const {
    DrawnNode drawn = node_for(DrawnKind::addition, node);
    drawn.additions = 1;
    drawn.marked = is_marked(node) ? 1 : 0;
    drawn.width = tree_.children(node).size();
    return drawn;
  }

  // Opens the collapsed subtree at drawing node `box`, unless that passes the budget. A long chain
  // shows its first two and its last step, and collapses the steps between into chain-steps nodes,
  // when their operands are regular (a few runs: summands in order, copies of one shape);
  // irregular ones are drawn step by step if that fits. Marked steps are shown too if that fits.
  void try_open(std::size_t box) {
    const NodeId top = drawing_.nodes[box].node;
    const std::vector<NodeId> steps = detail::expression_steps(recognized_, top);
    const std::size_t m = steps.size();
    std::vector<std::size_t> every(m);
    for (std::size_t s = 0; s < m; ++s) every[s] = s;
    if (m <= kShownChainSteps) {
      try_open(box, steps, every);
      return;
    }
    if (runs_of(operands_of_steps(steps, 2, m - 2)).size() > kMaxCollapsedRuns && try_open(box, steps, every))
      return;
    if (marked_below_[top] > 0 && try_open(box, steps, collapsed_steps(steps, true))) return;
    try_open(box, steps, collapsed_steps(steps, false));
  }

  // Steps 0, 1 and m-1, and with `marked` the first two and last two marked steps between them;
  // a single step between two shown ones is shown too.
  std::vector<std::size_t> collapsed_steps(const std::vector<NodeId>& steps, bool marked) const {
    const std::size_t m = steps.size();
    std::vector<std::size_t> shown{0, 1};
    if (marked) {
      std::vector<std::size_t> marked_steps;
      for (std::size_t s = 2; s + 1 < m; ++s)
        if (is_marked(steps[s])) marked_steps.push_back(s);
      for (std::size_t k = 0; k < marked_steps.size(); ++k)
        if (k < 2 || k + 2 >= marked_steps.size()) shown.push_back(marked_steps[k]);
    }
    shown.push_back(m - 1);
    std::vector<std::size_t> filled;
    for (std::size_t s : shown) {
      if (!filled.empty() && s == filled.back() + 2) filled.push_back(s - 1);
      filled.push_back(s);
    }
    return filled;
  }

  bool try_open(std::size_t box, const std::vector<NodeId>& steps, const std::vector<std::size_t>& shown) {
    const DrawnNode saved = drawing_.nodes[box];
    const std::size_t nodes_before = drawing_.nodes.size();
    const std::size_t edges_before = drawing_.edges.size();
    open(box, steps, shown);
    if (drawing_.nodes.size() > budget_) {
      drawing_.nodes.resize(nodes_before);
      members_.resize(nodes_before);
      drawing_.edges.resize(edges_before);
      drawing_.nodes[box] = saved;
      pending_.clear();
      return false;
    }
    for (std::size_t index : pending_) queue_.push(candidate(index));
    pending_.clear();
    return true;
  }

  // The operands steps first..last add, but the running sum.
  std::vector<NodeId> operands_of_steps(const std::vector<NodeId>& steps, std::size_t first, std::size_t last) const {
    std::vector<NodeId> operands;
    for (std::size_t s = first; s <= last; ++s)
      for (NodeId child : tree_.children(steps[s]))
        if (child != recognized_.accumulator[steps[s]]) operands.push_back(child);
    return operands;
  }

  // Draws the expression of `steps` (expression_steps of the subtree's top) in place of drawing
  // node `box`, which becomes its last step, so the edge to its consumer stays. `shown`: the steps
  // drawn one by one, ascending, the first and the last among them; the others are collapsed.
  void open(std::size_t box, const std::vector<NodeId>& steps, const std::vector<std::size_t>& shown) {
    boxed_templates_.clear();
    std::size_t running = kNone;  // the drawing node holding the running sum
    for (std::size_t k = 0; k < shown.size(); ++k) {
      const std::size_t s = shown[k];
      if (k > 0 && s > shown[k - 1] + 1) running = add_collapsed_steps(steps, shown[k - 1] + 1, s - 1, running);
      const NodeId step = steps[s];
      std::size_t drawn;
      if (s + 1 == steps.size()) {
        drawn = box;
        drawing_.nodes[box] = addition_for(step);
      } else {
        drawn = add_node(addition_for(step));
      }
      const NodeId accumulator = s > 0 ? recognized_.accumulator[step] : kNoNode;
      std::vector<NodeId> run;
      for (NodeId child : tree_.children(step)) {
        if (child == accumulator) {
          add_operands(run, drawn, false);
          run.clear();
          add_edge(running, drawn);
        } else {
          run.push_back(child);
        }
      }
      add_operands(run, drawn, false);
      running = drawn;
    }
  }

  // Steps first..last of a chain as one node; their operands in at most a few group nodes.
  std::size_t add_collapsed_steps(const std::vector<NodeId>& steps, std::size_t first, std::size_t last,
                                  std::size_t running) {
    DrawnNode drawn;
    drawn.kind = DrawnKind::chain_steps;
    drawn.additions = last - first + 1;
    drawn.width = tree_.children(steps[0]).size();
    drawn.identical = is_identical(steps[last]);
    for (std::size_t s = first; s <= last; ++s) drawn.marked += is_marked(steps[s]) ? 1 : 0;
    const std::vector<NodeId> operands = operands_of_steps(steps, first, last);
    for (NodeId operand : operands) drawn.leaves += tree_.leaves_under(operand);
    const std::size_t index = add_node(std::move(drawn));
    add_edge(running, index);
    add_operands(operands, index, true);
    return index;
  }

  struct Run {
    bool summands = false;
    std::vector<NodeId> nodes;
  };

  // Consecutive summands; consecutive subtrees of one shape, all marked or all unmarked.
  std::vector<Run> runs_of(const std::vector<NodeId>& operands) const {
    std::vector<Run> runs;
    for (NodeId operand : operands) {
      const bool summand = tree_.is_leaf(operand);
      bool joins = !runs.empty() && runs.back().summands == summand;
      if (joins && !summand) {
        const NodeId first = runs.back().nodes.front();
        joins = recognized_.template_of[first] == recognized_.template_of[operand] &&
                (marked_below_[first] > 0) == (marked_below_[operand] > 0);
      }
      if (!joins) runs.push_back({summand, {}});
      runs.back().nodes.push_back(operand);
    }
    return runs;
  }

  void add_operands(const std::vector<NodeId>& operands, std::size_t consumer, bool collapsed_steps) {
    if (operands.empty()) return;
    std::vector<Run> runs = runs_of(operands);
    const std::size_t max_runs = collapsed_steps ? kMaxCollapsedRuns : kMaxRuns;
    if (runs.size() > max_runs) {
      // Keep the first and last runs of an addition apart, the middle ones as one group.
      const std::size_t keep_front = collapsed_steps ? 0 : 3, keep_back = collapsed_steps ? 0 : 1;
      for (std::size_t r = 0; r < keep_front; ++r) add_run(runs[r], consumer, collapsed_steps);
      Members group;
      for (std::size_t r = keep_front; r + keep_back < runs.size(); ++r)
        group.nodes.insert(group.nodes.end(), runs[r].nodes.begin(), runs[r].nodes.end());
      add_group(DrawnKind::operands, std::move(group), consumer);
      for (std::size_t r = runs.size() - keep_back; r < runs.size(); ++r) add_run(runs[r], consumer, collapsed_steps);
      return;
    }
    for (const Run& run : runs) add_run(run, consumer, collapsed_steps);
  }

  void add_run(const Run& run, std::size_t consumer, bool collapsed_steps) {
    if (run.summands) {
      if (run.nodes.size() == 1 || (!collapsed_steps && run.nodes.size() <= kListedSummands)) {
        for (NodeId leaf : run.nodes) add_edge(add_leaf(leaf), consumer);
      } else {
        add_group(DrawnKind::leaves, {run.nodes, kNoNode}, consumer);
      }
      return;
    }
    // A subtree of a shape drawn before in this expression is a copy of it, unless it holds
    // marks that the one drawn does not: those must be opened to be seen.
    const NodeId first = run.nodes.front();
    const bool marked = marked_below_[first] > 0;
    const std::uint32_t shape = recognized_.template_of[first];
    const auto boxed = std::find_if(boxed_templates_.begin(), boxed_templates_.end(),
                                    [&](const auto& entry) { return entry.first == shape; });
    if (boxed != boxed_templates_.end() && (!marked || marked_below_[boxed->second] > 0)) {
      add_group(DrawnKind::copies, {run.nodes, boxed->second}, consumer);
      return;
    }
    if (collapsed_steps && run.nodes.size() > 1 && !marked) {  // a shape only collapsed steps add
      add_group(DrawnKind::copies, {run.nodes, kNoNode}, consumer);
      return;
    }
    // The first of its shape: a subtree that may be opened; the rest copies of it.
    add_edge(add_subtree(first), consumer);
    if (boxed == boxed_templates_.end()) boxed_templates_.emplace_back(shape, first);
    if (run.nodes.size() > 1) add_group(DrawnKind::copies, {{run.nodes.begin() + 1, run.nodes.end()}, first}, consumer);
  }

  void add_group(DrawnKind kind, Members members, std::size_t consumer) {
    DrawnNode drawn;
    drawn.kind = kind;
    bool identical = true;
    for (NodeId node : members.nodes) {
      drawn.leaves += tree_.leaves_under(node);
      drawn.additions += inner_below_[node];
      drawn.marked += marked_below_[node];
      identical = identical && (tree_.is_leaf(node) || is_identical(node));
    }
    drawn.identical = identical && drawn.additions > 0 && !options_.identical.empty();
    const std::size_t count = members.nodes.size();
    add_edge(add_node(std::move(drawn), std::move(members)), consumer, count);
  }

  // ---- labels, once the drawing is final -------------------------------------------------------

  void label_all() {
    for (std::size_t i = 0; i < drawing_.nodes.size(); ++i) {
      DrawnNode& drawn = drawing_.nodes[i];
      drawn.lines = label(drawn, members_[i]);
      if (drawn.marked > 0 && drawn.kind != DrawnKind::addition)
        drawn.lines.push_back(std::to_string(drawn.marked) + " of " + plural(drawn.additions, "addition", "additions") +
                              " " + options_.marked_note);
      else if (drawn.identical && drawn.kind != DrawnKind::addition && drawn.kind != DrawnKind::leaf)
        drawn.lines.push_back(options_.identical_note);
    }
  }

  std::string leaf_set(NodeId node) const { return format_leaf_set(detail::leaves_of(tree_, node)); }

  std::vector<std::string> label(const DrawnNode& drawn, const Members& members) {
    switch (drawn.kind) {
      case DrawnKind::leaf:
        return {std::string("x").append(std::to_string(drawn.node))};
      case DrawnKind::addition:
        return {drawn.width == 2 ? std::string("+") : "+ fused " + std::to_string(drawn.width)};
      case DrawnKind::leaves:
        return {summand_list(members.nodes), plural(members.nodes.size(), "summand", "summands")};
      case DrawnKind::chain_steps:
        return {"… " + (drawn.width == 2 ? plural(drawn.additions, "addition", "additions")
                                          : std::to_string(drawn.additions) + " fused " +
                                                std::to_string(drawn.width) + "-term sums"),
                "one after another"};
      case DrawnKind::subtree:
        return subtree_label(drawn.node);
      case DrawnKind::copies:
        return copies_label(members);
      case DrawnKind::operands:
        return operands_label(members);
    }
    return {};
  }

  std::vector<std::string> subtree_label(NodeId node) const {
    const std::vector<std::uint32_t> leaves = detail::leaves_of(tree_, node);
    const TreeSummary summary = summarize(extract_subtree(tree_, node, leaves, inner_below_[node]));
    std::vector<std::string> lines{format_leaf_set(leaves)};
    if (summary.recognized) {
      lines.push_back(plural(summary.leaves, "leaf", "leaves") + ", " + summary.description);
      lines.push_back("depth " + std::to_string(summary.depth));
    } else {
      lines.push_back(plural(summary.leaves, "leaf", "leaves") + ", depth " + std::to_string(summary.depth));
    }
    if (summary.max_arity > 2) lines.push_back(fused_widths(summary.arity));
    return lines;
  }

  std::vector<std::string> copies_label(const Members& members) {
    const std::vector<NodeId>& copies = members.nodes;
    std::vector<std::string> lines;
    if (copies.size() == 1) {
      lines.push_back(leaf_set(copies.front()));
    } else {
      lines.push_back(std::to_string(copies.size()) + " subtrees " + leaf_set(copies.front()) + ", …, " +
                      leaf_set(copies.back()));
    }
    if (members.reference == kNoNode) {
      std::vector<std::string> shape = subtree_label(copies.front());
      lines.push_back("each: " + shape[1]);
      for (std::size_t i = 2; i < shape.size(); ++i) lines.push_back(shape[i]);
      return lines;
    }
    lines.push_back("same shape as " + leaf_set(members.reference));
    std::vector<std::int64_t> shifts;
    for (NodeId copy : copies)
      shifts.push_back(static_cast<std::int64_t>(tree_.smallest_leaf(copy)) - tree_.smallest_leaf(members.reference));
    lines.push_back("shifted by " + number_list(shifts));
    return lines;
  }

  std::vector<std::string> operands_label(const Members& members) {
    std::size_t summands = 0;
    std::vector<std::uint32_t> all;
    for (NodeId node : members.nodes) {
      if (tree_.is_leaf(node)) ++summands;
      const std::vector<std::uint32_t> leaves = detail::leaves_of(tree_, node);
      all.insert(all.end(), leaves.begin(), leaves.end());
    }
    std::sort(all.begin(), all.end());
    return {plural(members.nodes.size(), "operand", "operands") + ": " + plural(summands, "summand", "summands") +
                ", " + plural(members.nodes.size() - summands, "subtree", "subtrees"),
            "over leaves " + format_leaf_set(all)};
  }

  const Tree& tree_;
  const DrawingOptions& options_;
  const std::size_t budget_;
  const detail::RecognizedStructure recognized_;
  std::vector<std::uint32_t> marked_below_;  // marked inner nodes in each subtree
  std::vector<std::uint32_t> inner_below_;   // inner nodes in each subtree
  Drawing drawing_;
  std::vector<Members> members_;             // parallel to drawing_.nodes
  std::priority_queue<Candidate> queue_;
  std::vector<std::size_t> pending_;         // subtrees added by the opening under way
  std::vector<std::pair<std::uint32_t, NodeId>> boxed_templates_;  // shapes drawn in this expression
};

Drawing draw_every_node(const Tree& tree, const DrawingOptions& options) {
  Drawing drawing;
  drawing.tree_nodes = tree.node_count();
  drawing.tree_leaves = tree.leaf_count();
  drawing.complete = true;
  drawing.root = tree.root();
  for (NodeId node = 0; node < tree.node_count(); ++node) {
    DrawnNode drawn;
    drawn.node = node;
    if (tree.is_leaf(node)) {
      drawn.kind = DrawnKind::leaf;
      drawn.leaves = 1;
      drawn.lines = {std::string("x").append(std::to_string(node))};
    } else {
      const std::size_t width = tree.children(node).size();
      drawn.kind = DrawnKind::addition;
      drawn.additions = 1;
      drawn.width = width;
      drawn.leaves = tree.leaves_under(node);
      drawn.marked = !options.marked.empty() && options.marked[node] ? 1 : 0;
      drawn.lines = {width == 2 ? std::string("+") : "+ fused " + std::to_string(width)};
      for (NodeId child : tree.children(node)) drawing.edges.push_back({child, node, 1});
    }
    drawing.nodes.push_back(std::move(drawn));
  }
  drawing.note = "every node drawn";
  return drawing;
}

std::string structural_note(const Drawing& drawing) {
  std::size_t in_steps = 0, in_copies = 0, in_subtrees = 0, grouped = 0;
  for (const DrawnNode& node : drawing.nodes) {
    switch (node.kind) {
      case DrawnKind::chain_steps: in_steps += node.additions; break;
      case DrawnKind::copies: in_copies += node.additions; break;
      case DrawnKind::subtree: in_subtrees += node.additions; break;
      case DrawnKind::operands: in_subtrees += node.additions; grouped += node.leaves; break;
      case DrawnKind::leaves: grouped += node.leaves; break;
      default: break;
    }
  }
  // One line per kind of collapse, so the note stays narrower than the drawing.
  std::string note = "structure: " + std::to_string(drawing.nodes.size()) + " of " +
                     std::to_string(drawing.tree_nodes) + " nodes drawn";
  if (in_steps) note += "\n" + plural(in_steps, "addition", "additions") + " in collapsed chain steps";
  if (in_copies) note += "\n" + plural(in_copies, "addition", "additions") + " in copies of a shape drawn once";
  if (in_subtrees) note += "\n" + plural(in_subtrees, "addition", "additions") + " in collapsed subtrees";
  if (grouped) note += "\n" + plural(grouped, "summand", "summands") + " in groups";
  return note;
}

}  // namespace

std::string_view to_string(DrawnKind kind) {
  switch (kind) {
    case DrawnKind::leaf: return "leaf";
    case DrawnKind::leaves: return "leaves";
    case DrawnKind::addition: return "addition";
    case DrawnKind::chain_steps: return "chain_steps";
    case DrawnKind::subtree: return "subtree";
    case DrawnKind::copies: return "copies";
    case DrawnKind::operands: return "operands";
  }
  return "?";
}

Drawing draw_tree(const Tree& tree, const DrawingOptions& options) {
  if (tree.empty()) throw std::invalid_argument("draw_tree: the tree is empty");
  for (const std::vector<bool>* flags : {&options.marked, &options.identical})
    if (!flags->empty() && flags->size() != tree.node_count())
      throw std::invalid_argument("draw_tree: " + std::to_string(flags->size()) + " flags for a tree of " +
                                  std::to_string(tree.node_count()) + " nodes");
  const std::size_t budget = std::clamp<std::size_t>(options.max_nodes, 1, kMaxDrawnNodes);
  if (tree.node_count() <= budget) return draw_every_node(tree, options);
  Drawing drawing = Drawer(tree, options).draw();
  drawing.note = structural_note(drawing);
  return drawing;
}

}  // namespace fprev
