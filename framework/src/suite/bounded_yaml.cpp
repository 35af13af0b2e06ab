// The bounded YAML loader of suites (bounded_yaml.hpp).
#include "suite/bounded_yaml.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <unordered_map>

#include "fprev/source_position.hpp"
#include "fprev/suite.hpp"
#include "text/text_checks.hpp"

namespace fprev::suite_detail {
namespace {

using detail::with_thousands_separators;

// Thrown by the guard to stop yaml-cpp's parser at the first problem.
struct Stop {
  YamlProblem problem;
};

YamlProblem problem_at(const YAML::Mark& mark, std::string message) {
  if (mark.is_null() || mark.line < 0 || mark.column < 0) return {0, 0, std::move(message)};
  return {mark.line + 1, mark.column + 1, std::move(message)};
}

YamlProblem problem_at_offset(std::string_view text, std::size_t offset, std::string message) {
  const SourcePosition at = position_of_offset("", text, offset);
  return {static_cast<int>(at.line), static_cast<int>(at.column), std::move(message)};
}

// yaml-cpp's raw messages about structure ("illegal map value", "end of map not found", "illegal
// block entry", ...) are, in a hand-written suite, nearly always a line indented differently from
// its siblings, or indented with a tab, which YAML forbids. Say so: the position alone often
// points at the line after the real mistake.
std::string syntax_hint(std::string_view text, const YAML::Exception& error) {
  static constexpr std::string_view kStructural[] = {
      "illegal map value", "end of map not found", "illegal block entry", "end of sequence not found",
      "block sequence entries are not allowed"};
  bool structural = false;
  for (std::string_view m : kStructural) structural = structural || error.msg.find(m) != std::string::npos;
  // A tab in the indentation of any line up to the error's line is the likeliest cause.
  std::size_t line = 1, start = 0;
  const std::size_t last = error.mark.is_null() || error.mark.line < 0 ? 0 : static_cast<std::size_t>(error.mark.line) + 1;
  while (start < text.size() && (last == 0 || line <= last)) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view content = text.substr(start, end - start);
    const std::size_t indent_end = content.find_first_not_of(" \t");
    if (content.substr(0, indent_end == std::string_view::npos ? content.size() : indent_end).find('\t') !=
        std::string_view::npos)
      return " (line " + std::to_string(line) + " is indented with a tab; YAML indents with spaces only)";
    start = end + 1;
    ++line;
  }
  if (!structural) return "";
  return " (check the indentation of this line and the lines above it: entries of one map or list start in "
         "the same column, a nested one further right, with spaces, never tabs)";
}

// Streams one document's events and stops at the first bound crossed (see the header).
class Guard final : public YAML::EventHandler {
 public:
  explicit Guard(std::string_view text) : text_(text) {}

  // Whether a second document starts (its mark) after the first.
  std::optional<YAML::Mark> second_document() const { return second_document_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    ++documents_;
    if (documents_ == 1) {
      first_document_ = mark;
      return;
    }
    if (mark.pos == first_document_.pos) {
      // yaml-cpp 0.7.0 did not consume the token there and would return it forever.
      const bool known = mark.pos >= 0 && static_cast<std::size_t>(mark.pos) < text_.size();
      const char token = known ? text_[static_cast<std::size_t>(mark.pos)] : '\0';
      throw Stop{problem_at(
          mark, "YAML syntax error: unexpected " +
                    (known ? quoted_excerpt(std::string_view(&token, 1)) : std::string("token")) +
                    (token == ',' ? " (',' separates items only inside [ ] or { })" : ""))};
    }
    second_document_ = mark;
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto it = sizes_.find(anchor);
    if (it == sizes_.end())
      throw Stop{problem_at(mark, "this alias refers to a node that contains it (a cycle)")};
    count(mark, it->second);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    YAML::anchor_t anchor;
    std::uint64_t nodes_before;  // nodes_ when it started
  };

  void count(const YAML::Mark& mark, std::uint64_t nodes) {
    nodes_ += nodes;
    if (nodes_ > kMaxSuiteYamlNodes)
      throw Stop{problem_at(
          mark, "the YAML holds more than " + with_thousands_separators(kMaxSuiteYamlNodes) +
                    " values (counting each alias *name as a copy of what it refers to); a "
                    "suite needs far fewer")};
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    count(mark, 1);
    if (anchor != YAML::NullAnchor) sizes_[anchor] = 1;
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (open_.size() >= kMaxSuiteYamlNesting)
      throw Stop{problem_at(mark, "lists and maps nest deeper than " +
                                      std::to_string(kMaxSuiteYamlNesting) +
                                      " levels here; a suite needs 4")};
    open_.push_back({anchor, nodes_});
    count(mark, 1);
  }
  void close() {
    const Open done = open_.back();
    open_.pop_back();
    if (done.anchor != YAML::NullAnchor) sizes_[done.anchor] = nodes_ - done.nodes_before;
  }

  std::string_view text_;
  int documents_ = 0;
  YAML::Mark first_document_;
  std::optional<YAML::Mark> second_document_;
  std::uint64_t nodes_ = 0;
  std::vector<Open> open_;
  std::unordered_map<YAML::anchor_t, std::uint64_t> sizes_;  // expanded size of complete anchors
};

// Size, encoding and control characters, before yaml-cpp sees the text.
std::optional<YamlProblem> check_text(std::string_view text) {
  if (text.size() > kMaxSuiteBytes)
    return problem_at_offset(text, kMaxSuiteBytes,
                             "the file is longer than " + with_thousands_separators(kMaxSuiteBytes) +
                                 " bytes, the most a suite file may have (it has " +
                                 with_thousands_separators(text.size()) + ")");
  if (const auto bad = detail::first_invalid_utf8(text))
    return problem_at_offset(text, *bad,
                             "byte " + quoted_excerpt(text.substr(*bad, 1)) +
                                 " is not valid UTF-8; a suite file is UTF-8 text");
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
      return problem_at_offset(text, i,
                               "control character " + quoted_excerpt(text.substr(i, 1)) +
                                   " in the text; YAML allows only tab, line feed and carriage "
                                   "return" +
                                   (c == 0 ? " (a file holding NUL bytes may be UTF-16: save it "
                                             "as UTF-8)"
                                           : ""));
  }
  return std::nullopt;
}

}  // namespace

BoundedYaml load_bounded_yaml(std::string_view text) {
  BoundedYaml result;
  if (auto problem = check_text(text)) {
    result.problems.push_back(std::move(*problem));
    return result;
  }
  const std::string owned(text);
  try {
    std::istringstream events_in(owned);
    YAML::Parser parser(events_in);
    Guard guard(text);
    // At most two documents: the suite and, wrongly, a second one, where the guard stops.
    if (parser.HandleNextDocument(guard)) parser.HandleNextDocument(guard);
    if (const auto second = guard.second_document())
      result.problems.push_back(problem_at(
          *second, "a suite file holds one YAML document; a second one starts here"));
    result.root = YAML::Load(owned);
  } catch (const Stop& stop) {
    result.problems.push_back(stop.problem);
  } catch (const YAML::Exception& error) {
    result.problems.push_back(problem_at(error.mark, "YAML syntax error: " + error.msg + syntax_hint(text, error)));
  }
  return result;
}

}  // namespace fprev::suite_detail
