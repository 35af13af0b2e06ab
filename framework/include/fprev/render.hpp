// Rendering of trees and goldens for people: the one-line S-expression, indented text, Graphviz
// DOT, and SVG through Graphviz's `dot` program when it is installed. All output is deterministic.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

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

// A Graphviz digraph: inner nodes "n<id>" (canonical ids) labelled "+" or "+ fused <w>", leaves
// "x<i>" on one rank, edges parent -> child in child order. `title` becomes the graph label when
// not empty.
std::string render_dot(const Tree& tree, std::string_view title = "");

struct SvgResult {
  bool ok = false;
  std::string svg;    // when ok
  std::string error;  // when not ok: `dot` missing, failed (with its message), tree too large
};

// Runs `dot -Tsvg` (found on PATH; no shell involved) on render_dot(tree, title). Trees with more
// than max_nodes nodes are refused: Graphviz layout would take very long.
SvgResult render_svg(const Tree& tree, std::string_view title = "", std::size_t max_nodes = 20000);
// The same for DOT text made elsewhere.
SvgResult render_svg_from_dot(std::string_view dot);

// The executable `name` in one of the PATH directories, if any.
std::optional<std::filesystem::path> find_program(std::string_view name);

// A golden for people: its metadata, one "key: value" line each, then the tree summary line, e.g.
//   suite:     blas-cpu
//   ...
//   tree:      1024 leaves, depth 11, arity {2: 1023}, 8 lanes strided, lanes combined pairwise
std::string describe_golden(const Golden& golden);

}  // namespace fprev
