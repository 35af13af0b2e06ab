// A small JSON value type and writer for machine-readable reports (every CLI command's --json
// output). Objects keep insertion order, so the same report always prints the same bytes. Only
// writing is supported: the tool emits JSON, it never needs to read it.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace fprev {

class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;  // insertion order is output order

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool value) : value_(value) {}
  template <std::signed_integral T>
    requires(!std::same_as<T, bool>)
  Json(T value) : value_(static_cast<std::int64_t>(value)) {}
  template <std::unsigned_integral T>
    requires(!std::same_as<T, bool>)
  Json(T value) : value_(static_cast<std::uint64_t>(value)) {}
  Json(double value) : value_(value) {}
  Json(const char* value) : value_(std::string(value)) {}
  Json(std::string value) : value_(std::move(value)) {}
  Json(std::string_view value) : value_(std::string(value)) {}
  Json(Array value) : value_(std::move(value)) {}
  Json(Object value) : value_(std::move(value)) {}

  static Json array() { return Json(Array{}); }
  static Json object() { return Json(Object{}); }

  bool is_null() const { return std::holds_alternative<std::monostate>(value_); }
  bool is_array() const { return std::holds_alternative<Array>(value_); }
  bool is_object() const { return std::holds_alternative<Object>(value_); }

  // Appends to an array (a null value becomes an empty array first). Returns *this for chaining.
  Json& push_back(Json item);
  // Sets a key of an object, replacing an existing one in place (a null value becomes an empty
  // object first). Returns *this for chaining.
  Json& set(std::string_view key, Json item);
  // The member `key` of an object, or nullptr.
  const Json* find(std::string_view key) const;
  std::size_t size() const;  // elements of an array or members of an object, else 0

  // indent < 0: compact, one line. indent >= 0: pretty-printed with that many spaces per level.
  // Non-finite numbers are written as null (JSON has no NaN or infinity).
  std::string dump(int indent = -1) const;

  friend bool operator==(const Json&, const Json&) = default;

 private:
  void dump_to(std::string& out, int indent, int level) const;
  std::variant<std::monostate, bool, std::int64_t, std::uint64_t, double, std::string, Array, Object>
      value_;
};

// `text` as a quoted JSON string literal. Control characters are escaped; bytes that are not valid
// UTF-8 become U+FFFD so the output is always valid JSON.
std::string json_quote(std::string_view text);

}  // namespace fprev
