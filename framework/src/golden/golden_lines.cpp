#include "golden/golden_lines.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include "text/text_checks.hpp"

namespace fprev::detail {

std::optional<std::string_view> GoldenLineReader::next() {
  if (pos_ >= text_.size()) return std::nullopt;
  ++line_;
  // Look for the end of the line only as far as a line may reach.
  const std::size_t end = text_.substr(0, pos_ + kMaxGoldenLineBytes + 1).find('\n', pos_);
  if (end == std::string_view::npos) {
    if (text_.size() - pos_ > kMaxGoldenLineBytes) {
      const std::string_view line = text_.substr(pos_, text_.find('\n', pos_) - pos_);
      fail("the line is longer than " + with_thousands_separators(kMaxGoldenLineBytes) +
           " bytes, the most a golden line may have: " + quoted_excerpt(line));
    }
    fail("the last line has no newline: the file is truncated");
  }
  std::string_view line = text_.substr(pos_, end - pos_);
  pos_ = end + 1;
  if (!line.empty() && line.back() == '\r')
    fail("line ends with CR: golden files use LF line endings (add '*.golden -text' or "
         "'eol=lf' to .gitattributes)");
  if (const auto bad = first_invalid_utf8(line))
    fail("byte " + std::to_string(*bad + 1) + " of the line is not valid UTF-8: " +
         quoted_excerpt(line.substr(*bad > 16 ? *bad - 16 : 0, 32)));
  return line;
}

std::optional<std::string_view> GoldenLineReader::peek() const {
  if (pos_ >= text_.size()) return std::nullopt;
  const std::size_t end = text_.substr(0, pos_ + kMaxGoldenLineBytes + 1).find('\n', pos_);
  if (end == std::string_view::npos) return text_.substr(pos_, std::min(text_.size() - pos_, kMaxGoldenLineBytes));
  return text_.substr(pos_, end - pos_);
}

void GoldenLineReader::fail(std::string message) const {
  throw GoldenParseError(path_, line_, std::move(message));
}

void GoldenLineReader::fail_at(std::size_t line, std::string message) const {
  throw GoldenParseError(path_, line, std::move(message));
}

std::vector<KeyLine> read_key_block(GoldenLineReader& reader, std::string_view repeatable) {
  std::vector<KeyLine> block;
  std::map<std::string, std::size_t, std::less<>> seen;  // key -> line
  while (true) {
    const auto upcoming = reader.peek();
    if (!upcoming || (!upcoming->empty() && upcoming->front() == '#')) return block;
    const std::string_view line = *reader.next();
    if (line.empty()) reader.fail("unexpected empty line");
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0)
      reader.fail("malformed header line " + quoted_excerpt(line) + ": expected 'key: value'");
    std::string key(line.substr(0, colon));
    const std::string quoted_key = quoted_excerpt(key);
    std::string_view raw = line.substr(colon + 1);
    if (!raw.empty()) {
      if (raw.front() != ' ')
        reader.fail("malformed header line: expected a space after the ':' of key " + quoted_key);
      raw.remove_prefix(1);
      if (raw.empty()) reader.fail("key " + quoted_key + " has a space but no value (write 'key:')");
    }
    if (const auto it = seen.find(key); it != seen.end() && key != repeatable)
      reader.fail("duplicated key " + quoted_key + " (first on line " + std::to_string(it->second) + ")");
    seen.emplace(key, reader.line());
    std::string error;
    auto value = unescape_value(raw, error);
    if (!value) reader.fail("key " + quoted_key + ": " + error);
    block.push_back({std::move(key), std::move(*value), reader.line()});
  }
}

std::string escape_value(std::string_view value) {
  std::string out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (const std::size_t length = c >= 0x80 ? utf8_sequence_length(value, i) : 0;
               length > 1) {
      out.append(value.substr(i, length));  // valid UTF-8 is written as it is
      i += length - 1;
    } else if (c < 0x20 || c >= 0x7f || (c == ' ' && (i == 0 || i + 1 == value.size()))) {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int two_digits(std::string_view text, std::size_t at) {
  return (text[at] - '0') * 10 + (text[at + 1] - '0');
}

}  // namespace

std::optional<std::string> unescape_value(std::string_view raw, std::string& error) {
  if (!raw.empty() && (raw.front() == ' ' || raw.back() == ' ')) {
    error = "value has a leading or trailing space (write it as \\x20)";
    return std::nullopt;
  }
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if (c < 0x20 || c == 0x7f) {
      error = "raw control character in value (write it as \\xHH)";
      return std::nullopt;
    }
    if (c != '\\') {
      out += static_cast<char>(c);
      continue;
    }
    if (i + 1 >= raw.size()) {
      error = "value ends with a lone backslash";
      return std::nullopt;
    }
    const char e = raw[++i];
    if (e == '\\') {
      out += '\\';
    } else if (e == 'n') {
      out += '\n';
    } else if (e == 't') {
      out += '\t';
    } else if (e == 'r') {
      out += '\r';
    } else if (e == 'x' && i + 2 < raw.size() && hex_digit(raw[i + 1]) >= 0 &&
               hex_digit(raw[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(raw[i + 1]) * 16 + hex_digit(raw[i + 2]));
      i += 2;
    } else {
      error = "unknown escape " + quoted_excerpt(raw.substr(i - 1, 2)) +
              " (allowed: \\\\ \\n \\t \\r \\xHH)";
      return std::nullopt;
    }
  }
  return out;
}

void append_key(std::string& out, std::string_view key, std::string_view value) {
  out += key;
  out += ':';
  if (!value.empty()) {
    out += ' ';
    out += escape_value(value);
  }
  out += '\n';
}

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<std::uint32_t> parse_index(std::string_view text) {
  if (!all_digits(text) || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  std::uint64_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || value >= kNoNode) return std::nullopt;
  return static_cast<std::uint32_t>(value);
}

bool is_extra_key_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

bool is_iso_utc_date(std::string_view text) {
  if (text.size() != 10 && text.size() != 20) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool digit = c >= '0' && c <= '9';
    switch (i) {
      case 4: case 7: if (c != '-') return false; break;
      case 10: if (c != 'T') return false; break;
      case 13: case 16: if (c != ':') return false; break;
      case 19: if (c != 'Z') return false; break;
      default: if (!digit) return false;
    }
  }
  const int month = two_digits(text, 5);
  const int day = two_digits(text, 8);
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  if (text.size() == 20) {
    if (two_digits(text, 11) > 23 || two_digits(text, 14) > 59 || two_digits(text, 17) > 60)
      return false;
  }
  return true;
}

}  // namespace fprev::detail
