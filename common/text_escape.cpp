#include "common/text_escape.hpp"

#include <cstdint>

namespace vktune {

std::size_t utf8_sequence_length(std::string_view text) {
  if (text.empty()) return 0;
  const auto lead = static_cast<unsigned char>(text[0]);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if (lead < 0x80) {
    return 1;
  } else if ((lead & 0xe0) == 0xc0) {
    length = 2;
    code = lead & 0x1fu;
  } else if ((lead & 0xf0) == 0xe0) {
    length = 3;
    code = lead & 0x0fu;
  } else if ((lead & 0xf8) == 0xf0) {
    length = 4;
    code = lead & 0x07u;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (std::size_t j = 1; j < length; ++j) {
    const auto next = static_cast<unsigned char>(text[j]);
    if ((next & 0xc0) != 0x80) return 0;
    code = (code << 6) | (next & 0x3fu);
  }
  static constexpr std::uint32_t smallest[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < smallest[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}

bool is_valid_utf8(std::string_view text) {
  while (!text.empty()) {
    const std::size_t length = utf8_sequence_length(text);
    if (length == 0) return false;
    text.remove_prefix(length);
  }
  return true;
}

namespace {

void append_hex(std::string& out, unsigned char byte) {
  static constexpr char hex[] = "0123456789abcdef";
  out += "\\x";
  out += hex[byte >> 4];
  out += hex[byte & 0xf];
}

}  // namespace

std::string escape_text(std::string_view text, char quote) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const char c = text[0];
    const auto byte = static_cast<unsigned char>(c);
    const std::size_t length = utf8_sequence_length(text);
    if (c == '\\' || (quote != '\0' && c == quote)) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (length == 0 || byte < 0x20 || byte == 0x7f) {
      append_hex(out, byte);  // a control character, or a byte that is not UTF-8
    } else if (length == 2 && byte == 0xc2 && static_cast<unsigned char>(text[1]) < 0xa0) {
      append_hex(out, byte);  // a C1 control (U+0080..U+009F)
      append_hex(out, static_cast<unsigned char>(text[1]));
    } else {
      out.append(text.substr(0, length));
    }
    text.remove_prefix(length == 0 ? 1 : length);
  }
  return out;
}

}  // namespace vktune
