// Text the tool echoes comes partly from others: a golden's library line, a suite file's name, a
// library's identity string, a target's output. Such text must not act on the reader's terminal
// or change how the line reads, so every text the command line writes (the terminal, --output
// files, the HTML report, JSON) passes through one escaper, TextEscaper, and is shown as:
//   * C0 controls other than tab and newline, DEL, the C1 controls U+0080..U+009F, and the
//     bidirectional and invisible direction marks (U+061C, U+200E, U+200F, U+202A..U+202E,
//     U+2066..U+2069: "Trojan Source", CVE-2021-42574) as \uXXXX. That is also JSON's escape of
//     the same character, so a JSON document stays valid and means the same;
//   * a byte that is not part of valid UTF-8 as \xNN. A lone 0x9B is an 8-bit CSI to a terminal
//     that reads Latin-1 or VT220 8-bit controls, and a stray byte makes a report invalid UTF-8.
//     (JSON never carries one: the JSON writer replaces them before, see report/json.cpp.)
// Everything else, valid UTF-8 included, passes unchanged.
#pragma once

#include <cstdint>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace fprev::cli {

std::string escape_controls(std::string_view text);

// The escaper itself, a byte at a time: a UTF-8 sequence split across two writes of a stream is
// held until its last byte says what it is. escape_controls() and ControlEscapingBuffer share it.
class TextEscaper {
 public:
  void put(unsigned char byte, std::string& out);
  // Writes what is held (an unfinished sequence: each byte as \xNN).
  void finish(std::string& out);

 private:
  void flush_held_as_bytes(std::string& out);
  unsigned char held_[4] = {};
  std::uint8_t held_count_ = 0;
  std::uint8_t expected_ = 0;  // the length of the sequence held_ starts (0: none)
};

// A stream buffer that escapes on the way to `target` (std::cout and std::cerr get one in main).
class ControlEscapingBuffer final : public std::streambuf {
 public:
  explicit ControlEscapingBuffer(std::streambuf* target) : target_(target) {}
  ControlEscapingBuffer(const ControlEscapingBuffer&) = delete;
  ControlEscapingBuffer& operator=(const ControlEscapingBuffer&) = delete;
  ~ControlEscapingBuffer() override;

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* data, std::streamsize count) override;
  int sync() override;

 private:
  void write(const std::string& text);
  friend void retarget_standard_output(std::streambuf* target);
  std::streambuf* target_;
  TextEscaper escaper_;
  std::string scratch_;
};

// Installs the escaping buffers on std::cout and std::cerr for the life of the object, and keeps
// a stream on the raw standard error for the one writer that needs control sequences of its own:
// the progress line on a terminal ("\r\033[K"), whose text is the tool's own.
class EscapedStandardStreams {
 public:
  friend void retarget_standard_output(std::streambuf* target);
  EscapedStandardStreams();
  ~EscapedStandardStreams();
  EscapedStandardStreams(const EscapedStandardStreams&) = delete;
  EscapedStandardStreams& operator=(const EscapedStandardStreams&) = delete;

 private:
  std::streambuf* cout_buffer_;
  std::streambuf* cerr_buffer_;
  ControlEscapingBuffer cout_escaping_;
  ControlEscapingBuffer cerr_escaping_;
};

// The standard error without escaping (the progress line); std::cerr when no
// EscapedStandardStreams is installed.
std::ostream& raw_standard_error();

// Sends std::cout's text (escaped when EscapedStandardStreams is installed) to `target` from now
// on, after flushing what is held (standard_output.hpp). `target` must outlive std::cout's use.
void retarget_standard_output(std::streambuf* target);

}  // namespace fprev::cli
