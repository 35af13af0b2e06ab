// Diff reports: the text a person reads when `check` fails, and the same facts as JSON.
#include "fprev/diff.hpp"

namespace fprev {
namespace {

std::string padded(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

std::string not_comparable_text(const TreeDiff& diff, const DiffLabels& labels) {
  return "not comparable: " + labels.old_name + " has " + std::to_string(diff.old_summary.leaves) +
         " leaves, " + labels.new_name + " has " + std::to_string(diff.new_summary.leaves);
}

std::string agreement_text(const TreeDiff& diff, const DiffLabels& labels) {
  if (diff.old_inner == diff.new_inner)
    return std::to_string(diff.agreeing_inner_nodes) + " of " + std::to_string(diff.new_inner) +
           " inner nodes still agree";
  return std::to_string(diff.agreeing_inner_nodes) +
         (diff.agreeing_inner_nodes == 1 ? " inner node still agrees (" : " inner nodes still agree (") +
         labels.old_name +
         " has " + std::to_string(diff.old_inner) + ", " + labels.new_name + " has " +
         std::to_string(diff.new_inner) + ")";
}

}  // namespace

std::string render_diff_text(const TreeDiff& diff, const DiffLabels& labels) {
  std::string out;
  if (!labels.case_id.empty()) {
    out += "case " + labels.case_id;
    if (!labels.platform_key.empty()) out += " on platform " + labels.platform_key;
    out += '\n';
  } else if (!labels.platform_key.empty()) {
    out += "platform " + labels.platform_key + "\n";
  }
  const std::size_t name_width = std::max(labels.old_name.size(), labels.new_name.size()) + 2;
  if (!labels.old_identity.empty() || !labels.new_identity.empty()) {
    out += padded(labels.old_name + ":", name_width) + labels.old_identity + "\n";
    out += padded(labels.new_name + ":", name_width) + labels.new_identity + "\n";
  }
  const std::size_t tree_width = name_width + 5;
  out += padded(labels.old_name + " tree:", tree_width) + format_summary(diff.old_summary) + "\n";
  out += padded(labels.new_name + " tree:", tree_width) + format_summary(diff.new_summary) + "\n";
  if (!diff.comparable) return out + not_comparable_text(diff, labels) + "\n";
  if (diff.equal) return out + "the trees are identical\n";

  if (!diff.differences.empty()) {
    const DiffItem& first = diff.differences.front();
    out += "first difference, over leaves " + first.leaves_text + ":\n";
    out += "  " + padded(labels.old_name + ":", name_width) + first.old_sexpr + "\n";
    out += "  " + padded(labels.new_name + ":", name_width) + first.new_sexpr + "\n";
    if (first.old_sexpr.find('{') != std::string::npos || first.new_sexpr.find('{') != std::string::npos)
      out += "  ({...}: a subtree shown by its leaf set)\n";
  }
  if (diff.difference_count > 1) {
    const std::size_t more = diff.difference_count - 1;
    out += std::to_string(more) + (more == 1 ? " more differing region" : " more differing regions");
    constexpr std::size_t kListed = 5;
    std::string listed;
    for (std::size_t i = 1; i < diff.differences.size() && i <= kListed; ++i)
      listed += (i > 1 ? ", " : "") + diff.differences[i].leaves_text;
    if (!listed.empty()) out += ", over leaves " + listed + (more > kListed ? ", ..." : "");
    out += "\n";
  }
  out += agreement_text(diff, labels) + "\n";
  return out;
}

std::string render_diff_text(const Tree& old_tree, const Tree& new_tree, const DiffLabels& labels,
                             const DiffOptions& options) {
  return render_diff_text(diff_trees(old_tree, new_tree, options), labels);
}

}  // namespace fprev
