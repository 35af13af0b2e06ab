// fprev-golden reveal: one ad-hoc target from the command line.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "backend_options.hpp"
#include "commands.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"
#include "report.hpp"

namespace fprev::cli {
namespace {

void print_text(std::ostream& out, const TargetInfo& info, const RevealResult& result) {
  const Tree& tree = result.tree;
  const RevealStats& s = result.stats;
  out << "target:        " << info.description << "\n";
  if (result.map.single_class()) {
    out << "tree:          " << to_sexpr(tree) << "\n";
    out << "leaves:        " << tree.leaf_count() << "\n";
    out << "depth:         " << tree.depth() << "\n";
    out << "arity:         " << arity_text(tree) << "\n";
  } else {
    out << "order map:     " << result.map.classes.size() << " classes of output elements ("
        << s.class_splits << " splits)\n";
    for (const std::string& line : describe_map(result.map)) out << "  " << line << "\n";
  }
  out << "probes:        " << s.probes << "\n";
  out << "target calls:  " << s.target_calls << " (" << s.value_inputs
      << " random inputs for the determinism check and verification)\n";
  out << std::fixed << std::setprecision(6);
  out << "time:          " << s.target_seconds << " s inside the target of " << s.total_seconds
      << " s (" << std::setprecision(1)
      << (s.total_seconds > 0 ? 100.0 * s.target_seconds / s.total_seconds : 100.0) << "%)\n";
  out << "verified:      " << s.verified_probes << " l(i,j) predictions, " << s.simulated_inputs
      << " random inputs reproduced bitwise\n";
  if (!s.arithmetic_note.empty()) out << "note:          " << s.arithmetic_note << "\n";
  out << "mask scheme:   " << result.scheme.describe()
      << (s.low_range_mode ? " (low-dynamic-range mode, Xie et al., USENIX ATC 2025 Alg. 5)" : "") << "\n";
}

}  // namespace

int run_reveal(int argc, char** argv) {
  try {
    Args args(argc, argv, 2, {"json"});
    const auto backend = args.take("backend");
    if (!backend) throw UsageError("reveal needs --backend NAME; backends: " + builtin_backends().names());
    std::string format = args.take("format").value_or(args.flag("json") ? "json" : "sexpr");
    if (format != "sexpr" && format != "text" && format != "json")
      throw UsageError("--format must be one of: sexpr, text, json (got '" + format + "')");
    RevealOptions options;
    if (auto algorithm = args.take("algorithm")) {
      const auto parsed = parse_algorithm(*algorithm);
      if (!parsed) throw UsageError("--algorithm must be one of: fprev, basic, naive");
      options.algorithm = *parsed;
    }
    if (auto seed = args.take("seed")) options.seed = parse_count(*seed, "--seed");
    if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");

    OpenedTarget opened = open_from_options(*backend, args.take_rest());
    auto target = opened.instance->make_target(opened.case_params);
    const RevealResult result = reveal(*target, options);
    if (format == "sexpr") {
      if (result.map.single_class()) {
        std::cout << to_sexpr(result.tree) << "\n";
      } else {  // one line per class: its regions, then its tree
        for (const OrderClass& c : result.map.classes) {
          for (const Region& r : c.regions) std::cout << format_region(r, result.map.grid) << "; ";
          std::cout << to_sexpr(c.tree) << "\n";
        }
      }
    } else if (format == "text") {
      print_text(std::cout, target->info(), result);
    } else {
      std::cout << reveal_json(target->info(), opened.instance->identity(), result) << "\n";
    }
    return kExitOk;
  } catch (const UsageError& e) {
    std::cerr << "fprev-golden reveal: " << e.what() << "\n";
    return kExitUsage;
  } catch (const ConfigError& e) {
    std::cerr << "fprev-golden reveal: " << e.what() << "\n";
    return kExitUsage;
  } catch (const BackendUnavailable& e) {
    std::cerr << "fprev-golden reveal: backend unavailable: " << e.what() << "\n";
    return kExitFailure;
  } catch (const RevealFailure& e) {
    std::cerr << "fprev-golden reveal: " << e.diagnostic().to_string() << "\n";
    return kExitFailure;
  } catch (const TargetError& e) {
    std::cerr << "fprev-golden reveal: the target failed: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace fprev::cli
