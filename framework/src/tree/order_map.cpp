// Order maps: ranges, regions, canonical form, lookup and comparison.
//
// Canonical form and comparisons work on the common refinement of all ranges: the grid is cut at
// every range boundary into elementary row and column segments, so every region is a set of whole
// cells. A class's canonical regions group the column segments whose sets of rows (in that class)
// are equal: one region per distinct row set, independent of how the regions were split before.
#include "fprev/order_map.hpp"

#include <algorithm>
#include <map>

#include "fprev/summary.hpp"

namespace fprev {
namespace {

// Elementary segments [starts[i], starts[i + 1]) of one axis.
struct Segments {
  std::vector<std::size_t> starts;  // ascending, last element = axis length
  std::size_t count() const { return starts.size() - 1; }
  std::size_t index_of(std::size_t position) const {  // segment holding `position`
    return static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), position) -
                                    starts.begin()) - 1;
  }
};

Segments segments_of(std::size_t length, const std::vector<const IndexRanges*>& all) {
  std::vector<std::size_t> cuts{0, length};
  for (const IndexRanges* ranges : all)
    for (const IndexRange& r : *ranges) {
      cuts.push_back(r.first);
      cuts.push_back(r.last + 1);
    }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  while (!cuts.empty() && cuts.back() > length) cuts.pop_back();
  return {std::move(cuts)};
}

// The cells of a map's grid, each owned by one class (or by none: kUnowned).
constexpr std::size_t kUnowned = static_cast<std::size_t>(-1);

struct Cells {
  Segments rows, columns;
  std::vector<std::size_t> owner;  // row segment * columns.count() + column segment
  std::size_t& at(std::size_t i, std::size_t j) { return owner[i * columns.count() + j]; }
  std::size_t at(std::size_t i, std::size_t j) const { return owner[i * columns.count() + j]; }
};

void check_in_grid(const IndexRanges& ranges, std::size_t length, const char* axis) {
  for (const IndexRange& r : ranges)
    if (r.first > r.last || r.last >= length)
      throw OrderMapError(std::string("order map: ") + axis + " range " +
                          std::to_string(r.first) + "-" + std::to_string(r.last) +
                          " is outside the grid (" + std::to_string(length) + " " + axis + ")");
}

// Cells of `map` on the refinement of its own ranges plus `extra` (another map's, to compare).
Cells cells_of(const OrderMap& map, const OrderMap* extra = nullptr) {
  std::vector<const IndexRanges*> row_ranges, column_ranges;
  for (const OrderMap* m : {&map, extra}) {
    if (m == nullptr) continue;
    for (const OrderClass& c : m->classes)
      for (const Region& r : c.regions) {
        check_in_grid(r.rows, m->grid.rows, "rows");
        check_in_grid(r.columns, m->grid.columns, "columns");
        row_ranges.push_back(&r.rows);
        column_ranges.push_back(&r.columns);
      }
  }
  Cells cells;
  cells.rows = segments_of(map.grid.rows, row_ranges);
  cells.columns = segments_of(map.grid.columns, column_ranges);
  cells.owner.assign(cells.rows.count() * cells.columns.count(), kUnowned);
  for (std::size_t k = 0; k < map.classes.size(); ++k) {
    for (const Region& region : map.classes[k].regions) {
      for (const IndexRange& rr : region.rows) {
        for (std::size_t i = cells.rows.index_of(rr.first); i <= cells.rows.index_of(rr.last); ++i) {
          for (const IndexRange& cr : region.columns) {
            for (std::size_t j = cells.columns.index_of(cr.first);
                 j <= cells.columns.index_of(cr.last); ++j) {
              std::size_t& owner = cells.at(i, j);
              if (owner != kUnowned)
                throw OrderMapError("order map: element (" + std::to_string(cells.rows.starts[i]) +
                                    ", " + std::to_string(cells.columns.starts[j]) +
                                    ") belongs to classes " + std::to_string(owner) + " and " +
                                    std::to_string(k));
              owner = k;
            }
          }
        }
      }
    }
  }
  for (std::size_t i = 0; i < cells.rows.count(); ++i)
    for (std::size_t j = 0; j < cells.columns.count(); ++j)
      if (cells.at(i, j) == kUnowned)
        throw OrderMapError("order map: element (" + std::to_string(cells.rows.starts[i]) + ", " +
                            std::to_string(cells.columns.starts[j]) + ") belongs to no class");
  return cells;
}

IndexRanges ranges_of_segments(const Segments& segments, const std::vector<std::size_t>& chosen) {
  IndexRanges ranges;
  for (std::size_t s : chosen) ranges.push_back({segments.starts[s], segments.starts[s + 1] - 1});
  return normalized(std::move(ranges));
}

// Regions covering exactly the cells for which `member(i, j)` holds: one region per distinct set of
// row segments, over the column segments having that set.
template <class Member>
std::vector<Region> regions_of(const Cells& cells, Member member) {
  std::map<std::vector<std::size_t>, std::vector<std::size_t>> columns_by_rows;
  for (std::size_t j = 0; j < cells.columns.count(); ++j) {
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < cells.rows.count(); ++i)
      if (member(i, j)) rows.push_back(i);
    if (!rows.empty()) columns_by_rows[rows].push_back(j);
  }
  std::vector<Region> regions;
  for (const auto& [rows, columns] : columns_by_rows)
    regions.push_back({ranges_of_segments(cells.rows, rows), ranges_of_segments(cells.columns, columns)});
  std::sort(regions.begin(), regions.end(), [](const Region& a, const Region& b) {
    return a.rows.front().first != b.rows.front().first
               ? a.rows.front().first < b.rows.front().first
               : a.columns.front().first < b.columns.front().first;
  });
  return regions;
}

std::string format_range(const IndexRange& r) {
  return r.first == r.last ? std::to_string(r.first)
                           : std::to_string(r.first) + "-" + std::to_string(r.last);
}

}  // namespace

IndexRanges normalized(IndexRanges ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const IndexRange& a, const IndexRange& b) { return a.first < b.first; });
  IndexRanges out;
  for (const IndexRange& r : ranges) {
    if (!out.empty() && r.first <= out.back().last + 1) {
      out.back().last = std::max(out.back().last, r.last);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

IndexRanges ranges_of(std::vector<std::size_t> indices) {
  std::sort(indices.begin(), indices.end());
  IndexRanges out;
  for (std::size_t i : indices) {
    if (!out.empty() && i <= out.back().last + 1) {
      out.back().last = std::max(out.back().last, i);
    } else {
      out.push_back({i, i});
    }
  }
  return out;
}

bool contains(const IndexRanges& ranges, std::size_t index) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), index,
                             [](std::size_t v, const IndexRange& r) { return v < r.first; });
  return it != ranges.begin() && std::prev(it)->last >= index;
}

std::size_t count_indices(const IndexRanges& ranges) {
  std::size_t n = 0;
  for (const IndexRange& r : ranges) n += r.size();
  return n;
}

std::string format_ranges(const IndexRanges& ranges) {
  if (ranges.empty()) return "none";
  // A run of at least 4 equal-length ranges at a fixed stride is condensed.
  std::string out;
  std::size_t k = 0;
  while (k < ranges.size()) {
    std::size_t end = k + 1;
    if (k + 1 < ranges.size()) {
      const std::size_t length = ranges[k].size();
      const std::size_t stride = ranges[k + 1].first - ranges[k].first;
      while (end < ranges.size() && ranges[end].size() == length &&
             ranges[end].first - ranges[end - 1].first == stride)
        ++end;
    }
    if (!out.empty()) out += ", ";
    if (end - k >= 4) {
      out += format_range(ranges[k]) + ", " + format_range(ranges[k + 1]) + ", ..., " +
             format_range(ranges[end - 1]) + " (" + std::to_string(end - k) + " ranges of " +
             std::to_string(ranges[k].size()) + ", every " +
             std::to_string(ranges[k + 1].first - ranges[k].first) + ")";
      k = end;
    } else {
      out += format_range(ranges[k]);
      ++k;
    }
  }
  return out;
}

bool Region::contains(std::size_t row, std::size_t column) const {
  return fprev::contains(rows, row) && fprev::contains(columns, column);
}

std::string format_region(const Region& region, const OutputGrid& grid) {
  const auto axis = [](const IndexRanges& ranges, const char* one, const char* many) {
    const bool single = ranges.size() == 1 && ranges[0].first == ranges[0].last;
    return std::string(single ? one : many) + " " + format_ranges(ranges);
  };
  std::string text = axis(region.rows, "row", "rows");
  if (grid.columns > 1) text += " x " + axis(region.columns, "column", "columns");
  return text;
}

std::size_t OrderClass::size() const {
  std::size_t n = 0;
  for (const Region& r : regions) n += r.size();
  return n;
}

bool OrderClass::contains(std::size_t row, std::size_t column) const {
  return std::any_of(regions.begin(), regions.end(),
                     [&](const Region& r) { return r.contains(row, column); });
}

std::size_t OrderMap::class_index_at(std::size_t row, std::size_t column) const {
  if (row >= grid.rows || column >= grid.columns)
    throw std::out_of_range("order map: element (" + std::to_string(row) + ", " +
                            std::to_string(column) + ") is outside the " +
                            std::to_string(grid.rows) + " x " + std::to_string(grid.columns) +
                            " grid");
  for (std::size_t k = 0; k < classes.size(); ++k)
    if (classes[k].contains(row, column)) return k;
  throw std::out_of_range("order map: element (" + std::to_string(row) + ", " +
                          std::to_string(column) + ") belongs to no class");
}

OrderMap OrderMap::uniform(OutputGrid grid, Tree tree) {
  OrderMap map;
  map.grid = grid;
  OrderClass only;
  only.regions.push_back({{{0, grid.rows - 1}}, {{0, grid.columns - 1}}});
  only.tree = std::move(tree);
  map.classes.push_back(std::move(only));
  return map;
}

void canonicalize(OrderMap& map) {
  if (map.grid.rows == 0 || map.grid.columns == 0) throw OrderMapError("order map: empty grid");
  if (map.classes.empty()) throw OrderMapError("order map: no classes");
  for (std::size_t k = 0; k < map.classes.size(); ++k) {
    if (map.classes[k].tree.leaf_count() != map.classes.front().tree.leaf_count())
      throw OrderMapError("order map: class " + std::to_string(k) + " has a tree of " +
                          std::to_string(map.classes[k].tree.leaf_count()) + " leaves, class 0 of " +
                          std::to_string(map.classes.front().tree.leaf_count()));
    for (Region& r : map.classes[k].regions) {
      r.rows = normalized(std::move(r.rows));
      r.columns = normalized(std::move(r.columns));
    }
  }
  const Cells cells = cells_of(map);
  std::vector<OrderClass> classes;
  for (std::size_t k = 0; k < map.classes.size(); ++k) {
    OrderClass c;
    c.regions = regions_of(cells, [&](std::size_t i, std::size_t j) { return cells.at(i, j) == k; });
    if (c.regions.empty()) throw OrderMapError("order map: class " + std::to_string(k) + " is empty");
    c.tree = std::move(map.classes[k].tree);
    classes.push_back(std::move(c));
  }
  // By the first element in row-major order (the smallest row, then the smallest column in it).
  const auto first_element = [&](const OrderClass& c) {
    std::pair<std::size_t, std::size_t> best{map.grid.rows, map.grid.columns};
    for (const Region& r : c.regions)
      best = std::min(best, std::make_pair(r.rows.front().first, r.columns.front().first));
    return best;
  };
  std::sort(classes.begin(), classes.end(), [&](const OrderClass& a, const OrderClass& b) {
    return first_element(a) < first_element(b);
  });
  map.classes = std::move(classes);
}

OrderMap map_of_elements(OutputGrid grid, std::span<const std::size_t> class_of_element,
                         std::vector<Tree> trees) {
  if (class_of_element.size() != grid.size())
    throw OrderMapError("order map: " + std::to_string(class_of_element.size()) +
                        " element classes for a grid of " + std::to_string(grid.size()));
  OrderMap map;
  map.grid = grid;
  std::vector<std::size_t> index(trees.size(), kUnowned);
  // Per row, the columns of each class as ranges; equal rows of one class share a region.
  std::vector<std::map<std::vector<std::pair<std::size_t, std::size_t>>, std::vector<std::size_t>>>
      rows_by_columns(trees.size());
  for (std::size_t r = 0; r < grid.rows; ++r) {
    std::map<std::size_t, std::vector<std::pair<std::size_t, std::size_t>>> columns;
    for (std::size_t c = 0; c < grid.columns; ++c) {
      const std::size_t k = class_of_element[r * grid.columns + c];
      if (k >= trees.size())
        throw OrderMapError("order map: element (" + std::to_string(r) + ", " + std::to_string(c) +
                            ") refers to class " + std::to_string(k) + " of " +
                            std::to_string(trees.size()));
      auto& ranges = columns[k];
      if (!ranges.empty() && ranges.back().second + 1 == c) {
        ranges.back().second = c;
      } else {
        ranges.emplace_back(c, c);
      }
    }
    for (auto& [k, ranges] : columns) rows_by_columns[k][ranges].push_back(r);
  }
  for (std::size_t k = 0; k < trees.size(); ++k) {
    if (rows_by_columns[k].empty()) continue;
    OrderClass c;
    for (const auto& [ranges, rows] : rows_by_columns[k]) {
      Region region;
      region.rows = ranges_of(rows);
      for (const auto& [first, last] : ranges) region.columns.push_back({first, last});
      c.regions.push_back(std::move(region));
    }
    c.tree = std::move(trees[k]);
    map.classes.push_back(std::move(c));
  }
  canonicalize(map);
  return map;
}

std::vector<MapChange> compare_maps(const OrderMap& before, const OrderMap& after) {
  if (!(before.grid == after.grid))
    throw OrderMapError("order maps of different grids (" + std::to_string(before.grid.rows) + " x " +
                        std::to_string(before.grid.columns) + " and " +
                        std::to_string(after.grid.rows) + " x " +
                        std::to_string(after.grid.columns) + ") cannot be compared");
  const Cells a = cells_of(before, &after);
  const Cells b = cells_of(after, &before);  // the same refinement, owners from `after`
  std::map<std::pair<std::size_t, std::size_t>, bool> pairs;
  for (std::size_t i = 0; i < a.rows.count(); ++i)
    for (std::size_t j = 0; j < a.columns.count(); ++j)
      if (!(before.classes[a.at(i, j)].tree == after.classes[b.at(i, j)].tree))
        pairs[{a.at(i, j), b.at(i, j)}] = true;
  std::vector<MapChange> changes;
  for (const auto& [pair, unused] : pairs) {
    (void)unused;
    for (Region& region : regions_of(a, [&](std::size_t i, std::size_t j) {
           return a.at(i, j) == pair.first && b.at(i, j) == pair.second;
         }))
      changes.push_back({std::move(region), pair.first, pair.second});
  }
  return changes;
}

bool same_orders(const OrderMap& a, const OrderMap& b) { return compare_maps(a, b).empty(); }

std::string describe_class(const OrderClass& order_class, const OutputGrid& grid) {
  std::string text;
  for (const Region& r : order_class.regions) {
    if (!text.empty()) text += "; ";
    text += format_region(r, grid);
  }
  return text + ": " + format_summary(summarize(order_class.tree));
}

std::vector<std::string> describe_map(const OrderMap& map) {
  std::vector<std::string> lines;
  for (const OrderClass& c : map.classes) lines.push_back(describe_class(c, map.grid));
  return lines;
}

}  // namespace fprev
