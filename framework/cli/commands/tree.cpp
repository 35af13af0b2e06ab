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

// The title of a tree's picture: the golden's case and library, or where the tree came from.
std::string picture_title(const TreeInput& input) {
  if (!input.golden) return input.label;
  const GoldenMetadata& meta = input.golden->meta;
  return "case " + meta.case_id + " (suite " + meta.suite + ", backend " + meta.backend + ") on platform " +
         meta.platform_key + "\n" + golden_identity(meta);
}

// The picture of one tree as DOT, its summary over the drawing.
std::string picture_dot(const TreeInput& input, const PictureOptions& picture) {
  DrawingOptions options;
  options.max_nodes = picture.max_nodes;
  return drawing_dot({{format_summary(summarize(input.tree)), draw_tree(input.tree, options)}},
                     picture_title(input));
}

// Every format but svg, which may fail (see run_show).
std::string render(const TreeInput& input, const std::string& format, const PictureOptions& picture) {
  if (format == "sexpr") return render_sexpr(input.tree) + "\n";
  if (format == "summary") return format_summary(summarize(input.tree)) + "\n";
  if (format == "dot") return picture_dot(input, picture);
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

DiffLabels diff_labels(const TreeInput& old_input, const TreeInput& new_input) {
  DiffLabels labels;
  labels.old_name = "old";
  labels.new_name = "new";
  if (old_input.golden) {
    labels.old_identity = golden_identity(old_input.golden->meta);
    labels.case_id = old_input.golden->meta.case_id;
    labels.platform_key = old_input.golden->meta.platform_key;
  }
  if (new_input.golden) {
    labels.new_identity = golden_identity(new_input.golden->meta);
    const std::string& new_platform = new_input.golden->meta.platform_key;
    if (labels.platform_key.empty()) labels.platform_key = new_platform + " (new)";
    else if (new_platform != labels.platform_key)
      labels.platform_key += " (old) and " + new_platform + " (new)";
  }
  return labels;
}

// SVG from DOT, or the reason on stderr.
std::optional<std::string> svg_or_error(const std::string& dot, const char* command) {
  const SvgResult svg = render_svg_from_dot(dot);
  if (svg.ok) return svg.svg;
  std::cerr << "fprev-golden " << command << ": error: cannot render SVG: " << svg.error << "\n";
  return std::nullopt;
}

// To --output FILE, or stdout. False (with a message) when the file cannot be written.
bool write_output(const std::string& text, const std::optional<std::string>& path, const char* command) {
  if (!path) {
    std::cout << text;
    return true;
  }
  std::ofstream file(*path, std::ios::binary);
  file << text;
  if (file) return true;
  std::cerr << "fprev-golden " << command << ": error: cannot write " << *path << "\n";
  return false;
}

}  // namespace

int run_diff(const DiffCommandOptions& options) {
  const std::string format = options.format.value_or(options.json ? "json" : "text");
  const TreeInput old_input = read_tree_input(options.old_input);
  const TreeInput new_input = read_tree_input(options.new_input);
  const TreeDiff diff = diff_trees(old_input.tree, new_input.tree);
  const auto change = compare_inputs(old_input, new_input);
  const bool same_bits = !change || change->same();
  const bool equal = diff.comparable && diff.equal && same_bits;
  const DiffLabels labels = diff_labels(old_input, new_input);
  std::ostringstream out;
  if (format == "json") {
    Json document = json_document("diff");
    document["old"] = tree_input_to_json(old_input);
    document["new"] = tree_input_to_json(new_input);
    document["diff"] = diff_to_json(diff);
    document["fingerprint_change"] = change ? fingerprint_change_to_json(*change) : Json(nullptr);
    write_json(out, document);
  } else if (format == "dot" || format == "svg") {
    const std::string dot =
        render_diff_dot(old_input.tree, new_input.tree, labels, options.picture.max_nodes);
    if (format == "dot") {
      out << dot;
    } else {
      const auto svg = svg_or_error(dot, "diff");
      if (!svg) return kExitFailure;
      out << *svg;
    }
  } else if (diff.comparable && diff.equal) {
    out << "the trees are identical: " << format_summary(diff.new_summary) << "\n";
    if (change) out << "arithmetic fingerprint: " << (same_bits ? "identical" : change->summary()) << "\n";
  } else {
    out << render_diff_text(diff, labels);
    if (change) out << "arithmetic fingerprint: " << (same_bits ? "identical" : change->summary()) << "\n";
  }
  if (!write_output(out.str(), options.output, "diff")) return kExitFailure;
  return equal ? kExitOk : kExitFailure;
}

int run_show(const ShowOptions& options) {
  const std::string format = options.format.value_or(options.json ? "json" : "text");
  const TreeInput input = read_tree_input(options.input);
  std::string out;
  if (format == "svg") {
    const auto svg = svg_or_error(picture_dot(input, options.picture), "show");
    if (!svg) return kExitFailure;
    out = *svg;
  } else {
    out = render(input, format, options.picture);
  }
  return write_output(out, options.output, "show") ? kExitOk : kExitFailure;
}

}  // namespace fprev::cli
