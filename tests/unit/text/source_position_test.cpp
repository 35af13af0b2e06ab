// The one position type and formatter of error locations, and bounded quotations of input
// (fprev/source_position.hpp). Expected texts follow the formats documented there.
#include <gtest/gtest.h>

#include <string>

#include "fprev/source_position.hpp"

namespace fprev {
namespace {

TEST(SourcePosition, FormatsEachKindOfLocation) {
  EXPECT_EQ(format_position(SourcePosition::at("suites/a.yaml", 9, 17)), "suites/a.yaml:9:17");
  EXPECT_EQ(format_position(SourcePosition::at_line("golden/x.golden", 12)), "golden/x.golden:12");
  EXPECT_EQ(format_position(SourcePosition::whole("suites/a.yaml")), "suites/a.yaml");
  EXPECT_EQ(format_position(SourcePosition::at_offset("S-expression", 4)),
            "S-expression, position 4");
  EXPECT_EQ(format_position(SourcePosition::at_offset("S-expression", 0)),
            "S-expression, position 0");
}

TEST(SourcePosition, LineAndColumnOfAnOffset) {
  const std::string text = "ab\ncd\n\nef";
  EXPECT_EQ(position_of_offset("f", text, 0), SourcePosition::at("f", 1, 1));
  EXPECT_EQ(position_of_offset("f", text, 1), SourcePosition::at("f", 1, 2));
  EXPECT_EQ(position_of_offset("f", text, 2), SourcePosition::at("f", 1, 3));  // the '\n'
  EXPECT_EQ(position_of_offset("f", text, 3), SourcePosition::at("f", 2, 1));
  EXPECT_EQ(position_of_offset("f", text, 6), SourcePosition::at("f", 3, 1));
  EXPECT_EQ(position_of_offset("f", text, 8), SourcePosition::at("f", 4, 2));
  EXPECT_EQ(position_of_offset("f", text, 9), SourcePosition::at("f", 4, 3));   // the end
  EXPECT_EQ(position_of_offset("f", text, 99), SourcePosition::at("f", 4, 3));  // clamped
}

TEST(QuotedExcerpt, ShortPrintableTextIsQuotedWhole) {
  EXPECT_EQ(quoted_excerpt("openbals"), "'openbals'");
  EXPECT_EQ(quoted_excerpt(""), "''");
  EXPECT_EQ(quoted_excerpt("caf\xc3\xa9"), "'caf\xc3\xa9'");  // valid UTF-8 stays as it is
}

TEST(QuotedExcerpt, BytesThatCannotBeShownAreEscaped) {
  EXPECT_EQ(quoted_excerpt(std::string("a\0b\n\x7f", 5)), "'a\\x00b\\x0a\\x7f'");
  // A lone continuation byte, a truncated sequence, an overlong '/', a UTF-16 surrogate and a code
  // point beyond U+10FFFF are not UTF-8.
  EXPECT_EQ(quoted_excerpt("\x80"), "'\\x80'");
  EXPECT_EQ(quoted_excerpt("\xe2\x82"), "'\\xe2\\x82'");
  EXPECT_EQ(quoted_excerpt("\xc0\xaf"), "'\\xc0\\xaf'");
  EXPECT_EQ(quoted_excerpt("\xed\xa0\x80"), "'\\xed\\xa0\\x80'");
  EXPECT_EQ(quoted_excerpt("\xf4\x90\x80\x80"), "'\\xf4\\x90\\x80\\x80'");
  EXPECT_EQ(quoted_excerpt("\xf0\x9f\x98\x80"), "'\xf0\x9f\x98\x80'");  // U+1F600 is fine
}

TEST(QuotedExcerpt, LongTextIsCutAndItsLengthGiven) {
  EXPECT_EQ(quoted_excerpt(std::string(49, 'x')), "'" + std::string(48, 'x') + "...' (49 bytes)");
  EXPECT_EQ(quoted_excerpt(std::string(48, 'x')), "'" + std::string(48, 'x') + "'");
  EXPECT_EQ(quoted_excerpt(std::string(5000000, 'y'), 3), "'yyy...' (5,000,000 bytes)");
  // Never cut inside a character: the two-byte 'é' at bytes 3-4 does not fit in 4 bytes.
  EXPECT_EQ(quoted_excerpt("abc\xc3\xa9z", 4), "'abc...' (6 bytes)");
}

}  // namespace
}  // namespace fprev
