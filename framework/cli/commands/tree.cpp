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
#include "fprev/summary.hpp"

namespace fprev::cli {
namespace {

// {"input", "metadata", "tree"}: a tree given on the command line, for show and diff.
Json tree_input_to_json(const TreeInput& input) {
  Json json = Json::object();
  json["input"] = input.label;
  json["metadata"] = input.golden ? metadata_to_json(input.golden->meta) : Json(nullptr);
  json["tree"] = tree_to_json(input.tree);
  return json;
}

// Every format but svg, which may fail (see run_show).
std::string render(const TreeInput& input, const std::string& format) {
  const std::string title = input.golden ? input.golden->meta.case_id : "";
  if (format == "sexpr") return render_sexpr(input.tree) + "\n";
  if (format == "summary") return format_summary(summarize(input.tree)) + "\n";
  if (format == "dot") return render_dot(input.tree, title);
  if (format == "json") {
    Json document = json_document("show");
    document.update(tree_input_to_json(input));
    std::ostringstream out;
    write_json(out, document);
    return out.str();
  }
  // text
  std::string out = input.golden ? describe_golden(*input.golden) + "\n"
                                 : "tree:      " + format_summary(summarize(input.tree)) + "\n\n";
  return out + render_text(input.tree);
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

// Both fingerprints, when both inputs are goldens that have one.
std::optional<FingerprintComparison> compare_inputs(const TreeInput& old_input, const TreeInput& new_input) {
  if (!old_input.golden || !new_input.golden || !old_input.golden->fingerprint ||
      !new_input.golden->fingerprint)
    return std::nullopt;
  const Fingerprint& a = *old_input.golden->fingerprint;
  const Fingerprint& b = *new_input.golden->fingerprint;
  return compare_fingerprints(a, b, output_format_of(a, b));
}

}  // namespace

int run_diff(const DiffCommandOptions& options) {
  const TreeInput old_input = read_tree_input(options.old_input);
  const TreeInput new_input = read_tree_input(options.new_input);
  const TreeDiff diff = diff_trees(old_input.tree, new_input.tree);
  const auto change = compare_inputs(old_input, new_input);
  const bool same_bits = !change || change->same();
  const bool equal = diff.comparable && diff.equal && same_bits;
  if (options.json) {
    Json document = json_document("diff");
    document["old"] = tree_input_to_json(old_input);
    document["new"] = tree_input_to_json(new_input);
    document["diff"] = diff_to_json(diff);
    document["fingerprint_change"] = change ? fingerprint_change_to_json(*change) : Json(nullptr);
    write_json(std::cout, document);
  } else if (diff.comparable && diff.equal) {
    std::cout << "the trees are identical: " << format_summary(diff.new_summary) << "\n";
    if (change) std::cout << "arithmetic fingerprint: " << (same_bits ? "identical" : change->summary()) << "\n";
  } else {
    DiffLabels labels;
    labels.old_name = "old";
    labels.new_name = "new";
    if (old_input.golden) {
      labels.old_identity = golden_identity(old_input.golden->meta);
      labels.case_id = old_input.golden->meta.case_id;
      labels.platform_key = old_input.golden->meta.platform_key;
    }
    if (new_input.golden) labels.new_identity = golden_identity(new_input.golden->meta);
    std::cout << render_diff_text(diff, labels);
    if (change) std::cout << "arithmetic fingerprint: " << (same_bits ? "identical" : change->summary()) << "\n";
  }
  return equal ? kExitOk : kExitFailure;
}

int run_show(const ShowOptions& options) {
  const std::string format = options.format.value_or(options.json ? "json" : "text");
  const TreeInput input = read_tree_input(options.input);
  std::string out;
  if (format == "svg") {
    const SvgResult svg = render_svg(input.tree, input.golden ? input.golden->meta.case_id : "");
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
