#include "control_escape.hpp"

#include <iostream>

namespace fprev::cli {
namespace {

constexpr char kHex[] = "0123456789abcdef";

bool is_c0_or_del(unsigned char byte) { return (byte < 0x20 && byte != '\t' && byte != '\n') || byte == 0x7f; }

// Characters that are valid UTF-8 and still must not reach a reader raw: the C1 controls, and the
// marks that reorder or hide how a line reads (Unicode's bidirectional formatting characters).
bool is_hidden_control(std::uint32_t code) {
  return (code >= 0x80 && code <= 0x9f) || code == 0x061c || code == 0x200e || code == 0x200f ||
         (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

void append_code_escape(std::string& out, std::uint32_t code) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(code >> shift) & 0xf];
}

void append_byte_escape(std::string& out, unsigned char byte) {
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0xf];
}

// The length of the UTF-8 sequence `lead` starts (0: not a lead byte), and the range its second
// byte must lie in (Unicode Table 3-7: no overlong forms, no surrogates, nothing past U+10FFFF).
std::uint8_t sequence_length(unsigned char lead) {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

bool fits_at(unsigned char lead, std::uint8_t position, unsigned char byte) {
  unsigned char low = 0x80;
  unsigned char high = 0xbf;
  if (position == 1) {
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  }
  return byte >= low && byte <= high;
}

std::uint32_t decode_sequence(const unsigned char* bytes, std::uint8_t length) {
  std::uint32_t code = bytes[0] & (0x7f >> length);
  for (std::uint8_t k = 1; k < length; ++k) code = (code << 6) | (bytes[k] & 0x3f);
  return code;
}

std::ostream* raw_error = nullptr;
EscapedStandardStreams* installed_streams = nullptr;

}  // namespace

void TextEscaper::flush_held_as_bytes(std::string& out) {
  for (std::uint8_t k = 0; k < held_count_; ++k) append_byte_escape(out, held_[k]);
  held_count_ = 0;
  expected_ = 0;
}

void TextEscaper::put(unsigned char byte, std::string& out) {
  if (expected_ != 0) {
    if (fits_at(held_[0], held_count_, byte)) {
      held_[held_count_++] = byte;
      if (held_count_ < expected_) return;
      const std::uint32_t code = decode_sequence(held_, expected_);
      if (is_hidden_control(code)) {
        append_code_escape(out, code);
      } else {
        out.append(reinterpret_cast<const char*>(held_), held_count_);
      }
      held_count_ = 0;
      expected_ = 0;
      return;
    }
    flush_held_as_bytes(out);  // a sequence cut short: its bytes are not UTF-8; `byte` starts anew
  }
  if (byte < 0x80) {
    if (is_c0_or_del(byte)) {
      append_code_escape(out, byte);
    } else {
      out += static_cast<char>(byte);
    }
  } else if (const std::uint8_t length = sequence_length(byte); length != 0) {
    held_[0] = byte;
    held_count_ = 1;
    expected_ = length;
  } else {
    append_byte_escape(out, byte);  // a stray continuation byte, 0xc0, 0xc1 or 0xf5..0xff
  }
}

void TextEscaper::finish(std::string& out) { flush_held_as_bytes(out); }

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  TextEscaper escaper;
  for (const char ch : text) escaper.put(static_cast<unsigned char>(ch), out);
  escaper.finish(out);
  return out;
}

ControlEscapingBuffer::~ControlEscapingBuffer() {
  scratch_.clear();
  escaper_.finish(scratch_);
  write(scratch_);
  target_->pubsync();
}

void ControlEscapingBuffer::write(const std::string& text) {
  if (!text.empty()) target_->sputn(text.data(), static_cast<std::streamsize>(text.size()));
}

ControlEscapingBuffer::int_type ControlEscapingBuffer::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  scratch_.clear();
  escaper_.put(static_cast<unsigned char>(traits_type::to_char_type(ch)), scratch_);
  write(scratch_);
  return ch;
}

std::streamsize ControlEscapingBuffer::xsputn(const char* data, std::streamsize count) {
  scratch_.clear();
  for (std::streamsize k = 0; k < count; ++k) escaper_.put(static_cast<unsigned char>(data[k]), scratch_);
  write(scratch_);
  return count;
}

// A sequence cut by the flush stays held: the next write says what it is.
int ControlEscapingBuffer::sync() { return target_->pubsync(); }

EscapedStandardStreams::EscapedStandardStreams()
    : cout_buffer_(std::cout.rdbuf()),
      cerr_buffer_(std::cerr.rdbuf()),
      cout_escaping_(cout_buffer_),
      cerr_escaping_(cerr_buffer_) {
  static std::ostream raw(nullptr);
  raw.rdbuf(cerr_buffer_);
  raw_error = &raw;
  std::cout.rdbuf(&cout_escaping_);
  std::cerr.rdbuf(&cerr_escaping_);
  installed_streams = this;
}

EscapedStandardStreams::~EscapedStandardStreams() {
  std::cout.flush();
  std::cerr.flush();
  std::cout.rdbuf(cout_buffer_);
  std::cerr.rdbuf(cerr_buffer_);
  raw_error = nullptr;
  installed_streams = nullptr;
}

std::ostream& raw_standard_error() { return raw_error != nullptr ? *raw_error : std::cerr; }

void retarget_standard_output(std::streambuf* target) {
  std::cout.flush();
  if (installed_streams != nullptr) {
    installed_streams->cout_buffer_ = target;  // restored by the destructor
    installed_streams->cout_escaping_.target_ = target;
  } else {
    std::cout.rdbuf(target);
  }
}

}  // namespace fprev::cli
