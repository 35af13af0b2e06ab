// What changed between two results of a case: trees, order maps, recorded findings.
#include "fprev/result_diff.hpp"

#include <cmath>

#include "fprev/summary.hpp"
#include "report/result_pairs.hpp"

namespace fprev {
namespace {

constexpr std::size_t kChangesListed = 8;

std::string finding_text(const RecordedFinding& finding) {
  return "the target misbehaves (" + std::string(to_string(finding.finding)) + "): " + finding.message;
}

std::string order_text(const Golden& golden) {
  if (golden.is_single_tree()) return format_summary(summarize(golden.tree()));
  return "an order map of " + std::to_string(golden.map.classes.size()) + " classes";
}

std::string result_text(const Golden& golden) {
  return golden.finding ? finding_text(*golden.finding) : order_text(golden);
}


std::string grid_text(const OutputGrid& grid) {
  return std::to_string(grid.rows) + " x " + std::to_string(grid.columns);
}

std::string header(const DiffLabels& labels) {
  std::string out;
  if (!labels.case_id.empty()) {
    out += "case " + labels.case_id;
    if (!labels.platform_key.empty()) out += " on platform " + labels.platform_key;
    out += '\n';
  }
  const std::size_t width = std::max(labels.old_name.size(), labels.new_name.size()) + 2;
  const auto line = [&](const std::string& name, const std::string& text) {
    std::string label = name + ":";
    label.resize(std::max(label.size(), width), ' ');
    out += label + text + "\n";
  };
  if (!labels.old_identity.empty() || !labels.new_identity.empty()) {
    line(labels.old_name, labels.old_identity);
    line(labels.new_name, labels.new_identity);
  }
  return out;
}

std::string map_diff(const ComparableMaps& maps, const DiffLabels& labels) {
  const std::vector<MapChange> changes = compare_maps(maps.before, maps.after);
  std::string out = header(labels);
  out += labels.old_name + " order map: " + std::to_string(maps.before.classes.size()) + " class(es); " +
         labels.new_name + ": " + std::to_string(maps.after.classes.size()) + " class(es) of the " +
         grid_text(maps.after.grid) + " outputs\n";
  if (changes.empty()) return out + "the orders are identical at every element\n";
  out += "elements whose tree changed:\n";
  for (std::size_t i = 0; i < changes.size() && i < kChangesListed; ++i) {
    const MapChange& change = changes[i];
    out += "  " + format_region(change.region, maps.after.grid) + ": " +
           summarize(maps.before.classes[change.before_class].tree).description + " -> " +
           summarize(maps.after.classes[change.after_class].tree).description + "\n";
  }
  if (changes.size() > kChangesListed)
    out += "  ... and " + std::to_string(changes.size() - kChangesListed) + " more regions\n";
  const MapChange& first = changes.front();
  DiffLabels inner;
  inner.old_name = labels.old_name;
  inner.new_name = labels.new_name;
  out += "the first region's trees:\n";
  const std::string diff = render_diff_text(maps.before.classes[first.before_class].tree,
                                            maps.after.classes[first.after_class].tree, inner);
  for (std::size_t start = 0; start < diff.size();) {
    const std::size_t end = diff.find('\n', start);
    out += "  " + diff.substr(start, end - start + 1);
    start = end + 1;
  }
  return out;
}

}  // namespace

std::optional<ComparableMaps> comparable_maps(const Golden& before, const Golden& after) {
  if (before.map.grid == after.map.grid) return ComparableMaps{before.map, after.map};
  if (before.is_single_tree()) return ComparableMaps{OrderMap::uniform(after.map.grid, before.tree()), after.map};
  if (after.is_single_tree()) return ComparableMaps{before.map, OrderMap::uniform(before.map.grid, after.tree())};
  return std::nullopt;
}

Format output_format_of(const std::vector<const Fingerprint*>& fingerprints) {
  for (Format format : {Format::fp8_e4m3, Format::fp8_e5m2, Format::float16, Format::bfloat16,
                        Format::float32, Format::float64}) {
    bool all = true;
    for (const Fingerprint* f : fingerprints)
      for (const auto& [set, values] : f->outputs)
        for (double v : values)
          if (std::isfinite(v) && !is_representable(v, format)) all = false;
    if (all) return format;
  }
  return Format::float64;
}

std::optional<FingerprintComparison> compare_result_fingerprints(const Golden& before, const Golden& after) {
  if (before.fingerprints.empty() || before.fingerprints.size() != after.fingerprints.size()) return std::nullopt;
  std::optional<FingerprintComparison> first;
  for (std::size_t k = 0; k < before.fingerprints.size(); ++k) {
    const Fingerprint& a = before.fingerprints[k];
    const Fingerprint& b = after.fingerprints[k];
    FingerprintComparison change = compare_fingerprints(a, b, output_format_of({&a, &b}));
    if (!change.same()) return change;
    if (!first) first = std::move(change);
  }
  return first;
}

std::string render_result_diff(const Golden& before, const Golden& after, const DiffLabels& labels) {
  if (before.finding || after.finding) {
    std::string out = header(labels);
    out += labels.old_name + " result: " + result_text(before) + "\n";
    out += labels.new_name + " result: " + result_text(after) + "\n";
    return out;
  }
  if (before.is_single_tree() && after.is_single_tree())
    return render_diff_text(before.tree(), after.tree(), labels);
  const auto maps = comparable_maps(before, after);
  if (!maps)
    return header(labels) + "not comparable: " + labels.old_name + "'s order map is over " +
           grid_text(before.map.grid) + " outputs, " + labels.new_name + "'s over " +
           grid_text(after.map.grid) + "\n";
  return map_diff(*maps, labels);
}

std::string result_diff_summary(const Golden& before, const Golden& after) {
  if (before.finding && after.finding)
    return "finding " + std::string(to_string(before.finding->finding)) + " -> finding " +
           std::string(to_string(after.finding->finding));
  if (before.finding) return "finding " + std::string(to_string(before.finding->finding)) + " -> " + order_text(after);
  if (after.finding) return order_text(before) + " -> finding " + std::string(to_string(after.finding->finding));
  if (before.is_single_tree() && after.is_single_tree()) {
    const TreeDiff d = diff_trees(before.tree(), after.tree());
    if (!d.comparable) return d.note;
    return std::to_string(d.agreeing_inner_nodes) + " of " + std::to_string(d.old_inner) +
           " inner nodes agree; now " + d.new_summary.description;
  }
  const auto maps = comparable_maps(before, after);
  if (!maps) return "the grids differ";
  const std::vector<MapChange> changes = compare_maps(maps->before, maps->after);
  std::size_t elements = 0;
  for (const MapChange& change : changes) elements += change.region.size();
  return std::to_string(elements) + " of " + std::to_string(maps->after.grid.size()) +
         " elements follow another tree; now " + std::to_string(maps->after.classes.size()) + " class(es)";
}

std::string alignment_change(const Golden& before, const Golden& after) {
  if (before.finding || after.finding || !before.alignment || !after.alignment ||
      same_alignment(*before.alignment, *after.alignment))
    return {};
  std::string out = "alignment: " + before.alignment->summary() + " -> " + after.alignment->summary();
  if (before.alignment->verdict == after.alignment->verdict && before.alignment->summary() == after.alignment->summary())
    out += " (the offset classes or their orders changed)";
  return out;
}

std::optional<std::string> result_dot(const Golden& result, std::string_view title, std::size_t max_nodes) {
  if (result.finding) return std::nullopt;
  DrawingOptions options;
  options.max_nodes = max_nodes;
  std::vector<DrawingPanel> panels;
  // An order map over offsets (fprev/alignment.hpp): a panel per offset class, the golden's own
  // order (offset 0's class) first.
  if (result.alignment && result.alignment->verdict == AlignmentVerdict::dependent) {
    for (const OffsetClass& c : result.alignment->classes)
      for (std::size_t k = 0; k < c.map.classes.size(); ++k) {
        std::string panel_title = "offsets " + placements_text(c.placements);
        if (!c.map.single_class()) panel_title += ", class " + std::to_string(k);
        panels.push_back({panel_title + "\n" + format_summary(summarize(c.map.classes[k].tree)),
                          draw_tree(c.map.classes[k].tree, options)});
      }
    return drawing_dot(panels, title);
  }
  for (std::size_t k = 0; k < result.map.classes.size(); ++k) {
    const OrderClass& c = result.map.classes[k];
    std::string panel_title = format_summary(summarize(c.tree));
    if (!result.is_single_tree()) {
      std::string regions;
      for (const Region& region : c.regions)
        regions += (regions.empty() ? "" : "; ") + format_region(region, result.map.grid);
      panel_title = "class " + std::to_string(k) + ": " + regions + "\n" + panel_title;
    }
    panels.push_back({std::move(panel_title), draw_tree(c.tree, options)});
  }
  return drawing_dot(panels, title);
}

std::optional<std::string> result_diff_dot(const Golden& before, const Golden& after, const DiffLabels& labels,
                                           std::size_t max_nodes) {
  if (before.finding || after.finding) return std::nullopt;
  if (before.is_single_tree() && after.is_single_tree())
    return render_diff_dot(before.tree(), after.tree(), labels, max_nodes);
  const auto maps = comparable_maps(before, after);
  if (!maps) return std::nullopt;
  const std::vector<MapChange> changes = compare_maps(maps->before, maps->after);
  if (changes.empty())
    return render_diff_dot(maps->after.classes[0].tree, maps->after.classes[0].tree, labels, max_nodes);
  const MapChange& first = changes.front();
  DiffLabels region_labels = labels;
  const std::string where = " at " + format_region(first.region, maps->after.grid);
  region_labels.old_name += where;
  region_labels.new_name += where;
  return render_diff_dot(maps->before.classes[first.before_class].tree, maps->after.classes[first.after_class].tree,
                         region_labels, max_nodes);
}

}  // namespace fprev
