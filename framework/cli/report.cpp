#include "report.hpp"

#include <charconv>
#include <sstream>

#include "args.hpp"
#include "fprev/sexpr.hpp"

namespace fprev::cli {
namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace

std::string arity_text(const Tree& tree) {
  std::ostringstream os;
  bool first = true;
  for (const auto& [arity, count] : tree.arity_histogram()) {
    os << (first ? "" : ", ") << arity << ":" << count;
    first = false;
  }
  return first ? "none (a single summand)" : os.str();
}

std::uint64_t parse_count(const std::string& text, const std::string& what) {
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
    throw UsageError(what + " must be a non-negative integer, got '" + text + "'");
  return value;
}

std::string reveal_json(const TargetInfo& info, const Identity& identity, const RevealResult& result) {
  const RevealStats& s = result.stats;
  std::ostringstream os;
  os.precision(9);
  os << "{\"target\": " << quote(info.description) << ", \"library\": " << quote(identity.library)
     << ", \"version\": " << quote(identity.version)
     << ", \"platform_key\": " << quote(identity.platform_key)
     << ", \"tree\": " << quote(to_sexpr(result.tree)) << ", \"leaves\": " << result.tree.leaf_count()
     << ", \"depth\": " << result.tree.depth() << ", \"arity\": {";
  bool first = true;
  for (const auto& [arity, count] : result.tree.arity_histogram()) {
    os << (first ? "" : ", ") << "\"" << arity << "\": " << count;
    first = false;
  }
  os << "}, \"stats\": {\"probes\": " << s.probes << ", \"target_calls\": " << s.target_calls
     << ", \"random_inputs\": " << s.value_inputs << ", \"target_seconds\": " << s.target_seconds
     << ", \"total_seconds\": " << s.total_seconds
     << ", \"low_range_mode\": " << (s.low_range_mode ? "true" : "false")
     << ", \"verified_probes\": " << s.verified_probes
     << ", \"simulated_inputs\": " << s.simulated_inputs << "}, \"mask_scheme\": "
     << quote(result.scheme.describe()) << "}";
  return os.str();
}

}  // namespace fprev::cli
