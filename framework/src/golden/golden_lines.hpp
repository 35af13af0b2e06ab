// The line level of the golden text format (fprev/golden.hpp): reading lines with their limits,
// `key: value` lines, value escaping, and the small lexical checks every part of a golden uses.
// Private to the golden layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/golden.hpp"

namespace fprev::detail {

// Splits the text into lines, enforcing LF endings, a final newline, the line length limit and
// valid UTF-8. Errors are GoldenParseError at the current line.
class GoldenLineReader {
 public:
  GoldenLineReader(std::string_view text, std::string path) : text_(text), path_(std::move(path)) {}

  // The next line without its '\n', or nullopt at the end of the text.
  std::optional<std::string_view> next();
  // The next line without consuming it (nullopt at the end); validated when next() reads it.
  std::optional<std::string_view> peek() const;
  std::size_t line() const { return line_; }
  std::string_view rest() const { return text_.substr(pos_); }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(std::string message) const;
  [[noreturn]] void fail_at(std::size_t line, std::string message) const;

 private:
  std::string_view text_;
  std::string path_;
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
};

// One `key: value` line, the value unescaped.
struct KeyLine {
  std::string key;
  std::string value;
  std::size_t line = 0;
};

// Reads `key: value` lines up to the next comment line ("# ...", left unread: peek() shows it) or
// the end of the text. Rejects duplicated keys within the block, empty lines and malformed lines,
// naming the line. `repeatable` names the one key that may appear several times (empty: none).
std::vector<KeyLine> read_key_block(GoldenLineReader& reader, std::string_view repeatable = {});

std::string escape_value(std::string_view value);
// Unescapes; on failure returns nullopt and sets `error`.
std::optional<std::string> unescape_value(std::string_view raw, std::string& error);
// "key: value\n" with the value escaped ("key:\n" for an empty value).
void append_key(std::string& out, std::string_view key, std::string_view value);

bool all_digits(std::string_view text);
// Strict unsigned decimal: no sign, no leading zeros, below kNoNode (32-bit node ids).
std::optional<std::uint32_t> parse_index(std::string_view text);
// 1..64 of [A-Za-z0-9._-]: names after "extra.", "fingerprint.fact." and the like.
bool is_extra_key_name(std::string_view name);
// "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SSZ" with plausible field ranges.
bool is_iso_utc_date(std::string_view text);

}  // namespace fprev::detail
