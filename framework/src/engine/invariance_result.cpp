// The invariance verdict's text (the golden's `invariance.<parameter>:` line), its strict parser and
// the level names. The grammar is written out in docs/golden-format.md.
#include <charconv>
#include <map>

#include "fprev/invariance.hpp"

namespace fprev {
namespace {

constexpr std::string_view kAnotherOrder = " adds its summands in another order than ";

// "(m = 1, 64)": the values part of a summary.
std::string values_part(const InvarianceResult& r) {
  const std::string summary = r.summary();
  return summary.substr(r.verdict_text().size() + 1, summary.find(')') - r.verdict_text().size());
}

bool is_runs(std::string_view parameter) { return parameter == kRunsParameter; }

// "at m=1" or, for runs, "in run 2".
std::string where_text(std::string_view parameter, std::string_view value) {
  return is_runs(parameter) ? "in run " + std::string(value) : "at " + std::string(parameter) + "=" + std::string(value);
}

std::string values_text(const InvarianceResult& r) {
  if (is_runs(r.parameter)) return std::to_string(r.values.size()) + " runs";
  std::string out = r.parameter + " = ";
  for (std::size_t k = 0; k < r.values.size(); ++k) out += (k ? ", " : "") + r.values[k];
  return out;
}

std::optional<std::size_t> parse_count(std::string_view text) {
  if (text.empty() || text.size() > 9 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Takes `prefix` off the front of `text`; false when it is not there.
bool take_prefix(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return false;
  text.remove_prefix(prefix.size());
  return true;
}

}  // namespace

std::string invariance_level(std::string_view parameter) {
  if (is_runs(parameter)) return "run-to-run";
  if (parameter == "threads") return "thread-invariant";
  if (parameter == "m") return "batch-invariant";
  if (parameter == "placement") return "placement-invariant";
  return "invariant over " + std::string(parameter);
}

bool valid_invariance_word(std::string_view word) {
  if (word.empty() || word.size() > 64) return false;
  for (const char ch : word) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                    ch == '.' || ch == '+' || ch == '-';
    if (!ok) return false;
  }
  return true;
}

std::string invariance_values_problem(std::string_view parameter, const std::vector<std::string>& values) {
  if (!valid_invariance_word(parameter))
    return "invariance over '" + std::string(parameter) + "': a parameter name is letters, digits and _ . + -";
  if (is_runs(parameter)) {
    const auto runs = values.size() == 1 ? parse_count(values[0]) : std::nullopt;
    if (!runs || *runs < 2 || *runs > 1000) return "runs takes one count of fresh runs, 2 to 1000";
    return {};
  }
  if (values.size() < 2) return "invariance over " + std::string(parameter) + " needs at least two values";
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (!valid_invariance_word(values[k]))
      return "invariance over " + std::string(parameter) + ": value '" + values[k].substr(0, 64) +
             "' is not a word of letters, digits and _ . + - (at most 64)";
    for (std::size_t j = 0; j < k; ++j)
      if (values[j] == values[k]) return "invariance over " + std::string(parameter) + ": value " + values[k] + " is listed twice";
  }
  return {};
}

std::string InvarianceResult::verdict_text() const {
  return (invariant ? "" : "not ") + invariance_level(parameter);
}

std::string InvarianceResult::explanation() const {
  if (invariant || !counterexample) return {};
  const InvarianceCounterexample& c = *counterexample;
  std::string out = where_text(parameter, c.value);
  out += c.single_output ? " the output" : " element (" + std::to_string(c.row) + "," + std::to_string(c.column) + ")";
  out += kAnotherOrder;
  out += where_text(parameter, c.base_value);
  return out;
}

std::string InvarianceResult::difference_text() const {
  if (invariant || !counterexample || counterexample->leaves.empty()) return {};
  const InvarianceCounterexample& c = *counterexample;
  const std::string at = is_runs(parameter) ? "run " : parameter + "=";
  return "first difference, over leaves " + c.leaves + ":\n  " + at + c.base_value + ": " + c.base_subtree + "\n  " + at +
         c.value + ": " + c.variant_subtree + "\n";
}

std::string InvarianceResult::summary() const {
  std::string out = verdict_text() + " (" + values_text(*this) + ")";
  if (!invariant) out += ": " + explanation();
  return out;
}

std::optional<InvarianceResult> parse_invariance_summary(std::string_view parameter, std::string_view text,
                                                         std::string& error) {
  const std::string level = invariance_level(parameter);
  const std::string subject = is_runs(parameter) ? "<N> runs" : std::string(parameter) + " = <v1>, <v2>, ...";
  error = "expected '" + level + " (" + subject + ")' or 'not " + level + " (" + subject + "): " +
          where_text(parameter, "<v>") + " element (<row>,<column>)" + std::string(kAnotherOrder) + where_text(parameter, "<w>") +
          "' (or 'the output' for a target of one output)";
  InvarianceResult result;
  result.parameter = std::string(parameter);
  std::string_view rest = text;
  result.invariant = !take_prefix(rest, "not ");
  if (!take_prefix(rest, level) || !take_prefix(rest, " (")) return std::nullopt;
  const std::size_t close = rest.find(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view list = rest.substr(0, close);
  rest.remove_prefix(close + 1);
  if (is_runs(parameter)) {
    if (!list.ends_with(" runs")) return std::nullopt;
    const auto runs = parse_count(list.substr(0, list.size() - 5));
    if (!runs || *runs < 2 || *runs > 1000) return std::nullopt;
    for (std::size_t k = 1; k <= *runs; ++k) result.values.push_back(std::to_string(k));
  } else {
    if (!take_prefix(list, std::string(parameter) + " = ")) return std::nullopt;
    while (true) {
      const std::size_t comma = list.find(", ");
      const std::string_view value = list.substr(0, comma);
      if (!valid_invariance_word(value)) return std::nullopt;
      result.values.emplace_back(value);
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 2);
    }
    if (result.values.size() < 2) return std::nullopt;
  }
  if (!result.invariant) {
    InvarianceCounterexample c;
    const std::string at = is_runs(parameter) ? "in run " : "at " + std::string(parameter) + "=";
    if (!take_prefix(rest, ": ") || !take_prefix(rest, at)) return std::nullopt;
    const std::size_t space = rest.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    c.value = std::string(rest.substr(0, space));
    rest.remove_prefix(space);
    if (take_prefix(rest, " the output")) {
      c.single_output = true;
    } else {
      if (!take_prefix(rest, " element (")) return std::nullopt;
      const std::size_t comma = rest.find(',');
      const std::size_t end = rest.find(')');
      if (comma == std::string_view::npos || end == std::string_view::npos || end < comma) return std::nullopt;
      const auto row = parse_count(rest.substr(0, comma));
      const auto column = parse_count(rest.substr(comma + 1, end - comma - 1));
      if (!row || !column) return std::nullopt;
      c.row = *row;
      c.column = *column;
      rest.remove_prefix(end + 1);
    }
    if (!take_prefix(rest, kAnotherOrder) || !take_prefix(rest, at)) return std::nullopt;
    c.base_value = std::string(rest);
    rest = {};
    result.counterexample = c;
  }
  // Canonical: the text must be exactly what the result writes (no stray spaces or zeros).
  if (result.counterexample && (result.counterexample->value == result.counterexample->base_value ||
                                 !valid_invariance_word(result.counterexample->base_value))) {
    error = "the counterexample names two different values";
    return std::nullopt;
  }
  if (!rest.empty() || result.summary() != text) return std::nullopt;
  return result;
}

std::vector<std::string> compare_invariance(const std::vector<InvarianceResult>& recorded,
                                           const std::vector<InvarianceResult>& now, bool* lost_out) {
  bool lost = false;
  std::map<std::string, std::pair<const InvarianceResult*, const InvarianceResult*>> by_parameter;
  for (const InvarianceResult& r : recorded) by_parameter[r.parameter].first = &r;
  for (const InvarianceResult& r : now) by_parameter[r.parameter].second = &r;
  std::vector<std::string> out;
  for (const auto& [parameter, pair] : by_parameter) {
    const auto [before, after] = pair;
    if (before == nullptr) {
      out.push_back("invariance over " + parameter + " is not recorded in the golden: now " + after->summary() +
                    "; update records it");
    } else if (after == nullptr) {
      out.push_back("the golden records '" + before->summary() + "', which the suite no longer asks for; update removes it");
    } else if (*before == *after) {
      continue;
    } else if (before->values != after->values) {
      out.push_back("invariance over " + parameter + " is asked for other values: the golden records '" +
                    before->summary() + "', now '" + after->summary() + "'");
      lost = lost || (before->invariant && !after->invariant);
    } else if (before->invariant && !after->invariant) {
      lost = true;
      out.push_back("no longer " + invariance_level(parameter) + ": " + after->explanation());
    } else if (!before->invariant && after->invariant) {
      out.push_back("now " + invariance_level(parameter) + " " + values_part(*after) +
                    ", a change to review: the golden records " + before->explanation());
    } else {
      out.push_back("still not " + invariance_level(parameter) + ", with another counterexample: " + after->explanation() +
                    " (the golden: " + before->explanation() + ")");
    }
  }
  if (lost_out != nullptr) *lost_out = lost;
  return out;
}

}  // namespace fprev
