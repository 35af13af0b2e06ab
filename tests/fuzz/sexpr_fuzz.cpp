// Fuzz harness: the S-expression parser. Any text either parses, and then the canonical text of
// the tree parses back to the same tree and prints the same again, or is refused with a
// SexprError whose position lies within the text and whose message is bounded.
#include <string>

#include "fprev/sexpr.hpp"
#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fprev::fuzz::CpuLimit cpu_limit;
  using namespace fprev;
  const std::string_view text = fuzz::as_text(data, size);
  Tree tree;
  try {
    tree = parse_sexpr(text);
  } catch (const SexprError& error) {
    fuzz::require(error.position() <= text.size(), "the error position lies beyond the text",
                  error.what());
    fuzz::require_bounded_message(error.what());
    return 0;
  }
  fuzz::require(!tree.empty() && tree.leaf_count() <= text.size(),
                "a parsed tree has more leaves than the text has bytes");
  const std::string canonical = to_sexpr(tree);
  Tree again;
  try {
    again = parse_sexpr(canonical);
  } catch (const SexprError& error) {
    fuzz::fail("the canonical text of a parsed tree does not parse", error.what());
  }
  fuzz::require(again == tree, "the canonical text parses to another tree", canonical);
  fuzz::require(to_sexpr(again) == canonical, "printing is not canonical", canonical);
  return 0;
}
