// Fingerprints as data: the digest, canonical hexadecimal outputs, the distance in ulps and the
// comparison check reports.
#include <charconv>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "fprev/fingerprint.hpp"

namespace fprev {
namespace {

std::uint64_t bits_of(double x) {
  if (std::isnan(x)) return 0x7ff8000000000000ULL;  // one NaN: payloads and signs vary by CPU
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof x);
  return bits;
}

bool same_bits(double x, double y) { return bits_of(x) == bits_of(y); }

__extension__ using Int128 = __int128;

// Position of x among the values of `format`, monotone in x (with -0 and +0 both at 0).
std::optional<Int128> ordinal(double x, Format format) {
  if (!std::isfinite(x)) return std::nullopt;
  const FormatInfo& info = format_info(format);
  if (x == 0.0) return 0;
  const int p = info.precision;
  const int e = std::max(std::ilogb(x), info.min_exponent);
  // x = m * 2^(e - p + 1) with the integer m < 2^p; every binade above the subnormals holds 2^(p-1)
  // values, the subnormals 2^(p-1) as well.
  const double m = std::fabs(std::ldexp(x, -(e - (p - 1))));
  if (m != std::trunc(m)) return std::nullopt;  // not a value of the format
  const Int128 binade = e - info.min_exponent;
  const Int128 position = binade * (Int128{1} << (p - 1)) + static_cast<Int128>(m);
  return x < 0 ? -position : position;
}

}  // namespace

std::size_t Fingerprint::input_count() const {
  std::size_t count = 0;
  for (const auto& [name, values] : outputs) count += values.size();
  return count;
}

bool operator==(const Fingerprint& a, const Fingerprint& b) {
  if (a.facts != b.facts || a.model != b.model || a.outputs.size() != b.outputs.size()) return false;
  for (auto x = a.outputs.begin(), y = b.outputs.begin(); x != a.outputs.end(); ++x, ++y) {
    if (x->first != y->first || x->second.size() != y->second.size()) return false;
    for (std::size_t i = 0; i < x->second.size(); ++i)
      if (bits_of(x->second[i]) != bits_of(y->second[i])) return false;
  }
  return true;
}

std::string Fingerprint::digest() const {
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a, 64 bits
  for (const auto& [name, values] : outputs)
    for (double v : values) {
      const std::uint64_t bits = bits_of(v);
      for (int byte = 0; byte < 8; ++byte) {
        hash ^= (bits >> (8 * byte)) & 0xff;
        hash *= 0x100000001b3ULL;
      }
    }
  char text[17];
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) text[i] = kHex[(hash >> (60 - 4 * i)) & 0xf];
  text[16] = '\0';
  return text;
}

std::string hex_double(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  std::string out = std::signbit(value) ? "-" : "";
  if (value == 0.0) return out + "0x0p+0";
  int exponent = std::ilogb(value);
  // Normalised significand 1.f for every finite value, subnormals included: 52 fraction bits.
  const double significand = std::fabs(std::ldexp(value, -exponent));  // in [1, 2)
  auto fraction = static_cast<std::uint64_t>(std::ldexp(significand - 1.0, 52));
  out += "0x1";
  if (fraction != 0) {
    out += '.';
    static constexpr char kHex[] = "0123456789abcdef";
    for (int shift = 48; shift >= 0 && fraction != 0; shift -= 4) {
      out += kHex[(fraction >> shift) & 0xf];
      fraction &= (std::uint64_t{1} << shift) - 1;
    }
  }
  out += 'p';
  out += exponent < 0 ? '-' : '+';
  out += std::to_string(std::abs(exponent));
  return out;
}

std::optional<double> parse_hex_double(std::string_view text) {
  if (text == "nan") return std::nan("");
  if (text == "inf") return INFINITY;
  if (text == "-inf") return -INFINITY;
  bool negative = false;
  if (!text.empty() && text.front() == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  if (!text.starts_with("0x")) return std::nullopt;
  text.remove_prefix(2);
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value,
                                            std::chars_format::hex);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  const double result = negative ? -value : value;
  if (hex_double(result) != (negative ? "-0x" : "0x") + std::string(text)) return std::nullopt;  // canonical only
  return result;
}

std::optional<double> ulp_distance(double a, double b, Format format) {
  const auto x = ordinal(a, format), y = ordinal(b, format);
  if (!x || !y) return std::nullopt;
  return static_cast<double>(*x > *y ? *x - *y : *y - *x);
}

FingerprintComparison compare_fingerprints(const Fingerprint& golden, const Fingerprint& now,
                                           Format output) {
  FingerprintComparison c;
  if (golden.outputs.size() != now.outputs.size()) c.inputs_comparable = false;
  for (const auto& [name, old_values] : golden.outputs) {
    const auto it = now.outputs.find(name);
    if (it == now.outputs.end() || it->second.size() != old_values.size()) {
      c.inputs_comparable = false;
      continue;
    }
    for (std::size_t row = 0; row < old_values.size(); ++row) {
      ++c.inputs;
      if (same_bits(old_values[row], it->second[row])) continue;
      if (c.differing_outputs++ == 0) {
        c.first_set = name;
        c.first_row = row;
        c.golden_output = old_values[row];
        c.new_output = it->second[row];
        c.ulps = ulp_distance(old_values[row], it->second[row], output);
      }
    }
  }
  std::map<std::string, std::string> all;
  for (const auto& [name, value] : golden.facts) all[name];
  for (const auto& [name, value] : now.facts) all[name];
  for (const auto& [name, unused] : all) {
    const auto old_it = golden.facts.find(name);
    const auto new_it = now.facts.find(name);
    // "uniformity" is written only where a class's elements compute otherwise than its reference
    // element (fingerprint_uniformity.hpp): without it they computed alike.
    const bool absent_is_alike = name == "uniformity";
    const std::string before =
        old_it != golden.facts.end() ? old_it->second : absent_is_alike ? "every element alike" : "(not recorded)";
    const std::string after =
        new_it != now.facts.end() ? new_it->second : absent_is_alike ? "every element alike" : "(not measured)";
    if (before != after) c.changed_facts.push_back(name + ": " + before + " -> " + after);
  }
  return c;
}

std::string FingerprintComparison::summary() const {
  std::ostringstream os;
  if (!inputs_comparable) os << "the fingerprint's input sets differ from the golden's (another tool version?); ";
  if (differing_outputs == 0) {
    os << "outputs bitwise equal on all " << inputs << " inputs";
  } else {
    os << "outputs differ bitwise on " << differing_outputs << " of " << inputs << " inputs (first: "
       << first_set << "[" << first_row << "] " << hex_double(golden_output) << " -> "
       << hex_double(new_output);
    if (ulps) os << ", " << std::fixed << std::setprecision(0) << *ulps << std::defaultfloat << " ulp" << (*ulps == 1 ? "" : "s");
    os << ")";
  }
  if (changed_facts.empty()) {
    if (differing_outputs != 0)
      os << "; no measured arithmetic fact changed, so the measured facts do not explain the difference";
  } else {
    for (const std::string& fact : changed_facts) os << "; " << fact;
  }
  return os.str();
}

}  // namespace fprev
