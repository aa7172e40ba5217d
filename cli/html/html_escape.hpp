#pragma once
// Text made safe to place in HTML and SVG: kernel names, configs and failure
// reasons come from a database that may have been imported from anywhere,
// so none of it may open a tag, end an attribute or run a script.
#include <string>
#include <string_view>

namespace vktune {

// `&`, `<`, `>`, `"` and `'` as character references; bytes that are not
// valid UTF-8 and control characters other than tab and newline become
// U+FFFD, so the page is always valid UTF-8 and shows where text was damaged.
// Safe in element content and in quoted attribute values.
std::string html_escape(std::string_view text);

}  // namespace vktune
