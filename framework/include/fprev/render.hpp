// Rendering of trees and goldens for people: the one-line S-expression, indented text, pictures
// (Graphviz DOT, and SVG through Graphviz's `dot` program when it is installed) of single trees,
// of several trees side by side and of a diff. All output is deterministic.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/diff.hpp"
#include "fprev/drawing.hpp"
#include "fprev/golden.hpp"
#include "fprev/tree.hpp"

namespace fprev {

// "((0 1) (2 3))" (the same as to_sexpr).
std::string render_sexpr(const Tree& tree);

// One node per line, children indented two spaces below their parent, in canonical order:
//   +
//     +
//       x0
//       x1
//     + fused 3
//       x2
//       x3
//       x4
// Binary nodes are "+", wider nodes "+ fused <children>", leaves "x<index>". Indentation stops
// growing at depth 64; deeper lines start with "[depth <d>] " instead, so a 10^5-deep tree stays
// a file of linear size.
std::string render_text(const Tree& tree);

// Pictures (Graphviz DOT, and SVG through Graphviz's `dot` program when it is installed) of the
// drawings of fprev/drawing.hpp: never more than kMaxDrawnNodes nodes per drawing reach Graphviz,
// whatever the size of the tree. Edges go from an operand to the addition that consumes it, so
// the summands are at the top and the result at the bottom. Fused sums are blue boxes, collapsed
// parts grey or dashed boxes that say what they stand for, marked nodes (a diff) red.

// One drawing in a picture, with its title (lines separated by '\n'). Several panels stand side by
// side: the two trees of a diff, the classes of an order map.
struct DrawingPanel {
  std::string title;
  Drawing drawing;
};

// A Graphviz digraph of the panels (one cluster each, the drawing's note under its title), with
// `title` on top when not empty.
std::string drawing_dot(const std::vector<DrawingPanel>& panels, std::string_view title = "");

// The drawing of `tree` (draw_tree) as DOT, `title` on top.
std::string render_dot(const Tree& tree, std::string_view title = "", const DrawingOptions& options = {});

struct SvgResult {
  bool ok = false;
  std::string svg;    // when ok
  std::string error;  // when not ok: `dot` missing, or failed (with its message)
};

// Runs `dot -Tsvg` (found on PATH; no shell involved) on render_dot(tree, title, options).
SvgResult render_svg(const Tree& tree, std::string_view title = "", const DrawingOptions& options = {});
// The same for DOT text made elsewhere.
SvgResult render_svg_from_dot(std::string_view dot);

// The picture of a diff: both trees side by side (old left, new right), each drawn with up to
// `max_nodes` nodes, the additions whose summands the other tree never adds up as one subtotal in
// red (opened first, so the drawing reaches the differences), collapsed parts that are the same in
// both trees in green. Trees of different leaf counts are drawn without marks.
std::vector<DrawingPanel> diff_panels(const Tree& old_tree, const Tree& new_tree, const DiffLabels& labels = {},
                                      std::size_t max_nodes = kDefaultDrawnNodes);
std::string render_diff_dot(const Tree& old_tree, const Tree& new_tree, const DiffLabels& labels = {},
                            std::size_t max_nodes = kDefaultDrawnNodes);

// The executable `name` in one of the PATH directories, if any.
std::optional<std::filesystem::path> find_program(std::string_view name);

// A golden for people: its metadata, one "key: value" line each, then the tree summary line, e.g.
//   suite:     blas-cpu
//   ...
//   tree:      1024 leaves, depth 11, arity {2: 1023}, 8 lanes strided, lanes combined pairwise
std::string describe_golden(const Golden& golden);

}  // namespace fprev
