// The alignment result's text (the golden's `alignment:` line and a class's `offsets:` line), its
// strict parser, and comparison. The grammar is written out in docs/golden-format.md.
#include <charconv>

#include "fprev/alignment.hpp"

namespace fprev {
namespace {

constexpr std::string_view kPadded = "ld+1";

std::string checked_text(std::size_t offsets, bool padded) {
  return "offsets 0-" + std::to_string(offsets - 1) + (padded ? " and ld+1" : "") + " checked";
}

std::optional<std::size_t> parse_number(std::string_view text) {
  if (text.empty() || text.size() > 9 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::string AlignmentResult::summary() const {
  switch (verdict) {
    case AlignmentVerdict::not_checked: return "not checked";
    case AlignmentVerdict::not_applicable: return "not applicable";
    case AlignmentVerdict::independent: return "independent (" + checked_text(offsets, padded) + ")";
    case AlignmentVerdict::dependent:
      return "dependent (" + checked_text(offsets, padded) + ", " + std::to_string(classes.size()) + " classes)";
  }
  return "?";
}

std::optional<AlignmentResult> parse_alignment_summary(std::string_view text, std::size_t& classes,
                                                       std::string& error) {
  AlignmentResult result;
  classes = 1;
  error = "expected 'independent (offsets 0-<k> checked)', 'independent (offsets 0-<k> and ld+1 checked)', "
          "'dependent (offsets 0-<k> checked, <c> classes)', 'not applicable' or 'not checked', with k + 1 "
          "one of 8, 16, 32, 64";
  if (text == "not checked") return result;
  if (text == "not applicable") {
    result.verdict = AlignmentVerdict::not_applicable;
    return result;
  }
  std::string_view rest;
  if (text.starts_with("independent (")) {
    result.verdict = AlignmentVerdict::independent;
    rest = text.substr(13);
  } else if (text.starts_with("dependent (")) {
    result.verdict = AlignmentVerdict::dependent;
    rest = text.substr(11);
  } else {
    return std::nullopt;
  }
  if (!rest.starts_with("offsets 0-") || !rest.ends_with(")")) return std::nullopt;
  rest = rest.substr(10, rest.size() - 11);
  const std::size_t space = rest.find(' ');
  const auto last = parse_number(rest.substr(0, space));
  if (!last || (*last + 1 != 8 && *last + 1 != 16 && *last + 1 != 32 && *last + 1 != 64) ||
      space == std::string_view::npos)
    return std::nullopt;
  result.offsets = *last + 1;
  rest = rest.substr(space);
  if (rest.starts_with(" and ld+1")) {
    result.padded = true;
    rest = rest.substr(9);
  }
  if (result.verdict == AlignmentVerdict::independent) {
    if (rest != " checked") return std::nullopt;
    return result;
  }
  if (!rest.starts_with(" checked, ") || !rest.ends_with(" classes")) return std::nullopt;
  const auto count = parse_number(rest.substr(10, rest.size() - 10 - 8));
  if (!count || *count < 2 || *count > result.offsets + (result.padded ? 1 : 0)) {
    error = "a dependent alignment has 2 to " + std::to_string(result.offsets + (result.padded ? 1 : 0)) +
            " classes (one per placement at most)";
    return std::nullopt;
  }
  classes = *count;
  return result;
}

std::string placements_text(const Placements& placements) {
  std::string out;
  std::size_t k = 0;
  const auto& offsets = placements.offsets;
  while (k < offsets.size()) {  // runs of consecutive offsets as a-b
    std::size_t end = k;
    while (end + 1 < offsets.size() && offsets[end + 1] == offsets[end] + 1) ++end;
    if (!out.empty()) out += ',';
    out += std::to_string(offsets[k]);
    if (end > k) {
      out += '-';
      out += std::to_string(offsets[end]);
    }
    k = end + 1;
  }
  if (placements.padded) {
    if (!out.empty()) out += ',';
    out += kPadded;
  }
  return out;
}

std::optional<Placements> parse_placements(std::string_view text, std::size_t offsets, bool padded,
                                           std::string& error) {
  Placements out;
  const std::string hint = " (offsets are written 'a' or 'a-b' with a < b, ascending, not touching, "
                           "separated by ',', below " + std::to_string(offsets) + ", then ',ld+1' where "
                           "padded leading dimensions were checked)";
  if (text.empty()) {
    error = "no placements" + hint;
    return std::nullopt;
  }
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    if (item == kPadded) {
      if (!padded || comma != std::string_view::npos) {
        error = padded ? "'ld+1' must come last" + hint : "'ld+1' where padded leading dimensions were not checked";
        return std::nullopt;
      }
      out.padded = true;
      return out;
    }
    const std::size_t dash = item.find('-');
    const auto first = parse_number(item.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : parse_number(item.substr(dash + 1));
    if (!first || !last || (dash != std::string_view::npos && *last <= *first) || *last >= offsets ||
        (!out.offsets.empty() && *first <= out.offsets.back() + 1)) {
      error = "malformed placements '" + std::string(text.substr(0, 64)) + "'" + hint;
      return std::nullopt;
    }
    for (std::size_t o = *first; o <= *last; ++o) out.offsets.push_back(o);
    if (comma == std::string_view::npos) return out;
    text.remove_prefix(comma + 1);
  }
}

bool same_alignment(const AlignmentResult& a, const AlignmentResult& b) {
  if (a.verdict != b.verdict || a.offsets != b.offsets || a.padded != b.padded ||
      a.classes.size() != b.classes.size())
    return false;
  for (std::size_t k = 0; k < a.classes.size(); ++k)
    if (!(a.classes[k].placements == b.classes[k].placements) || a.classes[k].map.grid != b.classes[k].map.grid ||
        !same_orders(a.classes[k].map, b.classes[k].map))
      return false;
  return true;
}

}  // namespace fprev
