// fprev-golden diff (two goldens or trees) and show (render one).
#include <fstream>
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

}  // namespace

int run_diff(const DiffCommandOptions& options) {
  const TreeInput old_input = read_tree_input(options.old_input);
  const TreeInput new_input = read_tree_input(options.new_input);
  const TreeDiff diff = diff_trees(old_input.tree, new_input.tree);
  const bool equal = diff.comparable && diff.equal;
  if (options.json) {
    Json document = json_document("diff");
    document["old"] = tree_input_to_json(old_input);
    document["new"] = tree_input_to_json(new_input);
    document["diff"] = diff_to_json(diff);
    write_json(std::cout, document);
  } else if (equal) {
    std::cout << "the trees are identical: " << format_summary(diff.new_summary) << "\n";
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
