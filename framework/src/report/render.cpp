// Tree rendering as S-expression, indented text and Graphviz DOT (of the drawings of drawing.cpp).
#include "fprev/render.hpp"

#include <algorithm>

#include "fprev/drawing.hpp"
#include "fprev/sexpr.hpp"
#include "fprev/summary.hpp"

namespace fprev {
namespace {

constexpr std::size_t kMaxIndentDepth = 64;
constexpr std::size_t kNoConsumer = static_cast<std::size_t>(-1);

std::string node_label(const Tree& tree, NodeId node) {
  // Appending, not "literal" + std::to_string(): GCC 12 warns falsely (-Wrestrict) on that at -O3.
  if (tree.is_leaf(node)) return std::string("x").append(std::to_string(node));
  const std::size_t arity = tree.children(node).size();
  return arity == 2 ? std::string("+") : std::string("+ fused ").append(std::to_string(arity));
}

// DOT string literal: quotes and backslashes escaped, newlines as `newline` ("\n" centres the
// line before it, "\l" left-justifies it and ends the text as a line too).
std::string dot_quote(std::string_view text, std::string_view newline = "\\n") {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += newline;
    } else {
      out += c;
    }
  }
  if (newline == "\\l") out += newline;
  return out + "\"";
}

// A DOT string literal of a title: every line left-justified.
std::string title_quote(std::string_view text) { return dot_quote(text, "\\l"); }

// Graphviz attributes of a drawn node: its shape by kind, fused sums blue, marked nodes red,
// collapsed nodes that are the same in another tree green.
std::string node_attributes(const DrawnNode& node) {
  std::string label;
  for (std::size_t i = 0; i < node.lines.size(); ++i) label.append(i ? "\n" : "").append(node.lines[i]);
  std::string shape, style, fill;
  switch (node.kind) {
    case DrawnKind::leaf: shape = "plaintext"; break;
    case DrawnKind::leaves:
    case DrawnKind::operands: shape = "box"; style = "rounded,dashed"; break;
    case DrawnKind::addition:
      if (node.width > 2) {
        shape = "box";
        style = "filled";
        fill = "#cfe2f3";
      } else {
        shape = "circle";
      }
      break;
    case DrawnKind::chain_steps: shape = "box"; style = "dashed"; break;
    case DrawnKind::subtree: shape = "box"; style = "rounded,filled"; fill = "#eeeeee"; break;
    case DrawnKind::copies: shape = "box"; style = "rounded,dashed,filled"; fill = "#f6f6f6"; break;
  }
  std::string extra;
  if (node.marked > 0) {
    fill = "#f4cccc";
    extra = ", color=\"#cc0000\", penwidth=2";
    if (style.find("filled") == std::string::npos) style += style.empty() ? "filled" : ",filled";
  } else if (node.identical && node.kind != DrawnKind::leaf && node.kind != DrawnKind::addition) {
    fill = "#e2f0d9";
    if (style.find("filled") == std::string::npos) style += style.empty() ? "filled" : ",filled";
  }
  std::string out = "label=" + dot_quote(label) + ", shape=" + shape;
  if (node.kind == DrawnKind::addition && node.width == 2) out += ", width=0.35, fixedsize=true";
  if (!style.empty()) out += ", style=\"" + style + "\"";
  if (!fill.empty()) out += ", fillcolor=\"" + fill + "\"";
  return out + extra;
}

// A panel is a plain subgraph, not a cluster: Graphviz does not keep the order of flat edges
// inside a cluster, and the summands must stay in index order (a cluster drew a strided tree's
// 33 leaves as x30 x14 x12 x28 ...). Its title is a node of its own (panel_heading).
void append_panel(std::string& out, const DrawingPanel& panel, std::size_t p) {
  const std::string prefix = "p" + std::to_string(p) + "_";
  const Drawing& drawing = panel.drawing;
  out += "  subgraph panel_" + std::to_string(p) + " {\n";
  for (std::size_t i = 0; i < drawing.nodes.size(); ++i)
    out += "    " + prefix + std::to_string(i) + " [" + node_attributes(drawing.nodes[i]) + "];\n";
  // Written from the sum to its operand, drawn backwards: Graphviz keeps the operands of a node
  // in order only for out-edges (ordering=out), and the arrows point the way the additions happen.
  for (const DrawnEdge& edge : drawing.edges) {
    out += "    " + prefix + std::to_string(edge.to) + " -> " + prefix + std::to_string(edge.from);
    if (edge.count > 1) out += " [label=\"×" + std::to_string(edge.count) + "\"]";
    out += ";\n";
  }
  if (drawing.complete) {  // every summand on one row, in index order: a chain of invisible flat edges
    out += "    { rank=same;";
    for (std::size_t i = 0; i < drawing.tree_leaves; ++i) out += " " + prefix + std::to_string(i) + ";";
    out += " }\n";
    for (std::size_t i = 1; i < drawing.tree_leaves; ++i)
      out += "    " + prefix + std::to_string(i - 1) + " -> " + prefix + std::to_string(i) + " [style=invis];\n";
  }
  out += "  }\n";
}

// The panel's title and note, for its title node.
std::string panel_heading(const DrawingPanel& panel) {
  std::string label = panel.title;
  if (!panel.drawing.note.empty()) label += (label.empty() ? "" : "\n") + panel.drawing.note;
  return label;
}

// The drawn node farthest from the root (in additions): the top of the panel, drawn bottom to top.
std::size_t deepest_node(const Drawing& drawing) {
  std::vector<std::size_t> consumer(drawing.nodes.size(), kNoConsumer);
  for (const DrawnEdge& edge : drawing.edges)
    if (edge.from < consumer.size()) consumer[edge.from] = edge.to;
  std::vector<std::size_t> depth(drawing.nodes.size(), kNoConsumer);
  std::size_t deepest = 0;
  for (std::size_t i = 0; i < drawing.nodes.size(); ++i) {
    // Up to the first node whose depth is known (or the root), then back down.
    std::vector<std::size_t> path;
    std::size_t v = i;
    while (depth[v] == kNoConsumer && consumer[v] != kNoConsumer && path.size() <= drawing.nodes.size()) {
      path.push_back(v);
      v = consumer[v];
    }
    if (depth[v] == kNoConsumer) depth[v] = 0;
    for (std::size_t k = path.size(); k-- > 0;) depth[path[k]] = depth[k + 1 < path.size() ? path[k + 1] : v] + 1;
    if (depth[i] > depth[deepest]) deepest = i;
  }
  return deepest;
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

std::string drawing_dot(const std::vector<DrawingPanel>& panels, std::string_view title) {
  std::string out = "digraph summation_trees {\n";
  // newrank: rank=same spans subgraphs (the titles of the panels, below).
  out += "  graph [rankdir=BT, newrank=true, ordering=out, nodesep=0.25, ranksep=0.3, fontname=\"Helvetica\", "
         "fontsize=12";
  if (!title.empty()) out += ", label=" + title_quote(title) + ", labelloc=t, labeljust=l";
  out += "];\n";
  // 12 pt: 16 px shown at Graphviz's size, as large as the text around a picture in a page.
  out += "  node [fontname=\"Helvetica\", fontsize=12, margin=\"0.08,0.03\"];\n";
  out += "  edge [dir=back, arrowsize=0.6, color=\"#555555\", fontname=\"Helvetica\", fontsize=12];\n";
  for (std::size_t p = 0; p < panels.size(); ++p) append_panel(out, panels[p], p);
  // Each panel's title above its deepest node, the titles on one rank, left to right in panel
  // order: panels of different depths start at the same height (none sits below a blank area) and
  // stand in order. The shorter panel moves up as a whole to shorten its title's edge.
  std::string titles;
  for (std::size_t p = 0; p < panels.size(); ++p) {
    if (panels[p].drawing.nodes.empty()) continue;
    const std::string top = "top_" + std::to_string(p);
    out += "  " + top + " [shape=plaintext, fontsize=12, label=" + title_quote(panel_heading(panels[p])) + "];\n";
    out += "  p" + std::to_string(p) + "_" + std::to_string(deepest_node(panels[p].drawing)) + " -> " + top +
           " [style=invis, dir=none, weight=100];\n";  // heavy: the title stays above its own panel
    titles += " " + top + ";";
  }
  if (panels.size() > 1) {
    out += "  { rank=same;" + titles + " }\n";
    for (std::size_t p = 1; p < panels.size(); ++p)
      if (!panels[p - 1].drawing.nodes.empty() && !panels[p].drawing.nodes.empty())
        out += "  top_" + std::to_string(p - 1) + " -> top_" + std::to_string(p) + " [style=invis];\n";
  }
  out += "}\n";
  return out;
}

std::string render_dot(const Tree& tree, std::string_view title, const DrawingOptions& options) {
  return drawing_dot({{"", draw_tree(tree, options)}}, title);
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
  if (!golden.finding) {
    line("alignment", golden.alignment ? golden.alignment->summary() : "not recorded (written before the alignment check)");
    if (golden.alignment)
      for (const OffsetClass& c : golden.alignment->classes)
        out += "  offsets " + placements_text(c.placements) + ": " +
               (c.map.single_class() ? format_summary(summarize(c.map.classes[0].tree))
                                     : std::to_string(c.map.classes.size()) + " classes of the outputs") +
               "\n";
    for (const InvarianceResult& r : golden.invariance) line("invariance", r.summary());
  }
  return out;
}

}  // namespace fprev
