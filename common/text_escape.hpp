#pragma once
// Text from untrusted files (GGUF keys, tensor names, string values) made safe
// to print on a terminal: a control character in a name would otherwise be a
// terminal escape sequence ("\x1b[31m" recolours the user's terminal, others
// move the cursor or set the window title).
#include <string>
#include <string_view>

namespace vktune {

// `text` with every C0 control (U+0000..U+001F), DEL, C1 control
// (U+0080..U+009F, which some terminals obey too), backslash and `quote`
// (when not '\0') written as a backslash escape: "\n", "\t", "\\", "\x1b",
// C1 controls as their UTF-8 bytes "\xc2\x9b". Bytes that are not valid UTF-8
// are written as "\xNN" too, so the result is always valid UTF-8 and never
// ambiguous; other valid UTF-8 (accents, CJK) is kept as it is.
std::string escape_text(std::string_view text, char quote = '\0');

// Length of the valid UTF-8 sequence at the start of `text` (1 to 4), or 0 if
// it does not start with one (overlong forms, surrogates and code points above
// U+10FFFF are not valid).
std::size_t utf8_sequence_length(std::string_view text);

// True when the whole of `text` is valid UTF-8.
bool is_valid_utf8(std::string_view text);

}  // namespace vktune
