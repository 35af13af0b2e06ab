// Text the tool echoes comes partly from others: a golden's library line, a suite file's name, a
// library's identity string, a target's output. A control character in it must not act on the
// reader's terminal (ESC clears the screen or sets the title; CR hides what came before), so
// every text the command line writes passes through escape_controls(): C0 controls other than
// tab and newline, DEL and the C1 controls U+0080..U+009F are shown as \u00XX. That notation is
// also a JSON escape of the same character, so a JSON document stays valid and means the same.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace fprev::cli {

std::string escape_controls(std::string_view text);

// A stream buffer that escapes controls on their way to `target` (std::cout and std::cerr get one
// in main). A C1 control is two bytes in UTF-8 (0xC2 0x80..0x9F): a 0xC2 at the end of one write
// is held until the next byte says what it starts.
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
  void put(unsigned char byte);
  std::streambuf* target_;
  bool held_lead_ = false;  // a 0xC2 not yet written
};

// Installs the escaping buffers on std::cout and std::cerr for the life of the object, and keeps
// a stream on the raw standard error for the one writer that needs control sequences of its own:
// the progress line on a terminal ("\r\033[K"), whose text is the tool's own.
class EscapedStandardStreams {
 public:
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

}  // namespace fprev::cli
