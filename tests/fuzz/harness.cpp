// Checks shared by the fuzz harnesses (harness.hpp).
#include "harness.hpp"

#include <string>

namespace fprev::fuzz {
namespace {

bool valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2
                                     : lead >= 0xe0 && lead <= 0xef     ? 3
                                     : lead >= 0xf0 && lead <= 0xf4     ? 4
                                                                        : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    i += length;
  }
  return true;
}

}  // namespace

void require_bounded_message(std::string_view message, std::size_t max_bytes) {
  require(message.size() <= max_bytes,
          "an error message is longer than " + std::to_string(max_bytes) + " bytes", message);
  require(valid_utf8(message), "an error message is not valid UTF-8", message);
}

}  // namespace fprev::fuzz
