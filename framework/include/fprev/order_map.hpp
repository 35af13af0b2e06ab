// Order maps: which output elements of a target follow which summation tree.
//
// A target with many outputs (a GEMM's C, a GEMV's y, an MPI vector's elements) is a grid of
// rows x columns (OutputGrid; an MPI vector is count x 1, a GEMV rows x 1). Its elements need not
// all add their summands in the same order: OpenBLAS runs other kernels for the edge rows and columns
// of a matrix, for instance. An OrderMap partitions the grid into classes; every element of a class
// follows the class's tree. A class is a union of disjoint *regions*, each a product of row ranges
// and column ranges (a class is not always one rectangle: some kernels alternate orders across
// micro-tiles, which gives a checkerboard). A target with one order has a map of one class covering
// the whole grid; a single-output target is a 1 x 1 grid.
//
// What a map revealed by fprev::reveal guarantees for each element is documented in
// docs/order-maps.md.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "fprev/target.hpp"
#include "fprev/tree.hpp"

namespace fprev {

// An inclusive range of row or column indices.
struct IndexRange {
  std::size_t first = 0;
  std::size_t last = 0;
  std::size_t size() const { return last - first + 1; }
  friend bool operator==(const IndexRange&, const IndexRange&) = default;
};

// Sorted, disjoint and non-adjacent ranges (canonical: one set of indices has one form).
using IndexRanges = std::vector<IndexRange>;

// The canonical ranges of a set of indices (any order, duplicates allowed).
IndexRanges ranges_of(std::vector<std::size_t> indices);
// Merges overlapping or adjacent ranges and sorts them.
IndexRanges normalized(IndexRanges ranges);
bool contains(const IndexRanges& ranges, std::size_t index);
std::size_t count_indices(const IndexRanges& ranges);
// "0-95", "0-7, 88-95", "100"; a long run of equal ranges at a fixed stride is condensed:
// "0-5, 12-17, ..., 84-89 (8 ranges of 6, every 12)".
std::string format_ranges(const IndexRanges& ranges);

// The elements (r, c) with r in rows and c in columns.
struct Region {
  IndexRanges rows;
  IndexRanges columns;
  std::size_t size() const { return count_indices(rows) * count_indices(columns); }
  bool contains(std::size_t row, std::size_t column) const;
  friend bool operator==(const Region&, const Region&) = default;
};
// "rows 96-99 x columns 0-99", "row 5 x column 3"; a grid of one column (GEMV, vectors) omits
// "x column 0".
std::string format_region(const Region& region, const OutputGrid& grid);

// Elements that follow one tree: the union of disjoint regions.
struct OrderClass {
  std::vector<Region> regions;
  Tree tree;
  std::size_t size() const;  // number of elements
  bool contains(std::size_t row, std::size_t column) const;
};

class OrderMapError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct OrderMap {
  OutputGrid grid;
  // Canonical order: by the first element (row-major) each class holds; so class 0 holds (0, 0).
  std::vector<OrderClass> classes;

  bool single_class() const { return classes.size() == 1; }
  // The class holding element (row, column). Throws std::out_of_range outside the grid.
  std::size_t class_index_at(std::size_t row, std::size_t column) const;
  const OrderClass& class_at(std::size_t row, std::size_t column) const {
    return classes[class_index_at(row, column)];
  }

  // One tree for every element of `grid`.
  static OrderMap uniform(OutputGrid grid, Tree tree);
};

// The map in which element (r, c) follows trees[class_of_element[r * grid.columns + c]], canonical.
// Classes no element refers to are dropped; elements whose classes hold equal trees stay in
// separate classes (merge trees first when that matters). Throws OrderMapError on a size mismatch
// or a class index out of range.
OrderMap map_of_elements(OutputGrid grid, std::span<const std::size_t> class_of_element,
                         std::vector<Tree> trees);

// Brings a map into canonical form: ranges normalised, regions of a class ordered by their first
// element, classes ordered by theirs. Throws OrderMapError when the classes do not partition the
// grid exactly (an element in no class or in two), a class is empty, or trees differ in leaf count.
void canonicalize(OrderMap& map);

// Same grid and the same tree at every element (whatever the regions' split).
bool same_orders(const OrderMap& a, const OrderMap& b);

// The elements whose tree differs between two maps of the same grid, grouped by (before, after)
// class pair into regions. Empty when same_orders(). Throws OrderMapError for different grids.
struct MapChange {
  Region region;
  std::size_t before_class = 0;  // index into before.classes
  std::size_t after_class = 0;   // index into after.classes
};
std::vector<MapChange> compare_maps(const OrderMap& before, const OrderMap& after);

// One line per class: "rows 96-99 x columns 0-99: 100 leaves, depth 99, arity {2: 99},
// sequential" (the tree's one-line summary, see fprev/summary.hpp), one region per "; ".
std::string describe_class(const OrderClass& order_class, const OutputGrid& grid);
std::vector<std::string> describe_map(const OrderMap& map);

}  // namespace fprev
