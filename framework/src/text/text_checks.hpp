// Checks every parser applies to text from people and merges before trusting it: valid UTF-8, a
// bounded read of a file, bounded error messages. Private to the framework.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace fprev::detail {

// The length (1..4) of the valid UTF-8 sequence starting at byte `at` of `text`, or 0 when the
// bytes there are not one (a stray continuation byte, a truncated sequence, an overlong form, a
// UTF-16 surrogate, a code point beyond U+10FFFF).
std::size_t utf8_sequence_length(std::string_view text, std::size_t at);

// The offset of the first byte that is not part of valid UTF-8, or nullopt for valid text.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

enum class ReadStatus { ok, cannot_open, read_failed, too_large, not_regular };

struct BoundedRead {
  ReadStatus status = ReadStatus::ok;
  std::string text;   // the whole file when ok; empty otherwise
  std::string error;  // the system's reason for cannot_open and read_failed
};

// Reads a file, but never more than `max_bytes` + 1 bytes: a larger file (or an endless one, such
// as a device) is reported as too_large without holding it in memory. With `regular_only`, a path
// that is not a regular file (a FIFO, a device, a directory) is not_regular, found without
// blocking: opening a FIFO that no one writes would wait forever.
BoundedRead read_file_bounded(const std::filesystem::path& path, std::size_t max_bytes,
                              bool regular_only = false);

// The first `bytes` bytes of a file (fewer when it is shorter or cannot be read): where a file
// that is too large crosses the limit.
std::string read_file_prefix(const std::filesystem::path& path, std::size_t bytes);

// `message` unchanged when it has at most `max_bytes`; otherwise its head and tail around a note
// saying how many bytes were left out (a last guard for messages built from long input).
std::string shorten_message(std::string message, std::size_t max_bytes = 1024);

// A number as written in the input, for a message: whole when it has at most 40 digits, else its
// first 32 digits and how many there are ("1234...5678... (41 digits)").
std::string bounded_number_text(std::string_view digits);

// "1,048,576": byte counts and limits in messages.
std::string with_thousands_separators(std::uint64_t value);

}  // namespace fprev::detail
