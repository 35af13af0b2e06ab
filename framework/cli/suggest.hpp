// "did you mean --suite?": the closest of the names a command takes to a word it refused, for
// the messages about unknown options and commands.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fprev::cli {

// The optimal string alignment distance (Levenshtein plus the swap of two neighbours: "--suiet").
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a typo (at most a third of the
// word's letters wrong, at least one; a candidate that starts with the word, "--sui" for
// "--suite", counts too); nullopt when none is, or when two are equally close.
std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean --suite?)" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace fprev::cli
