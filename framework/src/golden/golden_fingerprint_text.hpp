// The fingerprint lines of a golden (fprev/golden.hpp, docs/fingerprint.md): written with a tree or
// a class, read back strictly with the digest checked. Private to the golden layer.
#pragma once

#include <optional>
#include <string>

#include "fprev/fingerprint.hpp"
#include "golden/golden_lines.hpp"

namespace fprev::detail {

inline constexpr std::string_view kFingerprintPrefix = "fingerprint.";

void append_fingerprint(std::string& out, const Fingerprint& fingerprint);

// Collects the fingerprint.* lines of one key block.
class FingerprintLines {
 public:
  // Takes `line` when its key starts with "fingerprint." (failing on an unknown one); false otherwise.
  bool take(GoldenLineReader& reader, const KeyLine& line);
  // The fingerprint, or nullopt when the block had none. Fails when it is incomplete or its digest
  // does not match its outputs; `block_end_line` names where a missing key was expected.
  std::optional<Fingerprint> finish(const GoldenLineReader& reader, std::size_t block_end_line) const;

 private:
  std::optional<Fingerprint> fingerprint_;
  std::string digest_;
  std::size_t digest_line_ = 0;
};

}  // namespace fprev::detail
