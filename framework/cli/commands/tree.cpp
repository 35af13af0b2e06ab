// fprev-golden diff (two goldens or trees) and show (render one).
#include <cmath>
#include <fstream>
#include <optional>
#include <iostream>
#include <sstream>

#include "../commands.hpp"
#include "../report/json.hpp"
#include "../tree_input.hpp"
#include "fprev/diff.hpp"
#include "fprev/render.hpp"
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

std::string title_of(const TreeInput& input) { return input.is_golden_file ? input.result.meta.case_id : ""; }

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

// Every format but dot and svg, which draw one tree (see run_show).
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
  if (const Tree* tree = input.tree()) {
    if (format == "sexpr") return render_sexpr(*tree) + "\n";
    if (format == "summary") return format_summary(summarize(*tree)) + "\n";
    if (format == "dot") return render_dot(*tree, title_of(input));
    std::string out = input.is_golden_file ? describe_golden(result) + "\n"
                                           : "tree:      " + format_summary(summarize(*tree)) + "\n\n";
    return out + render_text(*tree);
  }
  // An order map of several trees.
  if (format == "sexpr") return classes_sexpr(result);
  std::string out;
  for (const std::string& line : describe_map(result.map)) out += line + "\n";
  if (format == "summary") return out;
  out = describe_golden(result) + "\n";
  for (std::size_t k = 0; k < result.map.classes.size(); ++k)
    out += "class " + std::to_string(k) + ":\n" + render_text(result.map.classes[k].tree) + "\n";
  return out;
}

// The narrowest format holding every output of both fingerprints (for distances in ulps; a golden
// does not record its output format).
Format output_format_of(const Fingerprint& a, const Fingerprint& b) {
  for (Format format : {Format::fp8_e4m3, Format::fp8_e5m2, Format::float16, Format::bfloat16,
                        Format::float32, Format::float64}) {
    bool all = true;
    for (const Fingerprint* f : {&a, &b})
      for (const auto& [set, values] : f->outputs)
        for (double v : values)
          if (std::isfinite(v) && !is_representable(v, format)) all = false;
    if (all) return format;
  }
  return Format::float64;
}

// Both fingerprints, when both inputs are goldens of one tree that have one.
std::optional<FingerprintComparison> compare_inputs(const TreeInput& old_input, const TreeInput& new_input) {
  const Fingerprint* a = old_input.result.fingerprint();
  const Fingerprint* b = new_input.result.fingerprint();
  if (a == nullptr || b == nullptr) return std::nullopt;
  return compare_fingerprints(*a, *b, output_format_of(*a, *b));
}

}  // namespace

int run_diff(const DiffCommandOptions& options) {
  const TreeInput old_input = read_tree_input(options.old_input);
  const TreeInput new_input = read_tree_input(options.new_input);
  const Golden& before = old_input.result;
  const Golden& after = new_input.result;
  const bool trees = before.is_single_tree() && after.is_single_tree();
  const std::optional<TreeDiff> diff = trees ? std::optional(diff_trees(before.tree(), after.tree())) : std::nullopt;
  const auto change = compare_inputs(old_input, new_input);
  const bool same_bits = !change || change->same();
  const bool same = same_orders(before, after) && (diff ? diff->comparable : true);
  const bool equal = same && same_bits;
  if (options.json) {
    Json document = json_document("diff");
    document["old"] = tree_input_to_json(old_input);
    document["new"] = tree_input_to_json(new_input);
    document["diff"] = diff ? diff_to_json(*diff) : Json(nullptr);
    document["change"] = same ? Json(nullptr) : Json(result_diff_summary(before, after));
    document["fingerprint_change"] = change ? fingerprint_change_to_json(*change) : Json(nullptr);
    write_json(std::cout, document);
  } else if (same) {
    std::cout << (diff ? "the trees are identical: " + format_summary(diff->new_summary)
                       : std::string(before.finding ? "the same recorded finding: " + std::string(to_string(before.finding->finding))
                                                    : "the order maps are identical"))
              << "\n";
    if (change) std::cout << "arithmetic fingerprint: " << (same_bits ? "identical" : change->summary()) << "\n";
  } else {
    DiffLabels labels;
    labels.old_name = "old";
    labels.new_name = "new";
    if (old_input.is_golden_file) {
      labels.old_identity = golden_identity(before.meta);
      labels.case_id = before.meta.case_id;
      labels.platform_key = before.meta.platform_key;
    }
    if (new_input.is_golden_file) labels.new_identity = golden_identity(after.meta);
    std::cout << render_result_diff(before, after, labels);
    if (change) std::cout << "arithmetic fingerprint: " << (same_bits ? "identical" : change->summary()) << "\n";
  }
  return equal ? kExitOk : kExitFailure;
}

int run_show(const ShowOptions& options) {
  const std::string format = options.format.value_or(options.json ? "json" : "text");
  const TreeInput input = read_tree_input(options.input);
  if ((format == "dot" || format == "svg") && input.tree() == nullptr) {
    std::cerr << "fprev-golden show: error: " << options.input << " holds "
              << (input.result.finding ? "a recorded finding, no tree"
                                       : "an order map of " + std::to_string(input.result.map.classes.size()) +
                                             " trees")
              << "; --format " << format << " draws one tree (text, sexpr, summary and json show every class)\n";
    return kExitUsage;
  }
  std::string out;
  if (format == "svg") {
    const SvgResult svg = render_svg(*input.tree(), title_of(input));
    if (!svg.ok) {
      std::cerr << "fprev-golden show: error: cannot render SVG: " << svg.error << "\n";
      return kExitFailure;
    }
    out = svg.svg;
  } else {
    out = render(input, format);
  }
  if (!options.output) {
    std::cout << out;
    return kExitOk;
  }
  std::ofstream file(*options.output, std::ios::binary);
  file << out;
  if (!file) {
    std::cerr << "fprev-golden show: error: cannot write " << *options.output << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace fprev::cli
