#include "control_escape.hpp"

#include <iostream>

namespace fprev::cli {
namespace {

bool is_c0_or_del(unsigned char byte) { return (byte < 0x20 && byte != '\t' && byte != '\n') || byte == 0x7f; }

void append_escape(std::string& out, unsigned code) {
  constexpr char kHex[] = "0123456789abcdef";
  out += "\\u00";
  out += kHex[(code >> 4) & 0xf];
  out += kHex[code & 0xf];
}

std::ostream* raw_error = nullptr;

}  // namespace

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (is_c0_or_del(byte)) {
      append_escape(out, byte);
    } else if (byte == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      append_escape(out, static_cast<unsigned char>(text[++i]));
    } else {
      out += static_cast<char>(byte);
    }
  }
  return out;
}

ControlEscapingBuffer::~ControlEscapingBuffer() {
  if (held_lead_) target_->sputc(static_cast<char>(0xc2));
  target_->pubsync();
}

void ControlEscapingBuffer::put(unsigned char byte) {
  if (held_lead_) {
    held_lead_ = false;
    if (byte >= 0x80 && byte <= 0x9f) {
      std::string escaped;
      append_escape(escaped, byte);
      target_->sputn(escaped.data(), static_cast<std::streamsize>(escaped.size()));
      return;
    }
    target_->sputc(static_cast<char>(0xc2));
  }
  if (byte == 0xc2) {
    held_lead_ = true;
  } else if (is_c0_or_del(byte)) {
    std::string escaped;
    append_escape(escaped, byte);
    target_->sputn(escaped.data(), static_cast<std::streamsize>(escaped.size()));
  } else {
    target_->sputc(static_cast<char>(byte));
  }
}

ControlEscapingBuffer::int_type ControlEscapingBuffer::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  put(static_cast<unsigned char>(traits_type::to_char_type(ch)));
  return ch;
}

std::streamsize ControlEscapingBuffer::xsputn(const char* data, std::streamsize count) {
  for (std::streamsize k = 0; k < count; ++k) put(static_cast<unsigned char>(data[k]));
  return count;
}

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
}

EscapedStandardStreams::~EscapedStandardStreams() {
  std::cout.flush();
  std::cerr.flush();
  std::cout.rdbuf(cout_buffer_);
  std::cerr.rdbuf(cerr_buffer_);
  raw_error = nullptr;
}

std::ostream& raw_standard_error() { return raw_error != nullptr ? *raw_error : std::cerr; }

}  // namespace fprev::cli
