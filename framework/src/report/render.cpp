// Tree rendering as S-expression, indented text and Graphviz DOT.
#include "fprev/render.hpp"

#include "fprev/sexpr.hpp"
#include "fprev/summary.hpp"

namespace fprev {
namespace {

constexpr std::size_t kMaxIndentDepth = 64;

std::string node_label(const Tree& tree, NodeId node) {
  // Appending, not "literal" + std::to_string(): GCC 12 warns falsely (-Wrestrict) on that at -O3.
  if (tree.is_leaf(node)) return std::string("x").append(std::to_string(node));
  const std::size_t arity = tree.children(node).size();
  return arity == 2 ? std::string("+") : std::string("+ fused ").append(std::to_string(arity));
}

// DOT string literal: quotes and backslashes escaped, newlines as \n.
std::string dot_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string dot_id(const Tree& tree, NodeId node) {
  return std::string(tree.is_leaf(node) ? "x" : "n").append(std::to_string(node));
}

}  // namespace

std::string render_sexpr(const Tree& tree) { return to_sexpr(tree); }

std::string render_text(const Tree& tree) {
  std::string out;
  if (tree.empty()) return out;
  std::vector<std::pair<NodeId, std::size_t>> stack{{tree.root(), 0}};  // node, depth
  while (!stack.empty()) {
    const auto [node, depth] = stack.back();
    stack.pop_back();
    out.append(2 * std::min(depth, kMaxIndentDepth), ' ');
    if (depth > kMaxIndentDepth) out += "[depth " + std::to_string(depth) + "] ";
    out += node_label(tree, node);
    out += '\n';
    const auto children = tree.children(node);
    for (std::size_t i = children.size(); i-- > 0;) stack.emplace_back(children[i], depth + 1);
  }
  return out;
}

std::string render_dot(const Tree& tree, std::string_view title) {
  std::string out = "digraph summation_tree {\n";
  out += "  graph [ordering=out";
  if (!title.empty()) out += ", label=" + dot_quote(title) + ", labelloc=t";
  out += "];\n";
  out += "  node [fontname=\"Helvetica\"];\n";
  for (NodeId node = static_cast<NodeId>(tree.leaf_count()); node < tree.node_count(); ++node) {
    const bool fused = tree.children(node).size() > 2;
    out.append("  ").append(dot_id(tree, node)).append(" [label=");
    out.append(dot_quote(node_label(tree, node))).append(fused ? ", shape=box" : ", shape=circle");
    out += "];\n";
    for (NodeId child : tree.children(node))
      out.append("  ").append(dot_id(tree, node)).append(" -> ").append(dot_id(tree, child)) += ";\n";
  }
  if (!tree.empty()) {
    out += "  { rank=same;";
    for (NodeId leaf = 0; leaf < tree.leaf_count(); ++leaf)
      out.append(" ").append(dot_id(tree, leaf)).append(" [label=")
          .append(dot_quote(node_label(tree, leaf))) += ", shape=plaintext];";
    out += " }\n";
  }
  out += "}\n";
  return out;
}

std::string describe_golden(const Golden& golden) {
  const GoldenMetadata& meta = golden.meta;
  std::string out;
  const auto line = [&](std::string_view key, const std::string& value) {
    std::string padded = std::string(key) + ":";
    padded.resize(std::max<std::size_t>(padded.size() + 1, 24), ' ');
    out += padded + value + "\n";
  };
  line("suite", meta.suite);
  line("case", meta.case_id);
  line("backend", meta.backend);
  line("platform", meta.platform_key);
  line("library", golden_identity(meta));
  line("tool-version", meta.tool_version);
  line("created", meta.created);
  for (const auto& [key, value] : meta.extra) line("extra." + key, value);
  if (golden.finding) {
    line("finding", std::string(to_string(golden.finding->finding)) + ": " + golden.finding->message);
  } else if (golden.is_single_tree()) {
    line("tree", format_summary(summarize(golden.tree())));
  } else {
    line("order map", std::to_string(golden.map.classes.size()) + " classes of the " +
                          std::to_string(golden.map.grid.rows) + " x " +
                          std::to_string(golden.map.grid.columns) + " outputs");
    for (const std::string& text : describe_map(golden.map)) out += "  " + text + "\n";
  }
  return out;
}

}  // namespace fprev
