// The picture of a diff: both trees side by side, what differs in red (fprev/render.hpp).
#include <algorithm>

#include "fprev/diff.hpp"
#include "fprev/render.hpp"
#include "fprev/summary.hpp"

namespace fprev {
namespace {

std::string panel_title(const std::string& name, const std::string& identity, const Tree& tree) {
  std::string title = name;
  if (!identity.empty()) title += ": " + identity;
  return title + "\n" + format_summary(summarize(tree));
}

// Inner nodes without a counterpart in the other tree.
std::vector<bool> unmatched(const Tree& tree, const std::vector<NodeId>& counterpart) {
  std::vector<bool> marked(tree.node_count(), false);
  for (NodeId node = static_cast<NodeId>(tree.leaf_count()); node < tree.node_count(); ++node)
    marked[node] = counterpart[node] == kNoNode;
  return marked;
}

std::size_t count(const std::vector<bool>& flags) {
  return static_cast<std::size_t>(std::count(flags.begin(), flags.end(), true));
}

struct DiffDrawingOptions {
  DrawingOptions old_options, new_options;
};

// Marks and identical subtrees of both trees, for trees over the same leaves.
DiffDrawingOptions diff_drawing_options(const Tree& old_tree, const Tree& new_tree, std::size_t max_nodes) {
  DiffDrawingOptions options;
  options.old_options.max_nodes = options.new_options.max_nodes = max_nodes;
  if (old_tree.empty() || old_tree.leaf_count() != new_tree.leaf_count()) return options;
  TreeMatching matching = match_trees(old_tree, new_tree);
  options.old_options.marked = unmatched(old_tree, matching.old_to_new);
  options.new_options.marked = unmatched(new_tree, matching.new_to_old);
  options.old_options.identical = std::move(matching.old_identical);
  options.new_options.identical = std::move(matching.new_identical);
  return options;
}

std::vector<DrawingPanel> panels_of(const Tree& old_tree, const Tree& new_tree, const DiffLabels& labels,
                                    const DiffDrawingOptions& options) {
  return {{panel_title(labels.old_name, labels.old_identity, old_tree), draw_tree(old_tree, options.old_options)},
          {panel_title(labels.new_name, labels.new_identity, new_tree), draw_tree(new_tree, options.new_options)}};
}

}  // namespace

std::vector<DrawingPanel> diff_panels(const Tree& old_tree, const Tree& new_tree, const DiffLabels& labels,
                                      std::size_t max_nodes) {
  return panels_of(old_tree, new_tree, labels, diff_drawing_options(old_tree, new_tree, max_nodes));
}

std::string render_diff_dot(const Tree& old_tree, const Tree& new_tree, const DiffLabels& labels,
                            std::size_t max_nodes) {
  std::string title;
  if (!labels.case_id.empty()) title = "case " + labels.case_id;
  if (!labels.platform_key.empty()) title += (title.empty() ? "platform " : " on platform ") + labels.platform_key;
  if (!title.empty()) title += "\n";
  const DiffDrawingOptions options = diff_drawing_options(old_tree, new_tree, max_nodes);
  if (old_tree.leaf_count() != new_tree.leaf_count()) {
    title += "not comparable: " + std::to_string(old_tree.leaf_count()) + " and " +
             std::to_string(new_tree.leaf_count()) + " leaves";
  } else if (old_tree == new_tree) {
    title += "the trees are identical";
  } else {
    title += "red: additions whose summands the other tree never adds up as one subtotal (" +
             std::to_string(count(options.old_options.marked)) + " of " + std::to_string(old_tree.inner_count()) +
             " in " + labels.old_name + ", " + std::to_string(count(options.new_options.marked)) + " of " +
             std::to_string(new_tree.inner_count()) + " in " + labels.new_name +
             ")\ngreen: collapsed parts that are the same in both trees";
  }
  return drawing_dot(panels_of(old_tree, new_tree, labels, options), title);
}

}  // namespace fprev
