// Structural descriptions (fprev/structure.hpp): the text form, written and parsed strictly.
#include <charconv>
#include <string>

#include "fprev/structure.hpp"

namespace fprev {
namespace {

void append_number(std::string& out, std::int64_t value) { out += std::to_string(value); }

// "a", "a..b" (|step| 1) or "a..b:s".
void append_progression(std::string& out, const StructureItem& item) {
  append_number(out, item.first);
  if (item.count == 1) return;
  out += "..";
  append_number(out, item.first + item.step * static_cast<std::int64_t>(item.count - 1));
  const std::int64_t magnitude = item.step < 0 ? -item.step : item.step;
  if (magnitude != 1) {
    out += ':';
    append_number(out, magnitude);
  }
}

void append_item(std::string& out, const StructureItem& item) {
  if (item.kind == StructureItem::Kind::leaf) {
    append_progression(out, item);
    return;
  }
  out += 'T';
  append_number(out, item.templ + 1);
  if (item.count == 1 && item.first == 0) return;
  out += '@';
  append_progression(out, item);
}

// A cursor over one line; every error names the line and the column.
class LineParser {
 public:
  LineParser(std::string_view text, std::size_t line) : text_(text), line_(line) {}

  [[noreturn]] void fail(const std::string& message) const { fail_at(pos_, message); }
  [[noreturn]] void fail_at(std::size_t pos, const std::string& message) const {
    throw StructureError(line_, pos + 1, message);
  }
  std::size_t position() const { return pos_; }
  bool at_end() const { return pos_ == text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  bool accept(std::string_view token) {
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  void expect(std::string_view token) {
    if (!accept(token)) fail("expected '" + std::string(token) + "'");
  }
  // A decimal number without sign or leading zeros, at most 2^32.
  std::int64_t number() {
    const std::size_t start = pos_;
    while (!at_end() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    const std::string_view digits = text_.substr(start, pos_ - start);
    if (digits.empty()) fail("expected a number");
    if (digits.size() > 1 && digits[0] == '0') {
      pos_ = start;
      fail("a number with a leading zero");
    }
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size() || value > (std::uint64_t{1} << 32)) {
      pos_ = start;
      fail("a number out of range");
    }
    return static_cast<std::int64_t>(value);
  }
  // "a", "a..b" or "a..b:s" into item.first/step/count.
  void progression(StructureItem& item) {
    item.first = number();
    item.step = 1;
    item.count = 1;
    if (!accept("..")) return;
    const std::size_t last_at = pos_;
    const std::int64_t last = number();
    std::int64_t magnitude = 1;
    if (accept(":")) {
      magnitude = number();
      if (magnitude <= 1) fail("a step must be at least 2 (write a..b for step 1)");
    }
    const std::int64_t distance = last > item.first ? last - item.first : item.first - last;
    if (distance == 0 || distance % magnitude != 0) {
      pos_ = last_at;
      fail("the progression does not reach " + std::to_string(last) + " in steps of " +
           std::to_string(magnitude));
    }
    if (distance / magnitude >= std::int64_t{0xffffffff}) {
      pos_ = last_at;
      fail("more than 2^32 - 1 copies");
    }
    item.step = last > item.first ? magnitude : -magnitude;
    item.count = static_cast<std::uint32_t>(distance / magnitude + 1);
  }

 private:
  std::string_view text_;
  std::size_t line_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<std::string> structure_lines(const StructureDescription& description) {
  std::vector<std::string> lines;
  lines.reserve(description.templates.size());
  for (std::size_t t = 0; t < description.templates.size(); ++t) {
    const StructureTemplate& tmpl = description.templates[t];
    std::string line = "T";
    append_number(line, static_cast<std::int64_t>(t + 1));
    line += " = ";
    if (tmpl.chain_width == 0) {
      line += '(';
    } else if (tmpl.chain_width == 2) {
      line += "chain(";
    } else {
      line += "chain/";
      append_number(line, tmpl.chain_width);
      line += '(';
    }
    for (std::size_t i = 0; i < tmpl.items.size(); ++i) {
      if (i != 0) line += ' ';
      append_item(line, tmpl.items[i]);
    }
    line += ')';
    lines.push_back(std::move(line));
  }
  return lines;
}

StructureDescription parse_structure(const std::vector<std::string_view>& lines, std::size_t leaves,
                                     std::size_t max_line_length) {
  if (leaves == 0 || leaves > kMaxStructureLeaves)
    throw StructureError(0, 0, "a tree has between 1 and 2^31 - 1 leaves");
  StructureDescription description;
  description.leaves = leaves;
  for (std::size_t index = 0; index < lines.size(); ++index) {
    const std::size_t line_number = index + 1;
    if (lines[index].size() > max_line_length)
      throw StructureError(line_number, 0,
                           "longer than " + std::to_string(max_line_length) + " characters");
    LineParser p(lines[index], line_number);
    p.expect("T");
    const std::size_t number_at = p.position();
    if (p.number() != static_cast<std::int64_t>(line_number))
      p.fail_at(number_at, "templates are numbered T1, T2, ... in order; expected T" +
                               std::to_string(line_number));
    p.expect(" = ");
    StructureTemplate tmpl;
    if (p.accept("chain/")) {
      const std::int64_t width = p.number();
      if (width < 3) p.fail("a fused chain has width 3 or more (write chain(...) for width 2)");
      tmpl.chain_width = static_cast<std::uint32_t>(width);
      p.expect("(");
    } else if (p.accept("chain(")) {
      tmpl.chain_width = 2;
    } else {
      p.expect("(");
    }
    while (true) {
      StructureItem item;
      if (p.accept("T")) {
        item.kind = StructureItem::Kind::templ;
        const std::int64_t ref = p.number();
        if (ref < 1 || ref >= static_cast<std::int64_t>(line_number))
          p.fail("T" + std::to_string(ref) + " is not defined before T" + std::to_string(line_number));
        item.templ = static_cast<std::uint32_t>(ref - 1);
        if (p.accept("@")) p.progression(item);
      } else {
        p.progression(item);
      }
      tmpl.items.push_back(item);
      if (p.accept(")")) break;
      p.expect(" ");
    }
    if (!p.at_end()) p.fail("unexpected text after ')'");
    description.templates.push_back(std::move(tmpl));
  }
  const std::size_t last_line = lines.empty() ? 0 : lines.size();
  Tree tree;
  try {
    tree = expand_structure(description);
  } catch (const StructureError& e) {
    throw StructureError(last_line, 0, e.message());
  }
  // Strict: only the canonical description of its own tree is accepted, so a golden's text is
  // determined by its tree.
  if (!(describe_structure(tree) == description))
    throw StructureError(last_line, 0,
                         "not the canonical description of its tree (rewrite it with fprev-golden)");
  return description;
}

}  // namespace fprev
