#include "fprev/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace fprev {
namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when the bytes there are invalid
// (overlong forms, surrogates and code points beyond U+10FFFF are invalid too).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    code = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    code = lead & 0x0fu;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    code = lead & 0x07u;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0u) != 0x80u) return 0;
    code = (code << 6) | (byte(i + k) & 0x3fu);
  }
  if (length == 3 && (code < 0x800 || (code >= 0xd800 && code <= 0xdfff))) return 0;
  if (length == 4 && (code < 0x10000 || code > 0x10ffff)) return 0;
  return length;
}

void write_number(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

void newline(std::string& out, int indent, int level) {
  if (indent < 0) return;
  out += '\n';
  out.append(static_cast<std::size_t>(indent) * static_cast<std::size_t>(level), ' ');
}

}  // namespace

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"': out += "\\\""; ++i; continue;
      case '\\': out += "\\\\"; ++i; continue;
      case '\b': out += "\\b"; ++i; continue;
      case '\f': out += "\\f"; ++i; continue;
      case '\n': out += "\\n"; ++i; continue;
      case '\r': out += "\\r"; ++i; continue;
      case '\t': out += "\\t"; ++i; continue;
      default: break;
    }
    if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
      out += buffer;
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  out += '"';
  return out;
}

Json& Json::push_back(Json item) {
  if (is_null()) value_ = Array{};
  std::get<Array>(value_).push_back(std::move(item));
  return *this;
}

Json& Json::set(std::string_view key, Json item) {
  if (is_null()) value_ = Object{};
  auto& members = std::get<Object>(value_);
  for (auto& [name, value] : members) {
    if (name == key) {
      value = std::move(item);
      return *this;
    }
  }
  members.emplace_back(std::string(key), std::move(item));
  return *this;
}

const Json* Json::find(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& [name, value] : std::get<Object>(value_))
    if (name == key) return &value;
  return nullptr;
}

std::size_t Json::size() const {
  if (const auto* array = std::get_if<Array>(&value_)) return array->size();
  if (const auto* object = std::get_if<Object>(&value_)) return object->size();
  return 0;
}

// Report nesting is shallow and fixed by the report's shape (never by a tree's depth), so plain
// recursion is fine here.
void Json::dump_to(std::string& out, int indent, int level) const {
  if (std::holds_alternative<std::monostate>(value_)) {
    out += "null";
  } else if (const auto* flag = std::get_if<bool>(&value_)) {
    out += *flag ? "true" : "false";
  } else if (const auto* signed_value = std::get_if<std::int64_t>(&value_)) {
    out += std::to_string(*signed_value);
  } else if (const auto* unsigned_value = std::get_if<std::uint64_t>(&value_)) {
    out += std::to_string(*unsigned_value);
  } else if (const auto* number = std::get_if<double>(&value_)) {
    write_number(out, *number);
  } else if (const auto* text = std::get_if<std::string>(&value_)) {
    out += json_quote(*text);
  } else if (const auto* items = std::get_if<Array>(&value_)) {
    if (items->empty()) {
      out += "[]";
      return;
    }
    out += '[';
    for (std::size_t i = 0; i < items->size(); ++i) {
      if (i > 0) out += ',';
      newline(out, indent, level + 1);
      (*items)[i].dump_to(out, indent, level + 1);
    }
    newline(out, indent, level);
    out += ']';
  } else {
    const auto& members = std::get<Object>(value_);
    if (members.empty()) {
      out += "{}";
      return;
    }
    out += '{';
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i > 0) out += ',';
      newline(out, indent, level + 1);
      out += json_quote(members[i].first);
      out += indent < 0 ? ":" : ": ";
      members[i].second.dump_to(out, indent, level + 1);
    }
    newline(out, indent, level);
    out += '}';
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  dump_to(out, indent, 0);
  return out;
}

}  // namespace fprev
