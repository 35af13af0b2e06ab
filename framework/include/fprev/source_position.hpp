// Where a problem is in a text a person wrote, and how error messages quote that text. One position
// type and one formatter for every parser of the framework (suites, goldens, S-expressions), so a
// location reads the same wherever it comes from:
//
//   suite.yaml:9:17       a line and a column (1-based; the column counts bytes)
//   golden/x.golden:12    a whole line
//   suite.yaml            the whole text (a missing file, a file too large)
//   S-expression, position 4    a byte offset in a one-line text (0-based)
//
// Texts come from people and merges, so messages never echo them whole: quoted_excerpt() quotes a
// short, printable excerpt of at most a few dozen bytes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace fprev {

struct SourcePosition {
  std::string source;                 // the file path, or what the text is ("S-expression")
  std::size_t line = 0;               // 1-based; 0: the whole text
  std::size_t column = 0;             // 1-based byte column; 0: the whole line
  std::optional<std::size_t> offset;  // 0-based byte offset in a one-line text; wins when set

  static SourcePosition whole(std::string source) { return {std::move(source), 0, 0, {}}; }
  static SourcePosition at_line(std::string source, std::size_t line) {
    return {std::move(source), line, 0, {}};
  }
  static SourcePosition at(std::string source, std::size_t line, std::size_t column) {
    return {std::move(source), line, column, {}};
  }
  static SourcePosition at_offset(std::string source, std::size_t offset) {
    return {std::move(source), 0, 0, offset};
  }

  friend bool operator==(const SourcePosition&, const SourcePosition&) = default;
};

// The location as shown above: "<source>:<line>:<column>", "<source>:<line>", "<source>" or
// "<source>, position <offset>".
std::string format_position(const SourcePosition& position);

// The 1-based line and column of byte `offset` of `text` (an offset at the end of the text is the
// position just after its last byte). Lines end at '\n'.
SourcePosition position_of_offset(std::string source, std::string_view text, std::size_t offset);

// `text` in single quotes for an error message, bounded: at most `max_bytes` of it (cut at a
// character boundary), bytes that are not printable ASCII or part of valid UTF-8 written as \xHH,
// and a cut text marked "...' (N bytes)".
std::string quoted_excerpt(std::string_view text, std::size_t max_bytes = 48);

}  // namespace fprev
