// Small formatting helpers shared by the sub-commands.
#pragma once

#include <cstdint>
#include <string>

#include "fprev/backend.hpp"
#include "fprev/reveal.hpp"

namespace fprev::cli {

std::string arity_text(const Tree& tree);  // "2:1023" or "5:1, 17:3"
std::uint64_t parse_count(const std::string& text, const std::string& what);  // UsageError if bad
std::string reveal_json(const TargetInfo& info, const Identity& identity, const RevealResult& result);

}  // namespace fprev::cli
