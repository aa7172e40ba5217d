// Escaping untrusted text for the terminal, and the UTF-8 check GGUF strings
// must pass. Expected strings are written out by hand.
#include "common/text_escape.hpp"

#include <gtest/gtest.h>

namespace vktune {
namespace {

TEST(EscapeText, ControlCharactersBecomeVisibleEscapes) {
  EXPECT_EQ(escape_text("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(escape_text(std::string_view("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(escape_text("tab\there\nnl\rcr\x7f"), "tab\\there\\nnl\\rcr\\x7f");
  EXPECT_EQ(escape_text("back\\slash"), "back\\\\slash");
}

TEST(EscapeText, C1ControlsAndInvalidBytesAreEscapedValidTextIsKept) {
  EXPECT_EQ(escape_text("\xc2\x9b" "2J"), "\\xc2\\x9b2J");  // U+009B, a one-byte CSI to some terminals
  EXPECT_EQ(escape_text("h\xc3\xa9llo \xe4\xb8\xad"), "h\xc3\xa9llo \xe4\xb8\xad");
  EXPECT_EQ(escape_text("\xc2\xa0"), "\xc2\xa0");  // U+00A0 is printable
  EXPECT_EQ(escape_text("\xff\xc0\xaf"), "\\xff\\xc0\\xaf");
  EXPECT_TRUE(is_valid_utf8(escape_text("\xed\xa0\x80\x1b")));
}

TEST(EscapeText, QuoteCharacterIsEscapedOnlyWhenAsked) {
  EXPECT_EQ(escape_text("it's \"x\"", '\''), "it\\'s \"x\"");
  EXPECT_EQ(escape_text("it's \"x\"", '"'), "it's \\\"x\\\"");
  EXPECT_EQ(escape_text("it's"), "it's");
}

TEST(Utf8, AcceptsWellFormedRejectsTheRest) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain \x1b ascii"));  // controls are valid UTF-8, just not printable
  EXPECT_TRUE(is_valid_utf8("\xf0\x9f\x98\x80"));  // U+1F600
  EXPECT_FALSE(is_valid_utf8("\xff"));
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // a surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xe4\xb8"));          // cut short
  EXPECT_EQ(utf8_sequence_length("\xe4\xb8\xad!"), 3u);
  EXPECT_EQ(utf8_sequence_length("\x80"), 0u);
}

}  // namespace
}  // namespace vktune
