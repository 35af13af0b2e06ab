// Foreign text never reaches a terminal raw (issue 26): an ESC sequence from a golden's library
// line would clear the screen or set the window title. C0 controls but tab and newline, DEL and
// the C1 controls are shown as \u00XX; everything else, UTF-8 included, passes unchanged.
#include <gtest/gtest.h>

#include <sstream>

#include "control_escape.hpp"

namespace fprev::cli {
namespace {

TEST(ControlEscape, ControlsAreShownEscaped) {
  EXPECT_EQ(escape_controls("OpenBLAS\x1b]0;pwned\x07\x1b[2J"), "OpenBLAS\\u001b]0;pwned\\u0007\\u001b[2J");
  EXPECT_EQ(escape_controls("a\rb\x7f" "c"), "a\\u000db\\u007fc");
  EXPECT_EQ(escape_controls(std::string("nul\0here", 8)), "nul\\u0000here");
  EXPECT_EQ(escape_controls("\xc2\x9b" "31m"), "\\u009b31m");  // CSI as a C1 control
}

TEST(ControlEscape, TextAndUtf8PassUnchanged) {
  const std::string text = "tab\there\nnext line: 0.25 \xc2\xb1 \xce\xb5, \xe2\x86\x92 \xc2\xa0";
  EXPECT_EQ(escape_controls(text), text);
}

// Through the stream buffer, one byte or a whole string at a time, a C1 control split across
// writes is still caught.
TEST(ControlEscape, TheStreamBufferEscapesAcrossWrites) {
  std::ostringstream target;
  {
    ControlEscapingBuffer buffer(target.rdbuf());
    std::ostream out(&buffer);
    out << "x\xc2";
    out.flush();
    out << "\x9b" "2J" << '\x1b' << "\xc2\xb1" << "\n";
  }
  EXPECT_EQ(target.str(), "x\\u009b2J\\u001b\xc2\xb1\n");
}

TEST(ControlEscape, ALeadByteAtTheEndIsWrittenOnClose) {
  std::ostringstream target;
  {
    ControlEscapingBuffer buffer(target.rdbuf());
    std::ostream(&buffer) << "end\xc2";
  }
  EXPECT_EQ(target.str(), "end\xc2");
}

}  // namespace
}  // namespace fprev::cli
