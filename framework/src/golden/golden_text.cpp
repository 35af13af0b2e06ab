// The golden text format: canonical writer (version 2) and strict parser (versions 1 and 2); the
// format is described in fprev/golden.hpp and docs/golden-format.md.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

#include "fprev/golden.hpp"
#include "golden/golden_fingerprint_text.hpp"
#include "golden/golden_lines.hpp"
#include "golden/golden_tree_section.hpp"
#include "text/text_checks.hpp"

namespace fprev {
namespace {

using detail::append_key;
using detail::GoldenLineReader;
using detail::KeyLine;

constexpr std::string_view kMagicPrefix = "# fprev-golden tree v";
constexpr std::string_view kEndMarker = "# end";
constexpr std::string_view kClassMarkerPrefix = "# class ";
constexpr std::string_view kAlignmentClassPrefix = "# alignment class ";
constexpr std::size_t kMaxFindingText = 4000;  // a recorded finding's message, probe, cause

// Metadata keys in the order they are written. Every one is written, even when empty.
struct MetaKey {
  std::string_view name;
  std::string GoldenMetadata::*field;
  bool may_be_empty;
};
constexpr MetaKey kMetaKeys[] = {
    {"suite", &GoldenMetadata::suite, false},
    {"case", &GoldenMetadata::case_id, false},
    {"backend", &GoldenMetadata::backend, false},
    {"platform", &GoldenMetadata::platform_key, false},
    {"library", &GoldenMetadata::library, false},
    {"library-version", &GoldenMetadata::library_version, true},
    {"library-configuration", &GoldenMetadata::library_configuration, true},
    {"tool-version", &GoldenMetadata::tool_version, false},
    {"created", &GoldenMetadata::created, false},
};
constexpr std::string_view kExtraPrefix = "extra.";

std::string unsafe_component_text(std::string_view value) {
  return quoted_excerpt(value) + " is not file-name safe (1..128 of [A-Za-z0-9._+-], not starting "
                                 "with '.' or '-')";
}

// (format_version is the version a golden had when it was read: writing always uses the current.)
std::string metadata_problem(const GoldenMetadata& meta) {
  const std::pair<std::string_view, const std::string*> components[] = {
      {"suite", &meta.suite}, {"case", &meta.case_id}, {"backend", &meta.backend},
      {"platform", &meta.platform_key}};
  for (const auto& [name, value] : components)
    if (!is_safe_component(*value))
      return std::string(name) + " '" + *value +
             "' is not file-name safe (1..128 of [A-Za-z0-9._+-], not starting with '.' or '-')";
  if (meta.library.empty()) return "library is empty";
  if (meta.tool_version.empty()) return "tool-version is empty";
  if (!detail::is_iso_utc_date(meta.created))
    return "created '" + meta.created +
           "' is not an ISO-8601 UTC date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)";
  for (const auto& [key, value] : meta.extra)
    if (!detail::is_extra_key_name(key))
      return "extra key '" + key + "' must be 1..64 of [A-Za-z0-9._-]";
  return {};
}

// ---- ranges and regions ---------------------------------------------------------------------------

// "0-7,88-95" (a single index: "5").
std::string ranges_text(const IndexRanges& ranges) {
  std::string out;
  for (const IndexRange& r : ranges) {
    if (!out.empty()) out += ',';
    out += std::to_string(r.first);
    if (r.last != r.first) out += "-" + std::to_string(r.last);
  }
  return out;
}

std::string region_text(const Region& region) {
  return "rows " + ranges_text(region.rows) + " x columns " + ranges_text(region.columns);
}

// Parses "0-7,88-95": canonical (ascending, disjoint, not adjacent, "a" for a single index), every
// index below `length`. Returns an error message or nothing.
std::optional<std::string> parse_ranges(std::string_view text, std::size_t length, const char* axis,
                                        IndexRanges& out) {
  const std::string hint = std::string(" (") + axis + " ranges are written 'a' or 'a-b' with a < b, "
                           "ascending, separated by ',')";
  if (text.empty()) return std::string("no ") + axis + " ranges" + hint;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const std::size_t dash = item.find('-');
    const auto first = detail::parse_index(item.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : detail::parse_index(item.substr(dash + 1));
    if (!first || !last || (dash != std::string_view::npos && *last <= *first))
      return "malformed " + std::string(axis) + " range " + quoted_excerpt(item) + hint;
    if (*last >= length)
      return std::string(axis) + " range " + quoted_excerpt(item) + " is outside the grid (" +
             std::to_string(length) + " " + axis + ")";
    if (!out.empty() && *first <= out.back().last + 1)
      return std::string(axis) + " range " + quoted_excerpt(item) +
             " overlaps or touches the one before it, or is out of order" + hint;
    out.push_back({*first, *last});
    if (comma == std::string_view::npos) return std::nullopt;
    text.remove_prefix(comma + 1);
  }
}

// ---- writing ----------------------------------------------------------------------------------------

std::string grid_text(const OutputGrid& grid) {
  return std::to_string(grid.rows) + " x " + std::to_string(grid.columns);
}

bool same_regions(const OrderMap& a, const OrderMap& b) {
  if (a.grid != b.grid || a.classes.size() != b.classes.size()) return false;
  for (std::size_t i = 0; i < a.classes.size(); ++i)
    if (a.classes[i].regions != b.classes[i].regions) return false;
  return true;
}

// The map's problem for writing, or empty: classes must be canonical (fingerprints follow their
// order), hold distinct trees of one leaf count, and fit the limits a reader enforces.
std::string map_problem(const Golden& golden) {
  const OrderMap& map = golden.map;
  if (map.classes.empty()) return "the order map has no class";
  if (map.classes.size() > kMaxGoldenClasses)
    return "the order map has " + std::to_string(map.classes.size()) + " classes, more than the " +
           std::to_string(kMaxGoldenClasses) + " a golden may hold";
  if (!golden.fingerprints.empty() && golden.fingerprints.size() != map.classes.size())
    return std::to_string(golden.fingerprints.size()) + " fingerprints for " +
           std::to_string(map.classes.size()) + " classes";
  std::size_t leaves = 0, row_ranges = 0, column_ranges = 0;
  for (const OrderClass& c : map.classes) {
    if (c.tree.empty()) return "a class of the order map has an empty tree";
    leaves += c.tree.leaf_count();
    for (const Region& r : c.regions) {
      row_ranges += r.rows.size();
      column_ranges += r.columns.size();
    }
  }
  if (leaves > kMaxGoldenTotalLeaves)
    return "the trees have " + std::to_string(leaves) + " leaves together, more than the " +
           std::to_string(kMaxGoldenTotalLeaves) + " a golden may hold";
  if (map.classes.size() > 1 && (row_ranges > kMaxGoldenRanges || column_ranges > kMaxGoldenRanges))
    return "the order map's regions have " + std::to_string(row_ranges) + " row and " +
           std::to_string(column_ranges) + " column ranges, more than the " +
           std::to_string(kMaxGoldenRanges) + " a golden may hold";
  OrderMap canonical = map;
  try {
    canonicalize(canonical);
  } catch (const OrderMapError& e) {
    return e.what();
  }
  if (!same_regions(canonical, map)) return "the order map is not in canonical form (canonicalize it first)";
  for (std::size_t i = 0; i < map.classes.size(); ++i)
    for (std::size_t j = i + 1; j < map.classes.size(); ++j)
      if (map.classes[i].tree == map.classes[j].tree)
        return "classes " + std::to_string(i) + " and " + std::to_string(j) + " hold the same tree";
  return {};
}

void append_class_body(std::string& out, const OrderMap& map, const std::vector<Fingerprint>& fingerprints,
                       std::size_t index) {
  if (!fingerprints.empty()) detail::append_fingerprint(out, fingerprints[index]);
  detail::append_tree_section(out, map.classes[index].tree);
}

// `classes: <count>` and the '# class <i>' sections of a map of two or more classes.
void append_map_classes(std::string& out, const OrderMap& map, const std::vector<Fingerprint>& fingerprints) {
  append_key(out, "classes", std::to_string(map.classes.size()));
  for (std::size_t i = 0; i < map.classes.size(); ++i) {
    out += kClassMarkerPrefix;
    out += std::to_string(i);
    out += '\n';
    for (const Region& region : map.classes[i].regions) append_key(out, "region", region_text(region));
    append_class_body(out, map, fingerprints, i);
  }
}

// The header's alignment lines (none when not recorded).
void append_alignment_line(std::string& out, const std::optional<AlignmentResult>& alignment) {
  if (!alignment) return;
  append_key(out, "alignment", alignment->summary());
  if (alignment->verdict == AlignmentVerdict::dependent)
    append_key(out, "alignment.offsets", placements_text(alignment->classes.front().placements));
}

// The invariance verdicts, one line each: `invariance.<parameter>: <summary>`.
constexpr std::string_view kInvariancePrefix = "invariance.";

void append_invariance_lines(std::string& out, const std::vector<InvarianceResult>& invariance) {
  for (const InvarianceResult& r : invariance) append_key(out, std::string(kInvariancePrefix) + r.parameter, r.summary());
}

std::string invariance_problem(const Golden& golden) {
  if (golden.invariance.empty()) return {};
  if (golden.finding) return "a recorded finding has no invariance verdicts";
  for (std::size_t k = 0; k < golden.invariance.size(); ++k) {
    const InvarianceResult& r = golden.invariance[k];
    if (k > 0 && !(golden.invariance[k - 1].parameter < r.parameter))
      return "invariance verdicts must be ordered by parameter, each once";
    std::string error;
    if (!parse_invariance_summary(r.parameter, r.summary(), error)) return "invariance over " + r.parameter + ": " + error;
  }
  return {};
}

// The classes of an order map over offsets after the first (whose order is the golden's result).
void append_alignment_classes(std::string& out, const std::optional<AlignmentResult>& alignment) {
  if (!alignment || alignment->verdict != AlignmentVerdict::dependent) return;
  for (std::size_t i = 1; i < alignment->classes.size(); ++i) {
    const OffsetClass& c = alignment->classes[i];
    out += kAlignmentClassPrefix;
    out += std::to_string(i);
    out += '\n';
    append_key(out, "offsets", placements_text(c.placements));
    if (c.map.single_class()) {
      append_key(out, "result", "tree");
      append_class_body(out, c.map, {}, 0);
    } else {
      append_key(out, "result", "map");
      append_map_classes(out, c.map, {});
    }
  }
}

// The problem of an alignment result for writing, or empty.
std::string alignment_problem(const Golden& golden) {
  if (!golden.alignment) return {};
  if (golden.finding) return "a recorded finding has no alignment result";
  const AlignmentResult& a = *golden.alignment;
  if (a.verdict == AlignmentVerdict::dependent) {
    if (a.classes.size() < 2) return "a dependent alignment result has fewer than 2 classes";
    if (a.classes.front().placements.offsets.empty() || a.classes.front().placements.offsets.front() != 0 ||
        !same_orders(a.classes.front().map, golden.map))
      return "the alignment's first class must hold offset 0 and the golden's own order map";
    for (const OffsetClass& c : a.classes)
      if (c.map.grid != golden.map.grid || c.map.classes.empty() ||
          c.map.classes.front().tree.leaf_count() != golden.map.classes.front().tree.leaf_count())
        return "an alignment class's order map does not match the golden's grid and leaves";
  } else if (!a.classes.empty()) {
    return "only a dependent alignment result has classes";
  }
  if (a.checked() && a.offsets != 8 && a.offsets != 16 && a.offsets != 32 && a.offsets != 64)
    return "the alignment result checked " + std::to_string(a.offsets) + " offsets (8, 16, 32 or 64)";
  return {};
}

}  // namespace

GoldenParseError::GoldenParseError(std::string path, std::size_t line, std::string message)
    : std::runtime_error(format_position(SourcePosition::at_line(path, line)) + ": " + message),
      where_(SourcePosition::at_line(std::move(path), line)),
      message_(std::move(message)) {}

std::string write_golden_text(const Golden& golden) {
  const auto& meta = golden.meta;
  if (const std::string problem = metadata_problem(meta); !problem.empty())
    throw GoldenIoError("cannot write golden: " + problem);
  if (golden.finding) {
    if (!is_recordable(golden.finding->finding))
      throw GoldenIoError("cannot write golden: the finding '" + std::string(to_string(golden.finding->finding)) +
                          "' says the case cannot run here; it is not recorded as a baseline");
  } else if (const std::string problem = map_problem(golden); !problem.empty()) {
    throw GoldenIoError("cannot write golden: " + problem);
  }
  if (const std::string problem = alignment_problem(golden); !problem.empty())
    throw GoldenIoError("cannot write golden: " + problem);
  if (const std::string problem = invariance_problem(golden); !problem.empty())
    throw GoldenIoError("cannot write golden: " + problem);

  std::string out;
  std::size_t nodes = 0;
  for (const OrderClass& c : golden.map.classes) nodes += c.tree.node_count();
  out.reserve(64 * nodes + 512);
  out += kMagicPrefix;
  out += std::to_string(kGoldenFormatVersion);
  out += '\n';
  for (const MetaKey& key : kMetaKeys) append_key(out, key.name, meta.*key.field);
  for (const auto& [key, value] : meta.extra) append_key(out, std::string(kExtraPrefix) + key, value);
  if (golden.finding) {
    const RecordedFinding& finding = *golden.finding;
    append_key(out, "result", "finding");
    append_key(out, "finding", to_string(finding.finding));
    append_key(out, "finding.message", detail::shorten_message(finding.message, kMaxFindingText));
    if (!finding.probe.empty())
      append_key(out, "finding.probe", detail::shorten_message(finding.probe, kMaxFindingText));
    if (!finding.likely_cause.empty())
      append_key(out, "finding.likely-cause", detail::shorten_message(finding.likely_cause, kMaxFindingText));
  } else if (golden.map.classes.size() == 1) {
    append_key(out, "result", "tree");
    append_key(out, "grid", grid_text(golden.map.grid));
    append_alignment_line(out, golden.alignment);
    append_invariance_lines(out, golden.invariance);
    append_class_body(out, golden.map, golden.fingerprints, 0);
  } else {
    append_key(out, "result", "map");
    append_key(out, "grid", grid_text(golden.map.grid));
    append_alignment_line(out, golden.alignment);
    append_invariance_lines(out, golden.invariance);
    append_map_classes(out, golden.map, golden.fingerprints);
  }
  if (!golden.finding) append_alignment_classes(out, golden.alignment);
  out += kEndMarker;
  out += '\n';
  return out;
}

namespace {

// The keys of one key block, sorted out by kind; a key no kind takes is an error naming the
// allowed ones.
struct HeaderKeys {
  std::map<std::string, KeyLine, std::less<>> meta;  // suite .. created, result, grid, classes
  std::map<std::string, KeyLine> extra;
  std::map<std::string, KeyLine, std::less<>> finding;  // finding, finding.message, ...
  std::map<std::string, KeyLine> invariance;            // by parameter: invariance.<parameter>
  detail::FingerprintLines fingerprint;
  detail::TreeKeys tree;
};

int parse_magic(GoldenLineReader& reader) {
  const auto first = reader.next();
  const std::string expected = std::string(kMagicPrefix) + std::to_string(kGoldenFormatVersion);
  if (!first) reader.fail_at(1, "empty file: expected '" + expected + "'");
  if (first->starts_with("\xEF\xBB\xBF"))
    reader.fail("the file starts with a UTF-8 byte order mark (bytes EF BB BF, added by some editors); "
                "goldens are UTF-8 without one: remove it, or restore the file from version control");
  if (first->substr(0, kMagicPrefix.size()) != kMagicPrefix)
    reader.fail("not a fprev-golden file: the first line must be '" + expected + "'");
  const std::string_view version = first->substr(kMagicPrefix.size());
  if (!detail::all_digits(version))
    reader.fail("malformed format line " + quoted_excerpt(*first) + ": expected '" + expected + "'");
  if (version != "1" && version != "2")
    reader.fail("unsupported golden format version " + detail::bounded_number_text(version) +
                "; this fprev-golden reads versions 1 and 2 (a newer fprev-golden wrote it?)");
  return version == "1" ? 1 : 2;
}

std::string allowed_keys(int version) {
  std::string out;
  for (const MetaKey& key : kMetaKeys) out += std::string(key.name) + ", ";
  out += "extra.<name>, ";
  if (version >= 2)
    out += "result, grid, alignment, alignment.offsets, invariance.<parameter>, classes, finding, finding.message, "
           "finding.probe, finding.likely-cause, ";
  out += "fingerprint.digest, fingerprint.model, fingerprint.fact.<name>, fingerprint.outputs.<set>, "
         "leaves, inner-nodes, depth, arity, sexpr";
  return out;
}

HeaderKeys sort_header(GoldenLineReader& reader, const std::vector<KeyLine>& block, int version) {
  HeaderKeys keys;
  for (const KeyLine& line : block) {
    const std::string_view key = line.key;
    const std::string quoted_key = quoted_excerpt(key);
    const auto meta = std::find_if(std::begin(kMetaKeys), std::end(kMetaKeys),
                                   [&](const MetaKey& m) { return m.name == key; });
    if (meta != std::end(kMetaKeys)) {
      if (line.value.empty() && !meta->may_be_empty)
        reader.fail_at(line.line, "key " + quoted_key + " has an empty value");
      keys.meta.emplace(line.key, line);
    } else if (key.starts_with(kExtraPrefix)) {
      const std::string name(key.substr(kExtraPrefix.size()));
      if (!detail::is_extra_key_name(name))
        reader.fail_at(line.line, "malformed extra key " + quoted_key +
                                      ": expected extra.<1..64 of [A-Za-z0-9._-]>");
      keys.extra.emplace(name, line);
    } else if (version >= 2 && (key == "result" || key == "grid" || key == "classes" || key == "alignment" ||
                                key == "alignment.offsets")) {
      keys.meta.emplace(line.key, line);
    } else if (version >= 2 && key.starts_with(kInvariancePrefix)) {
      const std::string parameter(key.substr(kInvariancePrefix.size()));
      if (!valid_invariance_word(parameter))
        reader.fail_at(line.line, "malformed key " + quoted_key + ": expected invariance.<parameter name of [A-Za-z0-9_.+-]>");
      if (!keys.invariance.emplace(parameter, line).second)
        reader.fail_at(line.line, "key " + quoted_key + " appears twice");
    } else if (version >= 2 && (key == "finding" || key == "finding.message" || key == "finding.probe" ||
                                key == "finding.likely-cause")) {
      keys.finding.emplace(line.key, line);
    } else if (keys.fingerprint.take(reader, line) || keys.tree.take(line)) {
      // taken
    } else {
      reader.fail_at(line.line, "unknown key " + quoted_key + "; allowed keys: " + allowed_keys(version));
    }
  }
  return keys;
}

GoldenMetadata read_metadata(GoldenLineReader& reader, const HeaderKeys& keys, std::size_t block_end) {
  GoldenMetadata meta;
  for (const MetaKey& key : kMetaKeys) {
    const auto it = keys.meta.find(key.name);
    if (it == keys.meta.end()) reader.fail_at(block_end + 1, "missing key '" + std::string(key.name) + "'");
    meta.*key.field = it->second.value;
  }
  for (const auto& [name, line] : keys.extra) meta.extra[name] = line.value;
  for (std::string_view name : {"suite", "case", "backend", "platform"}) {
    const KeyLine& line = keys.meta.find(name)->second;
    if (!is_safe_component(line.value)) reader.fail_at(line.line, unsafe_component_text(line.value));
  }
  const KeyLine& created = keys.meta.find("created")->second;
  if (!detail::is_iso_utc_date(meta.created))
    reader.fail_at(created.line, "created " + quoted_excerpt(meta.created) +
                                     " is not an ISO-8601 UTC date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)");
  return meta;
}

const KeyLine& required(GoldenLineReader& reader, const std::map<std::string, KeyLine, std::less<>>& keys,
                        std::string_view name, std::size_t block_end) {
  const auto it = keys.find(name);
  if (it == keys.end()) reader.fail_at(block_end + 1, "missing key '" + std::string(name) + "'");
  return it->second;
}

// "R x C" with 1 <= R, C and R * C below 2^40.
OutputGrid parse_grid(GoldenLineReader& reader, const KeyLine& line) {
  const std::string_view text = line.value;
  const std::size_t x = text.find(" x ");
  const auto rows = x == std::string_view::npos ? std::nullopt : detail::parse_index(text.substr(0, x));
  const auto columns = x == std::string_view::npos ? std::nullopt : detail::parse_index(text.substr(x + 3));
  if (!rows || !columns || *rows == 0 || *columns == 0)
    reader.fail_at(line.line, "grid " + quoted_excerpt(text) +
                                  " is not '<rows> x <columns>' with positive whole numbers");
  return {*rows, *columns};
}

void expect_end(GoldenLineReader& reader) {
  const auto line = reader.next();
  if (!line) reader.fail_at(reader.line() + 1, "missing '# end' line: the file is truncated");
  if (*line != kEndMarker)
    reader.fail("unexpected line " + quoted_excerpt(*line) + "; expected '" + std::string(kEndMarker) + "'");
  if (reader.next()) reader.fail("content after the '# end' line");
}

void no_keys_of(GoldenLineReader& reader, const HeaderKeys& keys, const char* result) {
  const auto reject = [&](std::size_t line, const std::string& key) {
    reader.fail_at(line, "key '" + key + "' does not belong to a golden whose result is " + result);
  };
  if (std::string_view(result) != "finding" && !keys.finding.empty())
    reject(keys.finding.begin()->second.line, keys.finding.begin()->first);
  if (std::string_view(result) != "tree") {
    for (const auto* key : {&keys.tree.leaves, &keys.tree.inner_nodes, &keys.tree.depth, &keys.tree.arity,
                            &keys.tree.sexpr})
      if (*key) reject((*key)->line, (*key)->key);
  }
}

Golden parse_finding_result(GoldenLineReader& reader, const HeaderKeys& keys, std::size_t block_end) {
  Golden golden;
  no_keys_of(reader, keys, "finding");
  if (keys.fingerprint.finish(reader, block_end))
    reader.fail_at(block_end, "fingerprint lines do not belong to a golden whose result is a finding");
  for (std::string_view name : {"grid", "classes", "alignment", "alignment.offsets"})
    if (const auto it = keys.meta.find(name); it != keys.meta.end())
      reader.fail_at(it->second.line, "key '" + std::string(name) + "' does not belong to a golden whose result is a finding");
  const KeyLine& name = required(reader, keys.finding, "finding", block_end);
  const auto finding = parse_finding(name.value);
  if (!finding || !is_recordable(*finding))
    reader.fail_at(name.line, "finding " + quoted_excerpt(name.value) +
                                  " is not a recorded finding; allowed: nondeterministic, order_independent, "
                                  "value_dependent, non_finite_output, not_whole_count, count_out_of_range, "
                                  "inconsistent_structure, verification_failed, batch_inconsistent, "
                                  "ranks_disagree");
  RecordedFinding recorded;
  recorded.finding = *finding;
  recorded.message = required(reader, keys.finding, "finding.message", block_end).value;
  if (const auto it = keys.finding.find("finding.probe"); it != keys.finding.end()) recorded.probe = it->second.value;
  if (const auto it = keys.finding.find("finding.likely-cause"); it != keys.finding.end())
    recorded.likely_cause = it->second.value;
  golden.finding = std::move(recorded);
  return golden;
}

// The '# class <i>' sections of a map over `golden.map.grid` announced by `classes_line`, into
// golden.map and golden.fingerprints.
void parse_map_classes(GoldenLineReader& reader, const KeyLine& classes_line, detail::LeafBudget& leaf_budget,
                       Golden& golden) {
  const auto classes = detail::parse_index(classes_line.value);
  if (!classes || *classes < 2 || *classes > kMaxGoldenClasses)
    reader.fail_at(classes_line.line, "classes is " + quoted_excerpt(classes_line.value) +
                                          ": a map has 2 to " + std::to_string(kMaxGoldenClasses) +
                                          " classes (one class is written as 'result: tree')");
  std::size_t row_ranges = 0, column_ranges = 0;
  bool with_fingerprints = false;
  for (std::uint32_t i = 0; i < *classes; ++i) {
    const std::string marker = std::string(kClassMarkerPrefix) + std::to_string(i);
    const auto line = reader.next();
    if (!line) reader.fail_at(reader.line() + 1, "missing '" + marker + "' line: the file is truncated");
    if (*line != marker) reader.fail("unexpected line " + quoted_excerpt(*line) + "; expected '" + marker + "'");
    const std::size_t marker_line = reader.line();
    const std::vector<KeyLine> block = detail::read_key_block(reader, "region");
    const std::size_t class_end = block.empty() ? marker_line : block.back().line;
    OrderClass order_class;
    detail::FingerprintLines fingerprint;
    detail::TreeKeys tree_keys;
    for (const KeyLine& key : block) {
      if (key.key == "region") {
        const std::size_t x = key.value.find(" x columns ");
        if (!key.value.starts_with("rows ") || x == std::string::npos)
          reader.fail_at(key.line, "region " + quoted_excerpt(key.value) +
                                       " is not 'rows <ranges> x columns <ranges>'");
        Region region;
        const std::string_view text = key.value;
        if (auto error = parse_ranges(text.substr(5, x - 5), golden.map.grid.rows, "rows", region.rows))
          reader.fail_at(key.line, *error);
        if (auto error = parse_ranges(text.substr(x + 11), golden.map.grid.columns, "columns", region.columns))
          reader.fail_at(key.line, *error);
        row_ranges += region.rows.size();
        column_ranges += region.columns.size();
        if (row_ranges > kMaxGoldenRanges || column_ranges > kMaxGoldenRanges)
          reader.fail_at(key.line, "the map's regions have more than " + std::to_string(kMaxGoldenRanges) +
                                       " row or column ranges, the most a golden may hold");
        order_class.regions.push_back(std::move(region));
      } else if (!fingerprint.take(reader, key) && !tree_keys.take(key)) {
        reader.fail_at(key.line, "unknown key " + quoted_excerpt(key.key) + " in a class; allowed keys: region, "
                                 "fingerprint.*, leaves, inner-nodes, depth, arity, sexpr");
      }
    }
    if (order_class.regions.empty()) reader.fail_at(class_end + 1, "missing key 'region'");
    const auto print = fingerprint.finish(reader, class_end);
    if (i > 0 && print.has_value() != with_fingerprints)
      reader.fail_at(class_end + 1, "either every class of a map has fingerprint lines or none has");
    with_fingerprints = print.has_value();
    if (print) golden.fingerprints.push_back(*print);
    order_class.tree = detail::parse_tree_section(reader, tree_keys, class_end, leaf_budget, 2);
    if (i > 0 && order_class.tree.leaf_count() != golden.map.classes[0].tree.leaf_count())
      reader.fail_at(marker_line, "class " + std::to_string(i) + "'s tree has " +
                                      std::to_string(order_class.tree.leaf_count()) + " leaves, class 0's " +
                                      std::to_string(golden.map.classes[0].tree.leaf_count()));
    for (std::uint32_t j = 0; j < i; ++j)
      if (golden.map.classes[j].tree == order_class.tree)
        reader.fail_at(marker_line, "classes " + std::to_string(j) + " and " + std::to_string(i) +
                                        " hold the same tree (one class holds all its elements)");
    golden.map.classes.push_back(std::move(order_class));
  }
  OrderMap canonical = golden.map;
  try {
    canonicalize(canonical);
  } catch (const OrderMapError& e) {
    reader.fail_at(classes_line.line, e.what());
  }
  if (!same_regions(canonical, golden.map))
    reader.fail_at(classes_line.line, "the classes and regions are not in canonical form (classes by their "
                                      "first element, row-major; fprev-golden update rewrites them)");
}

Golden parse_map_result(GoldenLineReader& reader, const HeaderKeys& keys, std::size_t block_end,
                        detail::LeafBudget& leaf_budget) {
  no_keys_of(reader, keys, "map");
  if (keys.fingerprint.finish(reader, block_end))
    reader.fail_at(block_end, "fingerprint lines of a map belong to its classes ('# class <i>' sections)");
  Golden golden;
  golden.map.grid = parse_grid(reader, required(reader, keys.meta, "grid", block_end));
  parse_map_classes(reader, required(reader, keys.meta, "classes", block_end), leaf_budget, golden);
  return golden;
}

// An alignment class's section after its marker: `offsets:`, `result:` and its order (a tree, or a
// map with `classes:` and its sections), no fingerprint.
OffsetClass parse_alignment_class(GoldenLineReader& reader, const AlignmentResult& alignment, const Golden& golden,
                                  std::size_t marker_line, detail::LeafBudget& leaf_budget) {
  const std::vector<KeyLine> block = detail::read_key_block(reader);
  const std::size_t block_end = block.empty() ? marker_line : block.back().line;
  std::map<std::string, KeyLine, std::less<>> keys;
  detail::TreeKeys tree_keys;
  for (const KeyLine& key : block)
    if (key.key == "offsets" || key.key == "result" || key.key == "classes")
      keys.emplace(key.key, key);
    else if (!tree_keys.take(key))
      reader.fail_at(key.line, "unknown key " + quoted_excerpt(key.key) + " in an alignment class; allowed keys: "
                               "offsets, result, classes, leaves, inner-nodes, depth, arity, sexpr");
  OffsetClass c;
  const KeyLine& offsets = required(reader, keys, "offsets", block_end);
  std::string error;
  const auto placements = parse_placements(offsets.value, alignment.offsets, alignment.padded, error);
  if (!placements) reader.fail_at(offsets.line, error);
  c.placements = *placements;
  const KeyLine& result = required(reader, keys, "result", block_end);
  const std::size_t leaves = golden.map.classes.front().tree.leaf_count();
  if (result.value == "tree") {
    if (const auto it = keys.find("classes"); it != keys.end())
      reader.fail_at(it->second.line, "key 'classes' does not belong to a class whose result is a tree");
    c.map = OrderMap::uniform(golden.map.grid, detail::parse_tree_section(reader, tree_keys, block_end, leaf_budget, 2));
  } else if (result.value == "map") {
    for (const auto* key : {&tree_keys.leaves, &tree_keys.inner_nodes, &tree_keys.depth, &tree_keys.arity,
                            &tree_keys.sexpr})
      if (*key) reader.fail_at((*key)->line, "key '" + (*key)->key + "' does not belong to a class whose result is a map");
    Golden parsed;
    parsed.map.grid = golden.map.grid;
    parse_map_classes(reader, required(reader, keys, "classes", block_end), leaf_budget, parsed);
    if (!parsed.fingerprints.empty())
      reader.fail_at(marker_line, "an alignment class records no fingerprint lines");
    c.map = std::move(parsed.map);
  } else {
    reader.fail_at(result.line, "result " + quoted_excerpt(result.value) + " of an alignment class is not one of tree, map");
  }
  if (c.map.classes.front().tree.leaf_count() != leaves)
    reader.fail_at(marker_line, "the alignment class's tree has " +
                                    std::to_string(c.map.classes.front().tree.leaf_count()) +
                                    " leaves, the golden's " + std::to_string(leaves));
  return c;
}

// The header's alignment lines and, for a dependent result, the sections of its other classes.
// Every placement checked belongs to exactly one class, and the classes' orders differ.
std::optional<AlignmentResult> parse_alignment(GoldenLineReader& reader, const HeaderKeys& keys, const Golden& golden,
                                               std::size_t block_end, detail::LeafBudget& leaf_budget) {
  const auto line = keys.meta.find("alignment");
  const auto offsets_line = keys.meta.find("alignment.offsets");
  if (line == keys.meta.end()) {
    if (offsets_line != keys.meta.end())
      reader.fail_at(offsets_line->second.line, "key 'alignment.offsets' without an 'alignment' line");
    return std::nullopt;  // written before the alignment check: not recorded
  }
  std::size_t classes = 1;
  std::string error;
  auto alignment = parse_alignment_summary(line->second.value, classes, error);
  if (!alignment) reader.fail_at(line->second.line, "alignment " + quoted_excerpt(line->second.value) + ": " + error);
  if (alignment->verdict != AlignmentVerdict::dependent) {
    if (offsets_line != keys.meta.end())
      reader.fail_at(offsets_line->second.line, "key 'alignment.offsets' belongs to a dependent alignment only");
    return alignment;
  }
  const KeyLine& first = required(reader, keys.meta, "alignment.offsets", block_end);
  const auto placements = parse_placements(first.value, alignment->offsets, alignment->padded, error);
  if (!placements) reader.fail_at(first.line, error);
  if (placements->offsets.empty() || placements->offsets.front() != 0)
    reader.fail_at(first.line, "alignment.offsets holds the placements of the golden's own order: offset 0 first");
  alignment->classes.push_back({*placements, golden.map});
  std::size_t seen = placements->offsets.size() + (placements->padded ? 1 : 0);
  bool padded_seen = placements->padded;
  std::vector<bool> offset_seen(alignment->offsets, false);
  for (std::size_t o : placements->offsets) offset_seen[o] = true;
  for (std::size_t i = 1; i < classes; ++i) {
    const std::string marker = std::string(kAlignmentClassPrefix) + std::to_string(i);
    const auto next = reader.next();
    if (!next) reader.fail_at(reader.line() + 1, "missing '" + marker + "' line: the file is truncated");
    if (*next != marker) reader.fail("unexpected line " + quoted_excerpt(*next) + "; expected '" + marker + "'");
    const std::size_t marker_line = reader.line();
    OffsetClass c = parse_alignment_class(reader, *alignment, golden, marker_line, leaf_budget);
    for (std::size_t o : c.placements.offsets) {
      if (offset_seen[o]) reader.fail_at(marker_line + 1, "offset " + std::to_string(o) + " belongs to two classes");
      offset_seen[o] = true;
    }
    if (c.placements.padded && padded_seen) reader.fail_at(marker_line + 1, "'ld+1' belongs to two classes");
    padded_seen = padded_seen || c.placements.padded;
    const auto& before = alignment->classes.back().placements;
    const std::size_t first_here = c.placements.offsets.empty() ? SIZE_MAX : c.placements.offsets.front();
    const std::size_t first_before = before.offsets.empty() ? SIZE_MAX : before.offsets.front();
    if (first_here <= first_before)  // a class of 'ld+1' alone comes last
      reader.fail_at(marker_line + 1, "alignment classes are not in canonical order (by their first offset)");
    for (const OffsetClass& known : alignment->classes)
      if (same_orders(known.map, c.map))
        reader.fail_at(marker_line, "two alignment classes hold the same order (one class holds all its offsets)");
    seen += c.placements.offsets.size() + (c.placements.padded ? 1 : 0);
    alignment->classes.push_back(std::move(c));
  }
  if (seen != alignment->offsets + (alignment->padded ? 1 : 0))
    reader.fail_at(line->second.line, "the alignment classes hold " + std::to_string(seen) + " placements, not the " +
                                          std::to_string(alignment->offsets + (alignment->padded ? 1 : 0)) +
                                          " checked");
  return alignment;
}

}  // namespace

Golden parse_golden_text(std::string_view text, std::string_view path, std::size_t case_leaves) {
  GoldenLineReader reader(text, std::string(path));
  const int version = parse_magic(reader);
  const std::vector<KeyLine> block = detail::read_key_block(reader);
  const std::size_t block_end = block.empty() ? 1 : block.back().line;
  // The header ends at the marker of what follows; any other comment line is out of place.
  if (const auto next = reader.peek();
      next && !detail::is_tree_body_marker(*next) && *next != kEndMarker &&
      *next != std::string(kClassMarkerPrefix) + "0") {
    reader.next();
    reader.fail("unexpected comment line; expected 'key: value', '# nodes: ...', '# structure: ...', "
                "'# class 0' or '# end'");
  }
  const HeaderKeys keys = sort_header(reader, block, version);
  detail::LeafBudget leaf_budget{kMaxGoldenTotalLeaves, case_leaves};

  Golden golden;
  const GoldenMetadata meta = read_metadata(reader, keys, block_end);
  std::string result = "tree";
  if (version >= 2) {
    const KeyLine& line = required(reader, keys.meta, "result", block_end);
    result = line.value;
    if (result != "tree" && result != "map" && result != "finding")
      reader.fail_at(line.line, "result " + quoted_excerpt(result) + " is not one of tree, map, finding");
  }
  if (result == "finding") {
    golden = parse_finding_result(reader, keys, block_end);
  } else if (result == "map") {
    golden = parse_map_result(reader, keys, block_end, leaf_budget);
  } else {
    no_keys_of(reader, keys, "tree");
    if (const auto it = keys.meta.find("classes"); it != keys.meta.end())
      reader.fail_at(it->second.line, "key 'classes' does not belong to a golden whose result is a tree");
    const OutputGrid grid =
        version >= 2 ? parse_grid(reader, required(reader, keys.meta, "grid", block_end)) : OutputGrid{};
    std::optional<Fingerprint> fingerprint = keys.fingerprint.finish(reader, block_end);
    Tree tree = detail::parse_tree_section(reader, keys.tree, block_end, leaf_budget, version);
    golden = Golden::of_tree(GoldenMetadata{}, std::move(tree), std::move(fingerprint), grid);
  }
  if (!golden.finding) golden.alignment = parse_alignment(reader, keys, golden, block_end, leaf_budget);
  for (const auto& [parameter, line] : keys.invariance) {  // by parameter name: the order written
    if (golden.finding)
      reader.fail_at(line.line, "key '" + line.key + "' does not belong to a golden whose result is a finding");
    std::string error;
    auto verdict = parse_invariance_summary(parameter, line.value, error);
    if (!verdict) reader.fail_at(line.line, "invariance " + quoted_excerpt(line.value) + ": " + error);
    golden.invariance.push_back(std::move(*verdict));
  }
  expect_end(reader);
  golden.meta = meta;
  golden.meta.format_version = version;
  return golden;
}

}  // namespace fprev
