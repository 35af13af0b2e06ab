#include "tree_input.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "exit_status.hpp"
#include "fprev/sexpr.hpp"

namespace fprev::cli {
namespace {

Tree parse_or_explain(const std::string& text, const std::string& label) {
  try {
    return parse_sexpr(text);
  } catch (const SexprError& e) {
    throw UsageError(label + ": not a summation tree: " + e.what() + " (at character " +
                     std::to_string(e.position() + 1) + ")");
  }
}

}  // namespace

TreeInput read_tree_input(const std::string& argument) {
  TreeInput input;
  if (!std::filesystem::is_regular_file(argument)) {
    if (argument.empty() || (argument.front() != '(' && !std::isdigit(static_cast<unsigned char>(argument.front()))))
      throw UsageError("'" + argument + "' is neither a file nor an S-expression such as ((0 1) 2)");
    input.label = "<sexpr>";
    input.tree = parse_or_explain(argument, "<sexpr>");
    return input;
  }
  input.label = argument;
  std::ifstream file(argument);
  std::stringstream buffer;
  buffer << file.rdbuf();
  std::string text = buffer.str();
  if (text.rfind("# fprev-golden", 0) == 0) {
    try {
      input.golden = parse_golden_text(text, argument);
    } catch (const GoldenParseError& e) {
      throw UsageError(e.what());
    }
    input.tree = input.golden->tree;
    return input;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  input.tree = parse_or_explain(text, argument);
  return input;
}

}  // namespace fprev::cli
