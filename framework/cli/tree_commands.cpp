// fprev-golden diff (two goldens or trees) and show (render one).
#include <fstream>
#include <iostream>

#include "commands.hpp"
#include "fprev/diff.hpp"
#include "fprev/json.hpp"
#include "fprev/render.hpp"
#include "fprev/summary.hpp"
#include "tree_input.hpp"

namespace fprev::cli {

int run_diff(int argc, char** argv) {
  Args args(argc, argv, 2, {"json"});
  args.reject_unknown({"json"});
  if (args.positional().size() != 2)
    throw UsageError("diff needs two goldens or trees: fprev-golden diff OLD NEW");
  const TreeInput old_input = read_tree_input(args.positional()[0]);
  const TreeInput new_input = read_tree_input(args.positional()[1]);
  DiffLabels labels;
  labels.old_name = "old";
  labels.new_name = "new";
  if (old_input.golden) {
    labels.old_identity = golden_identity(old_input.golden->meta);
    labels.case_id = old_input.golden->meta.case_id;
    labels.platform_key = old_input.golden->meta.platform_key;
  }
  if (new_input.golden) labels.new_identity = golden_identity(new_input.golden->meta);
  const TreeDiff diff = diff_trees(old_input.tree, new_input.tree);
  if (args.flag("json")) {
    std::cout << diff_to_json(diff, labels).dump(2) << "\n";
  } else if (diff.comparable && diff.equal) {
    std::cout << "the trees are identical: " << format_summary(diff.new_summary) << "\n";
  } else {
    std::cout << render_diff_text(diff, labels);
  }
  return diff.comparable && diff.equal ? kExitOk : kExitFailure;
}

int run_show(int argc, char** argv) {
  Args args(argc, argv, 2, {"json"});
  args.reject_unknown({"format", "output", "json"});
  if (args.positional().size() != 1)
    throw UsageError("show needs one golden or tree: fprev-golden show FILE|SEXPR [--format F]");
  const std::string format = args.get("format").value_or(args.flag("json") ? "json" : "text");
  const TreeInput input = read_tree_input(args.positional()[0]);
  std::string out;
  if (format == "sexpr") {
    out = render_sexpr(input.tree) + "\n";
  } else if (format == "text") {
    if (input.golden) out = describe_golden(*input.golden) + "\n";
    else out = "tree:      " + format_summary(summarize(input.tree)) + "\n\n";
    out += render_text(input.tree);
  } else if (format == "summary") {
    out = format_summary(summarize(input.tree)) + "\n";
  } else if (format == "dot") {
    out = render_dot(input.tree, input.golden ? input.golden->meta.case_id : "");
  } else if (format == "svg") {
    const SvgResult svg = render_svg(input.tree, input.golden ? input.golden->meta.case_id : "");
    if (!svg.ok) {
      std::cerr << "fprev-golden show: cannot render SVG: " << svg.error << "\n";
      return kExitFailure;
    }
    out = svg.svg;
  } else if (format == "json") {
    Json json = Json::object();
    if (input.golden) json.set("metadata", metadata_to_json(input.golden->meta));
    json.set("summary", summary_to_json(summarize(input.tree))).set("sexpr", render_sexpr(input.tree));
    out = json.dump(2) + "\n";
  } else {
    throw UsageError("--format must be one of: sexpr, text, summary, dot, svg, json (got '" + format + "')");
  }
  if (const auto path = args.get("output")) {
    std::ofstream file(*path, std::ios::binary);
    file << out;
    if (!file) {
      std::cerr << "fprev-golden show: cannot write " << *path << "\n";
      return kExitFailure;
    }
  } else {
    std::cout << out;
  }
  return kExitOk;
}

}  // namespace fprev::cli
