// fprev-golden diff (two goldens or trees) and show (render one).
#include <filesystem>
#include <fstream>
#include <optional>
#include <iostream>
#include <sstream>

#include "../commands.hpp"
#include "../control_escape.hpp"
#include "../output_guard.hpp"
#include "../report/json.hpp"
#include "../tree_input.hpp"
#include "fprev/diff.hpp"
#include "fprev/render.hpp"
#include "fprev/impact.hpp"
#include "fprev/result_diff.hpp"
#include "fprev/summary.hpp"

namespace fprev::cli {
namespace {

// {"input", "metadata", "result", "tree", "classes", ...}: a result given on the command line.
Json tree_input_to_json(const TreeInput& input) {
  Json json = Json::object();
  json["input"] = input.label;
  json["metadata"] = input.is_golden_file ? metadata_to_json(input.result.meta) : Json(nullptr);
  json.update(result_to_json(input.result));
  return json;
}

// The title of a picture: the golden's case and library, or where the tree came from.
std::string picture_title(const TreeInput& input) {
  if (!input.is_golden_file) return input.label;
  const GoldenMetadata& meta = input.result.meta;
  return "case " + meta.case_id + " (suite " + meta.suite + ", backend " + meta.backend + ") on platform " +
         meta.platform_key + "\n" + golden_identity(meta);
}

// One line per class: "rows 0-7 x columns 0-5: ((0 1) 2)".
std::string classes_sexpr(const Golden& result) {
  std::string out;
  for (const OrderClass& c : result.map.classes) {
    std::string regions;
    for (const Region& region : c.regions)
      regions += (regions.empty() ? "" : "; ") + format_region(region, result.map.grid);
    out += regions + ": " + render_sexpr(c.tree) + "\n";
  }
  return out;
}

// An order map over offsets (fprev/alignment.hpp): "offsets 0,4,8,12: <tree>" per offset class.
std::string offset_classes_sexpr(const AlignmentResult& alignment) {
  std::string out;
  for (const OffsetClass& c : alignment.classes)
    for (const OrderClass& k : c.map.classes) {
      out += "offsets " + placements_text(c.placements) + ": ";
      if (!c.map.single_class())
        for (const Region& region : k.regions) out += format_region(region, c.map.grid) + "; ";
      out += render_sexpr(k.tree) + "\n";
    }
  return out;
}

// The other offset classes' trees, after the golden's own (text format).
std::string offset_classes_text(const Golden& result) {
  if (!result.alignment || result.alignment->verdict != AlignmentVerdict::dependent) return {};
  std::string out;
  for (std::size_t i = 1; i < result.alignment->classes.size(); ++i) {
    const OffsetClass& c = result.alignment->classes[i];
    for (std::size_t k = 0; k < c.map.classes.size(); ++k)
      out += "\nalignment class " + std::to_string(i) + " (offsets " + placements_text(c.placements) + ")" +
             (c.map.single_class() ? "" : ", class " + std::to_string(k)) + ":\n" + render_text(c.map.classes[k].tree);
  }
  return out;
}

// Every format but dot and svg (see run_show).
std::string render(const TreeInput& input, const std::string& format) {
  const Golden& result = input.result;
  if (format == "json") {
    Json document = json_document("show");
    document.update(tree_input_to_json(input));
    std::ostringstream out;
    write_json(out, document);
    return out.str();
  }
  if (result.finding) {
    if (format == "text" && input.is_golden_file) return describe_golden(result);
    return "finding " + std::string(to_string(result.finding->finding)) + ": " + result.finding->message + "\n";
  }
  if (format == "sexpr" && result.alignment && result.alignment->verdict == AlignmentVerdict::dependent)
    return offset_classes_sexpr(*result.alignment);
  if (const Tree* tree = input.tree()) {
    if (format == "sexpr") return render_sexpr(*tree) + "\n";
    if (format == "summary") return format_summary(summarize(*tree)) + "\n";
    std::string out = input.is_golden_file ? describe_golden(result) + "\n"
                                           : "tree:      " + format_summary(summarize(*tree)) + "\n\n";
    return out + render_text(*tree) + offset_classes_text(result);
  }
  // An order map of several trees.
  if (format == "sexpr") return classes_sexpr(result);
  std::string out;
  for (const std::string& line : describe_map(result.map)) out += line + "\n";
  if (format == "summary") return out;
  out = describe_golden(result) + "\n";
  for (std::size_t k = 0; k < result.map.classes.size(); ++k)
    out += "class " + std::to_string(k) + ":\n" + render_text(result.map.classes[k].tree) + "\n";
  return out + offset_classes_text(result);
}

DiffLabels diff_labels(const TreeInput& old_input, const TreeInput& new_input) {
  DiffLabels labels;
  labels.old_name = "old";
  labels.new_name = "new";
  if (old_input.is_golden_file) {
    labels.old_identity = golden_identity(old_input.result.meta);
    labels.case_id = old_input.result.meta.case_id;
    labels.platform_key = old_input.result.meta.platform_key;
  }
  if (new_input.is_golden_file) {
    labels.new_identity = golden_identity(new_input.result.meta);
    const std::string& new_platform = new_input.result.meta.platform_key;
    if (labels.platform_key.empty()) labels.platform_key = new_platform + " (new)";
    else if (new_platform != labels.platform_key)
      labels.platform_key += " (old) and " + new_platform + " (new)";
  }
  return labels;
}

// Why there is no picture: a recorded finding holds no tree.
void no_picture(const std::string& command, const std::string& input, const Golden& result) {
  std::cerr << "fprev-golden " << command << ": error: " << input
            << (result.finding ? " records a finding (" + std::string(to_string(result.finding->finding)) + "), no tree"
                               : " cannot be drawn against the other (order maps over different grids)")
            << ": nothing to draw; --format text or json describes it\n";
}

// SVG from DOT, or the reason on stderr.
std::optional<std::string> svg_or_error(const std::string& dot, const char* command) {
  const SvgResult svg = render_svg_from_dot(dot);
  if (svg.ok) return svg.svg;
  std::cerr << "fprev-golden " << command << ": error: cannot render SVG: " << svg.error << "\n";
  return std::nullopt;
}

// --output must not name an input: it would be replaced by its own rendering (show X.golden
// --output X.golden), and the command would still exit 0. Checked before anything is read.
void refuse_output_over_input(const std::optional<std::string>& output, const std::vector<std::string>& inputs) {
  if (!output) return;
  RunInputs read;
  read.files.assign(inputs.begin(), inputs.end());
  refuse_output_over_inputs("--output", *output, read);
}

// To --output FILE, or stdout. False (with a message) when the file cannot be written. Controls are
// escaped in the file as on the terminal (control_escape.hpp).
bool write_output(const std::string& text, const std::optional<std::string>& path, const char* command) {
  if (!path) {
    std::cout << text;
    return true;
  }
  std::ofstream file(*path, std::ios::binary);
  file << escape_controls(text);
  if (file) return true;
  std::cerr << "fprev-golden " << command << ": error: cannot write " << *path << "\n";
  return false;
}

}  // namespace

int run_diff(const DiffCommandOptions& options) {
  const std::string format = options.format.value_or(options.json ? "json" : "text");
  refuse_output_over_input(options.output, {options.old_input, options.new_input});
  const TreeInput old_input = read_tree_input(options.old_input);
  const TreeInput new_input = read_tree_input(options.new_input);
  const Golden& before = old_input.result;
  const Golden& after = new_input.result;
  const bool trees = before.is_single_tree() && after.is_single_tree();
  const std::optional<TreeDiff> diff = trees ? std::optional(diff_trees(before.tree(), after.tree())) : std::nullopt;
  const auto change = compare_result_fingerprints(before, after);
  const bool same_bits = !change || change->same();
  const std::string alignment = alignment_change(before, after);  // both recorded, and they differ
  const bool same = same_orders(before, after) && (diff ? diff->comparable : true);
  const bool equal = same && same_bits && alignment.empty();
  const DiffLabels labels = diff_labels(old_input, new_input);
  // What the change costs numerically, in the formats the results' fingerprints and case id imply.
  const bool picture = format == "dot" || format == "svg";
  const std::optional<ResultImpact> impact = equal || picture ? std::nullopt : result_impact(before, after);
  const auto print_diff_impact = [&](std::ostream& text) {
    if (!impact) return;
    text << impact_line(*impact) << "\n";
    for (const std::string& line : impact_detail_lines(*impact)) text << "  " << line << "\n";
  };
  std::ostringstream out;
  if (format == "json") {
    Json document = json_document("diff");
    document["old"] = tree_input_to_json(old_input);
    document["new"] = tree_input_to_json(new_input);
    document["diff"] = diff ? diff_to_json(*diff) : Json(nullptr);
    document["change"] = same ? Json(nullptr) : Json(result_diff_summary(before, after));
    document["fingerprint_change"] = change ? fingerprint_change_to_json(*change) : Json(nullptr);
    document["alignment_change"] = alignment.empty() ? Json(nullptr) : Json(alignment);
    document["impact"] = impact_to_json(impact);
    write_json(out, document);
  } else if (format == "dot" || format == "svg") {
    const auto dot = result_diff_dot(before, after, labels, options.picture.max_nodes);
    if (!dot) {
      no_picture("diff", before.finding ? options.old_input : options.new_input, before.finding ? before : after);
      return kExitUsage;
    }
    if (format == "dot") {
      out << *dot;
    } else {
      const auto svg = svg_or_error(*dot, "diff");
      if (!svg) return kExitFailure;
      out << *svg;
    }
  } else if (same) {
    out << (diff ? "the trees are identical: " + format_summary(diff->new_summary)
                 : std::string(before.finding ? "the same recorded finding: " + std::string(to_string(before.finding->finding))
                                              : "the order maps are identical"))
        << "\n";
    if (change) out << "arithmetic fingerprint: " << (same_bits ? "identical" : change->summary()) << "\n";
    if (!alignment.empty()) out << alignment << "\n";
    print_diff_impact(out);
  } else {
    out << render_result_diff(before, after, labels);
    if (change) out << "arithmetic fingerprint: " << (same_bits ? "identical" : change->summary()) << "\n";
    if (!alignment.empty()) out << alignment << "\n";
    print_diff_impact(out);
  }
  if (!write_output(out.str(), options.output, "diff")) return kExitFailure;
  return equal ? kExitOk : kExitFailure;
}

int run_show(const ShowOptions& options) {
  const std::string format = options.format.value_or(options.json ? "json" : "text");
  refuse_output_over_input(options.output, {options.input});
  const TreeInput input = read_tree_input(options.input);
  std::string out;
  if (format == "dot" || format == "svg") {
    const auto dot = result_dot(input.result, picture_title(input), options.picture.max_nodes);
    if (!dot) {
      no_picture("show", options.input, input.result);
      return kExitUsage;
    }
    if (format == "dot") {
      out = *dot;
    } else {
      const auto svg = svg_or_error(*dot, "show");
      if (!svg) return kExitFailure;
      out = *svg;
    }
  } else {
    out = render(input, format);
  }
  return write_output(out, options.output, "show") ? kExitOk : kExitFailure;
}

}  // namespace fprev::cli
