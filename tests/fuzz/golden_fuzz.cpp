// Fuzz harness: the golden parser, for every format version it reads (new versions only add seed
// files under seeds/golden/). Any text either parses, and then what the writer makes of it parses
// back to the same golden and writes the same bytes again (the current version's canonical form),
// or is refused with a GoldenParseError on a line of the text with a bounded message.
#include <algorithm>
#include <string>

#include "fprev/golden.hpp"
#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fprev::fuzz::CpuLimit cpu_limit;
  using namespace fprev;
  const std::string_view text = fuzz::as_text(data, size);
  Golden golden;
  try {
    golden = parse_golden_text(text, "fuzz.golden");
  } catch (const GoldenParseError& error) {
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    fuzz::require(error.line() <= lines + 1, "the error names a line beyond the text", error.what());
    fuzz::require_bounded_message(error.what());
    return 0;
  }
  std::string written;
  try {
    written = write_golden_text(golden);
  } catch (const GoldenIoError& error) {
    fuzz::fail("a parsed golden cannot be written", error.what());
  }
  Golden again;
  try {
    again = parse_golden_text(written, "rewritten.golden");
  } catch (const GoldenParseError& error) {
    fuzz::fail("the written form of a parsed golden does not parse", error.what());
  }
  GoldenMetadata as_read = golden.meta;
  as_read.format_version = kGoldenFormatVersion;  // an older version is written as the current one
  fuzz::require(again.meta == as_read, "the metadata changed through writing", written);
  fuzz::require(same_result(again, golden) && again.map.grid == golden.map.grid, "the result changed through writing", written);
  fuzz::require(write_golden_text(again) == written, "writing is not canonical", written);
  return 0;
}
