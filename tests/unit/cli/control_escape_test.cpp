// Foreign text never reaches a terminal raw (issues 26 and 34): an ESC sequence from a golden's
// library line would clear the screen or set the window title, a lone 0x9B byte is an 8-bit CSI,
// a U+202E reverses how the rest of a line reads. C0 controls but tab and newline, DEL, the C1
// controls and the bidirectional marks are shown as \uXXXX, a byte that is not UTF-8 as \xNN;
// everything else, UTF-8 included, passes unchanged.
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

// An unfinished sequence at the end is not UTF-8: its bytes are shown, never written raw.
TEST(ControlEscape, AnUnfinishedSequenceAtTheEndIsShownAsBytes) {
  std::ostringstream target;
  {
    ControlEscapingBuffer buffer(target.rdbuf());
    std::ostream(&buffer) << "end\xe2\x80";
  }
  EXPECT_EQ(target.str(), "end\\xe2\\x80");
  EXPECT_EQ(escape_controls("end\xc2"), "end\\xc2");
}

// A golden's "\x9b" (an 8-bit CSI on its own, not UTF-8) and other bytes that are not UTF-8 are
// shown as \xNN: a stray continuation byte, an overlong form, a surrogate, a cut sequence.
TEST(ControlEscape, BytesThatAreNotUtf8AreShownAsBytes) {
  EXPECT_EQ(escape_controls("lib\x9b" "31mred"), "lib\\x9b31mred");
  EXPECT_EQ(escape_controls("\xc0\x80"), "\\xc0\\x80");              // overlong NUL
  EXPECT_EQ(escape_controls("\xed\xa0\x80"), "\\xed\\xa0\\x80");     // a UTF-16 surrogate
  EXPECT_EQ(escape_controls("\xe2\x80" "A"), "\\xe2\\x80A");          // cut short by an ASCII byte
  EXPECT_EQ(escape_controls("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(escape_controls("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");  // a 4-byte character passes
}

// Bidirectional formatting characters ("Trojan Source") reorder what a reader sees.
TEST(ControlEscape, BidirectionalControlsAreShownEscaped) {
  EXPECT_EQ(escape_controls("ok \xe2\x80\xae" "deliaf"), "ok \\u202edeliaf");  // U+202E RLO
  EXPECT_EQ(escape_controls("\xe2\x81\xa6x\xe2\x81\xa9"), "\\u2066x\\u2069");  // isolates
  EXPECT_EQ(escape_controls("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c"), "\\u200e\\u200f\\u061c");  // marks
  EXPECT_EQ(escape_controls("\xe2\x80\x94 \xe2\x80\xaf"), "\xe2\x80\x94 \xe2\x80\xaf");  // dash, NNBSP pass
}

TEST(ControlEscape, TheStreamBufferCatchesABidiControlSplitAcrossWrites) {
  std::ostringstream target;
  {
    ControlEscapingBuffer buffer(target.rdbuf());
    std::ostream out(&buffer);
    out << "a\xe2";
    out.flush();
    out << "\x80";
    out.flush();
    out << "\xae" "b\x9b";
  }
  EXPECT_EQ(target.str(), "a\\u202eb\\x9b");
}

}  // namespace
}  // namespace fprev::cli
