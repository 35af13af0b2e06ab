#include "standard_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <streambuf>
#include <string>

#include "control_escape.hpp"

namespace fprev::cli {

namespace {

// A buffered stream on a file descriptor (the tool's copy of the original standard output).
class DescriptorBuffer final : public std::streambuf {
 public:
  explicit DescriptorBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  DescriptorBuffer(const DescriptorBuffer&) = delete;
  DescriptorBuffer& operator=(const DescriptorBuffer&) = delete;

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* p = pbase();
    while (p < pptr()) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      p += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return true;
  }

  int fd_;
  char buffer_[1 << 16];
};

}  // namespace

void reserve_standard_output_for_the_tool() {
  static DescriptorBuffer* tool_output = nullptr;  // lives until the process ends (std::cout's target)
  if (tool_output != nullptr) return;
  std::cout.flush();
  std::fflush(stdout);
  // Above the descriptors workers are given (3, 4, ...) and closed in every child the tool starts.
  const int copy = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 10);
  if (copy < 0) throw std::runtime_error(std::string("cannot copy standard output: ") + std::strerror(errno));
  if (::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    const int error = errno;
    ::close(copy);
    throw std::runtime_error(std::string("cannot point standard output at standard error: ") + std::strerror(error));
  }
  tool_output = new DescriptorBuffer(copy);
  retarget_standard_output(tool_output);
}

}  // namespace fprev::cli
