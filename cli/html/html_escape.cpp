#include "cli/html/html_escape.hpp"

#include "common/text_escape.hpp"

namespace vktune {

std::string html_escape(std::string_view text) {
  static constexpr std::string_view replacement = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const std::size_t length = utf8_sequence_length(text);
    if (length == 0) {
      out += replacement;
      text.remove_prefix(1);
      continue;
    }
    if (length > 1) {
      // C1 controls (U+0080..U+009F) are two bytes: 0xC2 0x80..0x9F.
      const bool c1 = length == 2 && static_cast<unsigned char>(text[0]) == 0xC2 &&
                      static_cast<unsigned char>(text[1]) < 0xA0;
      if (c1) {
        out += replacement;
      } else {
        out.append(text.substr(0, length));
      }
      text.remove_prefix(length);
      continue;
    }
    const char c = text[0];
    text.remove_prefix(1);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t':
      case '\n': out += c; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          out += replacement;
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace vktune
