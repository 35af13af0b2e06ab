#include "golden/golden_fingerprint_text.hpp"

#include "fprev/source_position.hpp"

namespace fprev::detail {

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

bool FingerprintLines::take(GoldenLineReader& reader, const KeyLine& line) {
  if (!std::string_view(line.key).starts_with(kFingerprintPrefix)) return false;
  const std::string_view name = std::string_view(line.key).substr(kFingerprintPrefix.size());
  if (!fingerprint_) fingerprint_.emplace();
  const auto suffix = [&](std::string_view prefix) -> std::optional<std::string> {
    if (!name.starts_with(prefix)) return std::nullopt;
    const std::string rest(name.substr(prefix.size()));
    if (!is_extra_key_name(rest)) reader.fail_at(line.line, "malformed key " + quoted_excerpt("fingerprint." + std::string(name)));
    return rest;
  };
  if (name == "digest") {
    digest_ = line.value;
    digest_line_ = line.line;
  } else if (name == "model") {
    fingerprint_->model = line.value;
  } else if (const auto fact = suffix("fact.")) {
    fingerprint_->facts[*fact] = line.value;
  } else if (const auto set = suffix("outputs.")) {
    std::vector<double>& outputs = fingerprint_->outputs[*set];
    std::string_view rest = line.value;
    while (!rest.empty()) {
      const std::size_t space = rest.find(' ');
      const std::string_view token = rest.substr(0, space);
      const auto parsed = parse_hex_double(token);
      if (!parsed)
        reader.fail_at(line.line, "fingerprint output " + quoted_excerpt(token, 40) +
                                      " is not a canonical hexadecimal float (e.g. 0x1.8p+3, -0x0p+0, inf, nan)");
      outputs.push_back(*parsed);
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    }
  } else {
    reader.fail_at(line.line, "unknown key " + quoted_excerpt("fingerprint." + std::string(name)) +
                                  "; allowed: fingerprint.digest, fingerprint.model, fingerprint.fact.<name>, "
                                  "fingerprint.outputs.<set>");
  }
  return true;
}

std::optional<Fingerprint> FingerprintLines::finish(const GoldenLineReader& reader,
                                                    std::size_t block_end_line) const {
  if (!fingerprint_) return std::nullopt;
  if (digest_line_ == 0) reader.fail_at(block_end_line + 1, "missing key 'fingerprint.digest'");
  if (fingerprint_->outputs.empty())
    reader.fail_at(block_end_line + 1, "missing key 'fingerprint.outputs.<set>'");
  if (digest_ != fingerprint_->digest())
    reader.fail_at(digest_line_, "fingerprint.digest is " + quoted_excerpt(digest_) + " but the outputs give '" +
                                     fingerprint_->digest() + "' (edited by hand?)");
  return fingerprint_;
}

}  // namespace fprev::detail
