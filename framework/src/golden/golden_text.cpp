// The golden text format: canonical writer and strict parser (format described in golden.hpp).
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "fprev/golden.hpp"
#include "fprev/sexpr.hpp"
#include "text/text_checks.hpp"

namespace fprev {
namespace {

constexpr std::string_view kMagicPrefix = "# fprev-golden tree v";
constexpr std::string_view kNodesMarker =
    "# nodes: n<a>.<k> is the inner node whose smallest leaf is a and which has k leaves";
constexpr std::string_view kEndMarker = "# end";
constexpr std::size_t kMaxSexprLine = 200;  // longer trees are readable from the node lines only

// Metadata keys in the order they are written. Every one is written, even when empty.
enum class Key { suite, case_id, backend, platform, library, library_version,
                 library_configuration, tool_version, created, leaves, inner_nodes, depth, arity,
                 sexpr };
struct KeySpec {
  Key key;
  std::string_view name;
  bool may_be_empty;
};
constexpr KeySpec kKeys[] = {
    {Key::suite, "suite", false},
    {Key::case_id, "case", false},
    {Key::backend, "backend", false},
    {Key::platform, "platform", false},
    {Key::library, "library", false},
    {Key::library_version, "library-version", true},
    {Key::library_configuration, "library-configuration", true},
    {Key::tool_version, "tool-version", false},
    {Key::created, "created", false},
    {Key::leaves, "leaves", false},
    {Key::inner_nodes, "inner-nodes", false},
    {Key::depth, "depth", false},
    {Key::arity, "arity", false},
    {Key::sexpr, "sexpr", false},  // required only for small trees (see kMaxSexprLine)
};
constexpr std::string_view kExtraPrefix = "extra.";
constexpr std::string_view kFingerprintPrefix = "fingerprint.";

std::string allowed_keys() {
  std::string out;
  for (const auto& spec : kKeys) {
    out += spec.name;
    out += ", ";
  }
  out += "extra.<name>, fingerprint.digest, fingerprint.model, fingerprint.fact.<name>, "
         "fingerprint.outputs.<set>";
  return out;
}

bool is_extra_key_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int two_digits(std::string_view text, std::size_t at) {
  return (text[at] - '0') * 10 + (text[at + 1] - '0');
}

// "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SSZ" with plausible field ranges.
bool is_iso_utc_date(std::string_view text) {
  if (text.size() != 10 && text.size() != 20) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool digit = c >= '0' && c <= '9';
    switch (i) {
      case 4: case 7: if (c != '-') return false; break;
      case 10: if (c != 'T') return false; break;
      case 13: case 16: if (c != ':') return false; break;
      case 19: if (c != 'Z') return false; break;
      default: if (!digit) return false;
    }
  }
  const int month = two_digits(text, 5);
  const int day = two_digits(text, 8);
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  if (text.size() == 20) {
    if (two_digits(text, 11) > 23 || two_digits(text, 14) > 59 || two_digits(text, 17) > 60)
      return false;
  }
  return true;
}

// Strict unsigned decimal: no sign, no leading zeros, fits in 32 bits below kNoNode.
std::optional<std::uint32_t> parse_index(std::string_view text) {
  if (!all_digits(text) || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  std::uint64_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || value >= kNoNode) return std::nullopt;
  return static_cast<std::uint32_t>(value);
}

// ---- value escaping -----------------------------------------------------------------------------

std::string escape_value(std::string_view value) {
  std::string out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (const std::size_t length = c >= 0x80 ? detail::utf8_sequence_length(value, i) : 0;
               length > 1) {
      out.append(value.substr(i, length));  // valid UTF-8 is written as it is
      i += length - 1;
    } else if (c < 0x20 || c >= 0x7f || (c == ' ' && (i == 0 || i + 1 == value.size()))) {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Unescapes; returns an error message or the value.
std::optional<std::string> unescape_value(std::string_view raw, std::string& error) {
  if (!raw.empty() && (raw.front() == ' ' || raw.back() == ' ')) {
    error = "value has a leading or trailing space (write it as \\x20)";
    return std::nullopt;
  }
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if (c < 0x20 || c == 0x7f) {
      error = "raw control character in value (write it as \\xHH)";
      return std::nullopt;
    }
    if (c != '\\') {
      out += static_cast<char>(c);
      continue;
    }
    if (i + 1 >= raw.size()) {
      error = "value ends with a lone backslash";
      return std::nullopt;
    }
    const char e = raw[++i];
    if (e == '\\') {
      out += '\\';
    } else if (e == 'n') {
      out += '\n';
    } else if (e == 't') {
      out += '\t';
    } else if (e == 'r') {
      out += '\r';
    } else if (e == 'x' && i + 2 < raw.size() && hex_digit(raw[i + 1]) >= 0 &&
               hex_digit(raw[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(raw[i + 1]) * 16 + hex_digit(raw[i + 2]));
      i += 2;
    } else {
      error = "unknown escape " + quoted_excerpt(raw.substr(i - 1, 2)) +
              " (allowed: \\\\ \\n \\t \\r \\xHH)";
      return std::nullopt;
    }
  }
  return out;
}

// ---- derived tree facts -------------------------------------------------------------------------

std::string node_name(const Tree& tree, NodeId node) {
  if (tree.is_leaf(node)) return std::to_string(node);
  return "n" + std::to_string(tree.smallest_leaf(node)) + "." + std::to_string(tree.leaves_under(node));
}

std::string node_line(const Tree& tree, NodeId node) {
  std::string line = node_name(tree, node) + " = (";
  bool first = true;
  for (NodeId child : tree.children(node)) {
    if (!first) line += ' ';
    first = false;
    line += node_name(tree, child);
  }
  line += ')';
  return line;
}

std::string arity_text(const Tree& tree) {
  const auto histogram = tree.arity_histogram();
  if (histogram.empty()) return "none";
  std::string out;
  for (const auto& [arity, count] : histogram) {
    if (!out.empty()) out += ' ';
    out += std::to_string(arity) + ":" + std::to_string(count);
  }
  return out;
}

// The one-line S-expression when it is short enough to be worth a line, else nullopt.
std::optional<std::string> short_sexpr(const Tree& tree) {
  // At least one character per leaf, so a tree with more leaves can never fit.
  if (tree.leaf_count() > kMaxSexprLine) return std::nullopt;
  std::string text = to_sexpr(tree);
  if (text.size() > kMaxSexprLine) return std::nullopt;
  return text;
}

std::string metadata_problem(const GoldenMetadata& meta) {
  if (meta.format_version != kGoldenFormatVersion)
    return "format_version " + std::to_string(meta.format_version) + " cannot be written (only " +
           std::to_string(kGoldenFormatVersion) + ")";
  const std::pair<std::string_view, const std::string*> components[] = {
      {"suite", &meta.suite}, {"case", &meta.case_id}, {"backend", &meta.backend},
      {"platform", &meta.platform_key}};
  for (const auto& [name, value] : components)
    if (!is_safe_component(*value))
      return std::string(name) + " '" + *value +
             "' is not file-name safe (1..128 of [A-Za-z0-9._+-], not starting with '.' or '-')";
  if (meta.library.empty()) return "library is empty";
  if (meta.tool_version.empty()) return "tool-version is empty";
  if (!is_iso_utc_date(meta.created))
    return "created '" + meta.created +
           "' is not an ISO-8601 UTC date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)";
  for (const auto& [key, value] : meta.extra)
    if (!is_extra_key_name(key))
      return "extra key '" + key + "' must be 1..64 of [A-Za-z0-9._-]";
  return {};
}

void append_key(std::string& out, std::string_view key, std::string_view value) {
  out += key;
  out += ':';
  if (!value.empty()) {
    out += ' ';
    out += escape_value(value);
  }
  out += '\n';
}

}  // namespace

namespace {

void append_fingerprint(std::string& out, const Fingerprint& fingerprint) {
  append_key(out, "fingerprint.digest", fingerprint.digest());
  for (const auto& [name, value] : fingerprint.facts) {
    if (!is_extra_key_name(name)) throw GoldenIoError("cannot write golden: fact name '" + name + "'");
    append_key(out, "fingerprint.fact." + name, value);
  }
  append_key(out, "fingerprint.model", fingerprint.model);
  for (const auto& [set, values] : fingerprint.outputs) {
    if (!is_extra_key_name(set)) throw GoldenIoError("cannot write golden: input set name '" + set + "'");
    std::string line;
    for (double v : values) {
      if (!line.empty()) line += ' ';
      line += hex_double(v);
    }
    append_key(out, "fingerprint.outputs." + set, line);
  }
}

}  // namespace

GoldenParseError::GoldenParseError(std::string path, std::size_t line, std::string message)
    : std::runtime_error(format_position(SourcePosition::at_line(path, line)) + ": " + message),
      where_(SourcePosition::at_line(std::move(path), line)),
      message_(std::move(message)) {}

std::string write_golden_text(const Golden& golden) {
  const auto& meta = golden.meta;
  if (const std::string problem = metadata_problem(meta); !problem.empty())
    throw GoldenIoError("cannot write golden: " + problem);
  const Tree& tree = golden.tree;
  if (tree.empty()) throw GoldenIoError("cannot write golden: the tree has no leaves");

  std::string out;
  out.reserve(64 * tree.node_count() + 512);
  out += kMagicPrefix;
  out += std::to_string(kGoldenFormatVersion);
  out += '\n';
  append_key(out, "suite", meta.suite);
  append_key(out, "case", meta.case_id);
  append_key(out, "backend", meta.backend);
  append_key(out, "platform", meta.platform_key);
  append_key(out, "library", meta.library);
  append_key(out, "library-version", meta.library_version);
  append_key(out, "library-configuration", meta.library_configuration);
  append_key(out, "tool-version", meta.tool_version);
  append_key(out, "created", meta.created);
  for (const auto& [key, value] : meta.extra) append_key(out, std::string(kExtraPrefix) + key, value);
  if (golden.fingerprint) append_fingerprint(out, *golden.fingerprint);
  append_key(out, "leaves", std::to_string(tree.leaf_count()));
  append_key(out, "inner-nodes", std::to_string(tree.inner_count()));
  append_key(out, "depth", std::to_string(tree.depth()));
  append_key(out, "arity", arity_text(tree));
  if (const auto sexpr = short_sexpr(tree)) append_key(out, "sexpr", *sexpr);
  out += kNodesMarker;
  out += '\n';
  for (NodeId node = static_cast<NodeId>(tree.leaf_count()); node < tree.node_count(); ++node) {
    out += node_line(tree, node);
    out += '\n';
  }
  out += kEndMarker;
  out += '\n';
  return out;
}

namespace {

// Splits the text into lines, enforcing LF endings and a final newline.
class LineReader {
 public:
  LineReader(std::string_view text, std::string path) : text_(text), path_(std::move(path)) {}

  // The next line without its '\n', or nullopt at the end of the text.
  // Lines are at most kMaxGoldenLineBytes long and valid UTF-8.
  std::optional<std::string_view> next() {
    if (pos_ >= text_.size()) return std::nullopt;
    ++line_;
    // Look for the end of the line only as far as a line may reach.
    const std::size_t end = text_.substr(0, pos_ + kMaxGoldenLineBytes + 1).find('\n', pos_);
    if (end == std::string_view::npos) {
      if (text_.size() - pos_ > kMaxGoldenLineBytes) {
        const std::string_view line = text_.substr(pos_, text_.find('\n', pos_) - pos_);
        fail("the line is longer than " + detail::with_thousands_separators(kMaxGoldenLineBytes) +
             " bytes, the most a golden line may have: " + quoted_excerpt(line));
      }
      fail("the last line has no newline: the file is truncated");
    }
    std::string_view line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    if (!line.empty() && line.back() == '\r')
      fail("line ends with CR: golden files use LF line endings (add '*.golden -text' or "
           "'eol=lf' to .gitattributes)");
    if (const auto bad = detail::first_invalid_utf8(line))
      fail("byte " + std::to_string(*bad + 1) + " of the line is not valid UTF-8: " +
           quoted_excerpt(line.substr(*bad > 16 ? *bad - 16 : 0, 32)));
    return line;
  }
  std::size_t line() const { return line_; }
  std::string_view rest() const { return text_.substr(pos_); }
  [[noreturn]] void fail(std::string message) const {
    throw GoldenParseError(path_, line_, std::move(message));
  }
  [[noreturn]] void fail_at(std::size_t line, std::string message) const {
    throw GoldenParseError(path_, line, std::move(message));
  }

 private:
  std::string_view text_;
  std::string path_;
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
};

struct HeaderValue {
  std::string value;
  std::size_t line = 0;
};

void parse_magic(LineReader& reader) {
  const auto first = reader.next();
  const std::string expected = std::string(kMagicPrefix) + std::to_string(kGoldenFormatVersion);
  if (!first) reader.fail_at(1, "empty file: expected '" + expected + "'");
  if (first->substr(0, kMagicPrefix.size()) != kMagicPrefix)
    reader.fail("not a fprev-golden file: the first line must be '" + expected + "'");
  const std::string_view version = first->substr(kMagicPrefix.size());
  if (!all_digits(version))
    reader.fail("malformed format line " + quoted_excerpt(*first) + ": expected '" + expected + "'");
  if (version != std::to_string(kGoldenFormatVersion))
    reader.fail("unsupported golden format version " + detail::bounded_number_text(version) +
                "; this fprev-golden reads version " + std::to_string(kGoldenFormatVersion));
}

// Reads `key: value` lines up to the nodes marker.
// fingerprint.* lines into `fingerprint` (the digest is checked by the caller).
void parse_fingerprint_line(LineReader& reader, std::string_view name, const std::string& value,
                            std::optional<Fingerprint>& fingerprint, std::string& digest) {
  if (!fingerprint) fingerprint.emplace();
  const auto suffix = [&](std::string_view prefix) -> std::optional<std::string> {
    if (!name.starts_with(prefix)) return std::nullopt;
    const std::string rest(name.substr(prefix.size()));
    if (!is_extra_key_name(rest)) reader.fail("malformed key 'fingerprint." + std::string(name) + "'");
    return rest;
  };
  if (name == "digest") {
    digest = value;
  } else if (name == "model") {
    fingerprint->model = value;
  } else if (const auto fact = suffix("fact.")) {
    fingerprint->facts[*fact] = value;
  } else if (const auto set = suffix("outputs.")) {
    std::vector<double>& outputs = fingerprint->outputs[*set];
    std::string_view rest = value;
    while (!rest.empty()) {
      const std::size_t space = rest.find(' ');
      const std::string_view token = rest.substr(0, space);
      const auto parsed = parse_hex_double(token);
      if (!parsed)
        reader.fail("fingerprint output '" + std::string(token) +
                    "' is not a canonical hexadecimal float (e.g. 0x1.8p+3, -0x0p+0, inf, nan)");
      outputs.push_back(*parsed);
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    }
  } else {
    reader.fail("unknown key 'fingerprint." + std::string(name) +
                "'; allowed: fingerprint.digest, fingerprint.model, fingerprint.fact.<name>, "
                "fingerprint.outputs.<set>");
  }
}

void parse_header(LineReader& reader, std::map<Key, HeaderValue>& values,
                  std::map<std::string, HeaderValue>& extra, std::optional<Fingerprint>& fingerprint,
                  HeaderValue& digest) {
  std::map<std::string, std::size_t, std::less<>> seen;  // key -> line
  while (true) {
    const auto line = reader.next();
    if (!line) reader.fail_at(reader.line() + 1, "missing '# nodes' line: the file is truncated");
    if (*line == kNodesMarker) return;
    if (line->empty()) reader.fail("unexpected empty line");
    if (line->front() == '#')
      reader.fail("unexpected comment line; expected 'key: value' or '" + std::string(kNodesMarker) +
                  "'");
    const std::size_t colon = line->find(':');
    if (colon == std::string_view::npos || colon == 0)
      reader.fail("malformed header line " + quoted_excerpt(*line) + ": expected 'key: value'");
    const std::string key(line->substr(0, colon));
    const std::string quoted_key = quoted_excerpt(key);
    std::string_view raw = line->substr(colon + 1);
    if (!raw.empty()) {
      if (raw.front() != ' ')
        reader.fail("malformed header line: expected a space after the ':' of key " + quoted_key);
      raw.remove_prefix(1);
      if (raw.empty()) reader.fail("key " + quoted_key + " has a space but no value (write 'key:')");
    }
    if (const auto it = seen.find(key); it != seen.end())
      reader.fail("duplicated key " + quoted_key + " (first on line " + std::to_string(it->second) + ")");
    seen.emplace(key, reader.line());
    std::string error;
    auto value = unescape_value(raw, error);
    if (!value) reader.fail("key " + quoted_key + ": " + error);

    if (key.starts_with(kFingerprintPrefix)) {
      if (key == "fingerprint.digest") digest.line = reader.line();
      parse_fingerprint_line(reader, std::string_view(key).substr(kFingerprintPrefix.size()), *value,
                             fingerprint, digest.value);
      continue;
    }
    if (key.starts_with(kExtraPrefix)) {
      const std::string name = key.substr(kExtraPrefix.size());
      if (!is_extra_key_name(name))
        reader.fail("malformed extra key " + quoted_key + ": expected extra.<1..64 of [A-Za-z0-9._-]>");
      extra[name] = {std::move(*value), reader.line()};
      continue;
    }
    const auto spec = std::find_if(std::begin(kKeys), std::end(kKeys),
                                   [&](const KeySpec& s) { return s.name == key; });
    if (spec == std::end(kKeys))
      reader.fail("unknown key " + quoted_key + "; allowed keys: " + allowed_keys());
    if (value->empty() && !spec->may_be_empty) reader.fail("key " + quoted_key + " has an empty value");
    values[spec->key] = {std::move(*value), reader.line()};
  }
}

// An upper bound on the leaves the node lines from here to '# end' name: every leaf is a child on a
// node line, and a line "<name> = (<a> <b> ...)" has one more child than spaces inside its list.
std::size_t children_written(std::string_view rest) {
  std::size_t children = 0;
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    const std::string_view line = rest.substr(0, end);
    if (line == kEndMarker) break;
    if (const std::size_t list = line.find(" = ("); list != std::string_view::npos)
      children += 1 + static_cast<std::size_t>(std::count(line.begin() + static_cast<std::ptrdiff_t>(list + 4), line.end(), ' '));
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  return children;
}

// The `leaves` value, checked before anything is allocated for it: a whole number from 1 to
// kMaxTreeLeaves, and no more than the node lines below name.
std::size_t checked_leaf_count(LineReader& reader, const HeaderValue& written) {
  const std::string_view text = written.value;
  std::uint64_t value = 0;
  const bool digits = all_digits(text) && (text.size() == 1 || text[0] != '0');
  for (const char c : digits ? text : std::string_view())
    value = std::min<std::uint64_t>(value * 10 + static_cast<std::uint64_t>(c - '0'), std::uint64_t{1} << 40);
  if (!digits || value == 0)
    reader.fail_at(written.line, "leaves must be a positive whole number, got " + quoted_excerpt(text));
  if (value > kMaxTreeLeaves)
    reader.fail_at(written.line,
                   "leaves is " + detail::bounded_number_text(text) + ", more than the " +
                       detail::with_thousands_separators(kMaxTreeLeaves) +
                       " leaves a tree can have (its node ids are 32-bit)");
  if (value > 1) {
    const std::size_t named = children_written(reader.rest());
    if (value > named)
      reader.fail_at(written.line, "leaves is " + detail::bounded_number_text(text) +
                                       " but the node lines name at most " +
                                       detail::with_thousands_separators(named) +
                                       " children (file truncated?)");
  }
  return static_cast<std::size_t>(value);
}

// Builder-local facts about a node defined by a node line.
struct ParsedNode {
  NodeId builder_id;
  std::uint32_t smallest_leaf;
  std::uint32_t leaves;
  std::size_t line;
};

std::uint64_t name_key(std::uint32_t smallest_leaf, std::uint32_t leaves) {
  return (static_cast<std::uint64_t>(smallest_leaf) << 32) | leaves;
}

// "n<a>.<k>" -> (a, k)
std::optional<std::pair<std::uint32_t, std::uint32_t>> parse_node_name(std::string_view token) {
  if (token.size() < 4 || token[0] != 'n') return std::nullopt;
  const std::size_t dot = token.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto a = parse_index(token.substr(1, dot - 1));
  const auto k = parse_index(token.substr(dot + 1));
  if (!a || !k) return std::nullopt;
  return std::pair{*a, *k};
}

class NodeParser {
 public:
  NodeParser(LineReader& reader, std::size_t leaf_count)
      : reader_(reader), n_(leaf_count), builder_(leaf_count), leaf_used_(leaf_count, false) {}

  void parse_line(std::string_view line) {
    constexpr std::string_view kSyntax = "expected 'n<a>.<k> = (<child> <child> ...)'";
    const std::size_t equals = line.find(" = (");
    if (equals == std::string_view::npos || line.back() != ')')
      reader_.fail("malformed node line " + quoted_excerpt(line) + ": " + std::string(kSyntax));
    const std::string_view name = line.substr(0, equals);
    const auto declared = parse_node_name(name);
    if (!declared)
      reader_.fail("malformed node name " + quoted_excerpt(name) + ": " + std::string(kSyntax));
    if (const auto it = by_name_.find(name_key(declared->first, declared->second));
        it != by_name_.end())
      reader_.fail("node " + std::string(name) + " is defined twice (first on line " +
                   std::to_string(nodes_[it->second].line) + ")");
    if (nodes_.size() + 1 > (n_ > 0 ? n_ - 1 : 0))
      reader_.fail("more inner nodes than a tree with " + std::to_string(n_) + " leaves can have");

    std::string_view list = line.substr(equals + 4, line.size() - equals - 5);
    std::vector<NodeId> children;
    std::vector<NodeId> inner_children;
    std::uint32_t smallest = kNoNode;
    std::uint32_t leaves = 0;
    std::uint32_t previous_smallest = 0;
    while (true) {
      const std::size_t space = list.find(' ');
      const std::string_view token = list.substr(0, space);
      if (token.empty())
        reader_.fail("malformed child list in " + quoted_excerpt(line) +
                     ": children are separated by single spaces");
      const auto [child, child_smallest, child_leaves, child_is_inner] = resolve_child(token);
      if (child_is_inner) inner_children.push_back(child);
      if (!children.empty() && child_smallest <= previous_smallest)
        reader_.fail("children of " + std::string(name) +
                     " are not ordered by their smallest leaf (canonical order)");
      previous_smallest = child_smallest;
      smallest = std::min(smallest, child_smallest);
      leaves += child_leaves;
      children.push_back(child);
      if (space == std::string_view::npos) break;
      list.remove_prefix(space + 1);
    }
    if (children.size() < 2) reader_.fail("node " + std::string(name) + " has fewer than two children");
    if (smallest != declared->first || leaves != declared->second)
      reader_.fail("node name " + std::string(name) + " does not match its children (smallest leaf " +
                   std::to_string(smallest) + ", " + std::to_string(leaves) + " leaves: expected n" +
                   std::to_string(smallest) + "." + std::to_string(leaves) + ")");
    NodeId id = kNoNode;
    try {
      id = builder_.add_node(children);
    } catch (const TreeError& error) {
      reader_.fail(std::string("invalid node: ") + error.what());
    }
    by_name_.emplace(name_key(smallest, leaves), nodes_.size());
    nodes_.push_back({id, smallest, leaves, reader_.line()});
    used_inner_.insert(inner_children.begin(), inner_children.end());
  }

  Tree finish(std::size_t end_line) {
    for (std::size_t leaf = 0; leaf < n_ && n_ > 1; ++leaf)
      if (!leaf_used_[leaf])
        reader_.fail_at(end_line, "leaf " + std::to_string(leaf) + " is not a child of any node");
    if (n_ > 1) {
      std::size_t roots = 0;
      for (const auto& node : nodes_)
        if (!used_inner_.contains(node.builder_id)) ++roots;
      if (roots != 1)
        reader_.fail_at(end_line, "the nodes form " + std::to_string(roots) +
                                      " separate trees instead of one");
    }
    try {
      return builder_.build();
    } catch (const TreeError& error) {
      reader_.fail_at(end_line, std::string("the nodes do not form a valid tree: ") + error.what());
    }
  }

  const std::vector<ParsedNode>& nodes() const { return nodes_; }

 private:
  struct Child {
    NodeId id;
    std::uint32_t smallest_leaf;
    std::uint32_t leaves;
    bool inner;
  };

  Child resolve_child(std::string_view token) {
    if (token.front() == 'n') {
      const auto name = parse_node_name(token);
      if (!name) reader_.fail("malformed child " + quoted_excerpt(token));
      const auto it = by_name_.find(name_key(name->first, name->second));
      if (it == by_name_.end())
        reader_.fail("child " + std::string(token) +
                     " is not defined on an earlier line (children come before parents)");
      const ParsedNode& node = nodes_[it->second];
      if (used_inner_.contains(node.builder_id))
        reader_.fail("node " + std::string(token) + " is a child of two nodes");
      return {node.builder_id, node.smallest_leaf, node.leaves, true};
    }
    const auto leaf = parse_index(token);
    if (!leaf) reader_.fail("malformed child " + quoted_excerpt(token));
    if (*leaf >= n_)
      reader_.fail("leaf " + std::string(token) + " out of range (leaves: " + std::to_string(n_) + ")");
    if (leaf_used_[*leaf]) reader_.fail("leaf " + std::string(token) + " is a child of two nodes");
    leaf_used_[*leaf] = true;
    return {*leaf, *leaf, 1, false};
  }

  LineReader& reader_;
  std::size_t n_;
  TreeBuilder builder_;
  std::vector<bool> leaf_used_;
  std::unordered_set<NodeId> used_inner_;  // builder ids of inner nodes that have a parent
  std::unordered_map<std::uint64_t, std::size_t> by_name_;  // name -> index into nodes_
  std::vector<ParsedNode> nodes_;
};

}  // namespace

Golden parse_golden_text(std::string_view text, std::string_view path) {
  LineReader reader(text, std::string(path));
  parse_magic(reader);
  std::map<Key, HeaderValue> values;
  std::map<std::string, HeaderValue> extra;
  std::optional<Fingerprint> fingerprint;
  HeaderValue digest;
  parse_header(reader, values, extra, fingerprint, digest);
  const std::size_t marker_line = reader.line();
  if (fingerprint) {
    if (digest.line == 0) reader.fail_at(marker_line, "missing key 'fingerprint.digest'");
    if (fingerprint->outputs.empty()) reader.fail_at(marker_line, "missing key 'fingerprint.outputs.<set>'");
    if (digest.value != fingerprint->digest())
      reader.fail_at(digest.line, "fingerprint.digest is '" + digest.value + "' but the outputs give '" +
                                      fingerprint->digest() + "' (edited by hand?)");
  }

  for (const auto& spec : kKeys)
    if (spec.key != Key::sexpr && !values.contains(spec.key))
      reader.fail_at(marker_line, "missing key '" + std::string(spec.name) + "'");

  Golden golden;
  auto& meta = golden.meta;
  meta.suite = values[Key::suite].value;
  meta.case_id = values[Key::case_id].value;
  meta.backend = values[Key::backend].value;
  meta.platform_key = values[Key::platform].value;
  meta.library = values[Key::library].value;
  meta.library_version = values[Key::library_version].value;
  meta.library_configuration = values[Key::library_configuration].value;
  meta.tool_version = values[Key::tool_version].value;
  meta.created = values[Key::created].value;
  for (auto& [key, value] : extra) meta.extra[key] = std::move(value.value);
  golden.fingerprint = std::move(fingerprint);

  const std::pair<Key, const std::string*> components[] = {
      {Key::suite, &meta.suite}, {Key::case_id, &meta.case_id}, {Key::backend, &meta.backend},
      {Key::platform, &meta.platform_key}};
  for (const auto& [key, value] : components)
    if (!is_safe_component(*value))
      reader.fail_at(values[key].line, quoted_excerpt(*value) +
                                           " is not file-name safe (1..128 of [A-Za-z0-9._+-], "
                                           "not starting with '.' or '-')");
  if (!is_iso_utc_date(meta.created))
    reader.fail_at(values[Key::created].line,
                   "created " + quoted_excerpt(meta.created) +
                       " is not an ISO-8601 UTC date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)");
  const std::size_t leaves = checked_leaf_count(reader, values[Key::leaves]);
  NodeParser nodes(reader, leaves);
  std::size_t end_line = 0;
  while (const auto line = reader.next()) {
    if (*line == kEndMarker) {
      end_line = reader.line();
      break;
    }
    if (line->empty()) reader.fail("unexpected empty line");
    nodes.parse_line(*line);
  }
  if (end_line == 0)
    reader.fail_at(reader.line() + 1, "missing '# end' line: the file is truncated");
  if (reader.next()) reader.fail("content after the '# end' line");

  golden.tree = nodes.finish(end_line);
  const Tree& tree = golden.tree;

  // The node lines must be in canonical (post-order) order, so that re-writing gives the same bytes.
  const auto& parsed = nodes.nodes();
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    const NodeId node = static_cast<NodeId>(tree.leaf_count() + i);
    if (parsed[i].smallest_leaf != tree.smallest_leaf(node) || parsed[i].leaves != tree.leaves_under(node))
      reader.fail_at(parsed[i].line, "node lines are not in canonical order (children before "
                                     "parents, earlier subtrees first): expected " +
                                         detail::shorten_message(node_line(tree, node), 120) +
                                         " here");
  }

  // The derived lines must agree with the nodes.
  const auto check = [&](Key key, std::string_view name, const std::string& actual) {
    const HeaderValue& written = values[key];
    if (written.value != actual)
      reader.fail_at(written.line, std::string(name) + " is " + quoted_excerpt(written.value) +
                                       " but the nodes give " + quoted_excerpt(actual, 240));
  };
  check(Key::inner_nodes, "inner-nodes", std::to_string(tree.inner_count()));
  check(Key::depth, "depth", std::to_string(tree.depth()));
  check(Key::arity, "arity", arity_text(tree));
  const auto sexpr = short_sexpr(tree);
  if (sexpr && !values.contains(Key::sexpr))
    reader.fail_at(marker_line, "missing key 'sexpr' (written for trees whose S-expression has at "
                                "most " + std::to_string(kMaxSexprLine) + " characters)");
  if (!sexpr && values.contains(Key::sexpr))
    reader.fail_at(values[Key::sexpr].line,
                   "unexpected key 'sexpr' (only written for trees whose S-expression has at most " +
                       std::to_string(kMaxSexprLine) + " characters)");
  if (sexpr) check(Key::sexpr, "sexpr", *sexpr);
  return golden;
}

}  // namespace fprev
