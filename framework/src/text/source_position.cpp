// The one formatter of error locations, and bounded quotations of input (source_position.hpp).
#include "fprev/source_position.hpp"

#include <algorithm>

#include "text/text_checks.hpp"

namespace fprev {

std::string format_position(const SourcePosition& position) {
  if (position.offset) return position.source + ", position " + std::to_string(*position.offset);
  if (position.line == 0) return position.source;
  std::string out = position.source + ':' + std::to_string(position.line);
  if (position.column > 0) out += ':' + std::to_string(position.column);
  return out;
}

SourcePosition position_of_offset(std::string source, std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t line_start = before.rfind('\n');
  const std::size_t column = line_start == std::string_view::npos ? offset + 1 : offset - line_start;
  return SourcePosition::at(std::move(source), line, column);
}

std::string quoted_excerpt(std::string_view text, std::size_t max_bytes) {
  constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  std::size_t at = 0;
  while (at < text.size() && at < max_bytes) {
    const auto byte = static_cast<unsigned char>(text[at]);
    if (byte >= 0x20 && byte < 0x7f) {
      out += static_cast<char>(byte);
      ++at;
      continue;
    }
    const std::size_t length = byte >= 0x80 ? detail::utf8_sequence_length(text, at) : 0;
    if (length > 0) {
      if (at + length > max_bytes) break;  // never cut a character
      out.append(text.substr(at, length));
      at += length;
      continue;
    }
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
    ++at;
  }
  out += '\'';
  if (at < text.size())
    out.insert(out.size() - 1, "...").append(" (" + detail::with_thousands_separators(text.size()) +
                                             " bytes)");
  return out;
}

}  // namespace fprev
