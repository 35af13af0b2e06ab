// UTF-8 validation, bounded file reads and bounded messages (text_checks.hpp).
#include "text/text_checks.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace fprev::detail {

std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const std::size_t left = text.size() - at;
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80;  // the range of the second byte (Unicode Table 3-7)
  unsigned char high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;   // no overlong forms
    if (lead == 0xed) high = 0x9f;  // no UTF-16 surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;   // no overlong forms
    if (lead == 0xf4) high = 0x8f;  // nothing beyond U+10FFFF
  } else {
    return 0;  // a continuation byte, an overlong lead (c0, c1) or f5..ff
  }
  if (left < length || byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (byte(i) < 0x80 || byte(i) > 0xbf) return 0;
  return length;
}

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size()) {
    if (static_cast<unsigned char>(text[at]) < 0x80) {
      ++at;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, at);
    if (length == 0) return at;
    at += length;
  }
  return std::nullopt;
}

namespace {

// Closes a descriptor on every return.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

BoundedRead read_file_bounded(const std::filesystem::path& path, std::size_t max_bytes, bool regular_only) {
  BoundedRead result;
  // O_NONBLOCK makes opening a FIFO return at once; the type is then checked on what was opened,
  // not on a name that could change in between.
  const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | (regular_only ? O_NONBLOCK : 0))};
  if (file.fd < 0) {
    result.status = ReadStatus::cannot_open;
    result.error = std::strerror(errno);
    return result;
  }
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) {
    result.status = ReadStatus::read_failed;
    result.error = std::strerror(errno);
    return result;
  }
  if (regular_only && !S_ISREG(info.st_mode)) {
    result.status = ReadStatus::not_regular;
    result.error = S_ISFIFO(info.st_mode)  ? "it is a FIFO, not a regular file"
                   : S_ISDIR(info.st_mode) ? "it is a directory, not a regular file"
                                           : "it is not a regular file";
    return result;
  }
  // A regular file's size is known up front; other files (pipes, devices) are read up to the limit.
  if (S_ISREG(info.st_mode) && static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    result.status = ReadStatus::too_large;
    return result;
  }
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  std::string text;
  while (text.size() <= max_bytes) {
    const std::size_t old_size = text.size();
    const std::size_t want = std::min(kChunk, max_bytes + 1 - old_size);
    text.resize(old_size + want);
    const ssize_t got = ::read(file.fd, text.data() + old_size, want);
    if (got < 0) {
      if (errno == EINTR) {
        text.resize(old_size);
        continue;
      }
      result.status = ReadStatus::read_failed;  // EISDIR for a directory, for example
      result.error = std::strerror(errno);
      return result;
    }
    text.resize(old_size + static_cast<std::size_t>(got));
    if (got == 0) break;
  }
  if (text.size() > max_bytes) {
    result.status = ReadStatus::too_large;
    return result;
  }
  result.text = std::move(text);
  return result;
}

std::string read_file_prefix(const std::filesystem::path& path, std::size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::string text(bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(bytes));
  text.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return text;
}

std::string shorten_message(std::string message, std::size_t max_bytes) {
  if (message.size() <= max_bytes) return message;
  const std::size_t tail = max_bytes / 4;
  std::size_t head = max_bytes - tail;
  // Cut between characters, so the message stays valid UTF-8.
  while (head > 0 && (static_cast<unsigned char>(message[head]) & 0xc0) == 0x80) --head;
  std::size_t tail_start = message.size() - tail;
  while (tail_start < message.size() &&
         (static_cast<unsigned char>(message[tail_start]) & 0xc0) == 0x80)
    ++tail_start;
  return message.substr(0, head) + " [... " +
         with_thousands_separators(tail_start - head) + " bytes left out ...] " +
         message.substr(tail_start);
}

std::string bounded_number_text(std::string_view digits) {
  if (digits.size() <= 40) return std::string(digits);
  return std::string(digits.substr(0, 32)) + "... (" + with_thousands_separators(digits.size()) +
         " digits)";
}

std::string with_thousands_separators(std::uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace fprev::detail
