#include "tree_input.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "exit_status.hpp"
#include "fprev/sexpr.hpp"

namespace fprev::cli {
namespace {

Tree parse_or_explain(const std::string& text, const std::string& label) {
  try {
    return parse_sexpr(text);
  } catch (const SexprError& e) {
    // e.what() names the position already ("S-expression, position 8: ...").
    throw UsageError(label + ": not a summation tree: " + e.what());
  }
}

}  // namespace

TreeInput read_tree_input(const std::string& argument) {
  TreeInput input;
  if (!std::filesystem::is_regular_file(argument)) {
    if (argument.empty() || (argument.front() != '(' && !std::isdigit(static_cast<unsigned char>(argument.front()))))
      throw UsageError("'" + argument + "' is neither a file nor an S-expression such as ((0 1) 2)");
    input.label = "<sexpr>";
    input.result = Golden::of_tree({}, parse_or_explain(argument, "<sexpr>"));
    return input;
  }
  input.label = argument;
  // Bounded like a golden: a file given by mistake (a log, a device) is refused, not read whole.
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(argument, error);
  std::ifstream file(argument, std::ios::binary);
  if (error || !file) throw UsageError("cannot read " + argument);
  std::string text(static_cast<std::size_t>(std::min<std::uintmax_t>(size, kMaxGoldenBytes + 1)), '\0');
  file.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(file.gcount()));
  if (size > kMaxGoldenBytes)
    throw UsageError(argument + ": larger than " + std::to_string(kMaxGoldenBytes) +
                     " bytes, the most a golden or an S-expression file may have");
  // A golden that an editor saved with a byte order mark is still a golden: its parser says what
  // is wrong, where the S-expression parser would only see a stray byte 0xef.
  if (text.rfind("# fprev-golden", 0) == 0 || text.rfind("\xEF\xBB\xBF# fprev-golden", 0) == 0) {
    try {
      input.result = parse_golden_text(text, argument);
    } catch (const GoldenParseError& e) {
      throw UsageError(e.what());
    }
    input.is_golden_file = true;
    return input;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  input.result = Golden::of_tree({}, parse_or_explain(text, argument));
  return input;
}

}  // namespace fprev::cli
