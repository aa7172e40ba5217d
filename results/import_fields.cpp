#include "results/import_fields.hpp"

#include <chrono>
#include <cstdint>
#include <ctime>

#include "results/export.hpp"

namespace vktune::results {
namespace {

bool lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

std::string fixed_hex_problem(std::string_view text, std::size_t digits) {
  if (text.size() != digits) return "must be " + std::to_string(digits) + " lower-case hex digits";
  for (const char c : text) {
    if (!lower_hex(c)) return "must be " + std::to_string(digits) + " lower-case hex digits";
  }
  return {};
}

// Length of the UTF-8 sequence starting at text[i], or 0 when it is not a
// valid one (overlong forms, surrogates and code points above U+10FFFF are invalid).
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t n = 0;
  std::uint32_t code = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) n = 2, code = lead & 0x1fu;
  else if (lead >= 0xe0 && lead <= 0xef) n = 3, code = lead & 0x0fu;
  else if (lead >= 0xf0 && lead <= 0xf4) n = 4, code = lead & 0x07u;
  else return 0;
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0u) != 0x80u) return 0;
    code = (code << 6) | (byte(i + k) & 0x3fu);
  }
  if ((n == 3 && (code < 0x800 || (code >= 0xd800 && code <= 0xdfff))) || (n == 4 && (code < 0x10000 || code > 0x10ffff))) {
    return 0;
  }
  return n;
}

}  // namespace

std::string hash_problem(std::string_view text) { return fixed_hex_problem(text, 16); }

std::string uuid_problem(std::string_view text) { return text.empty() ? std::string() : fixed_hex_problem(text, 32); }

std::string kernel_name_problem(std::string_view text) {
  const auto allowed = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || digit(c) || c == '_' || c == '.' || c == '+' || c == '-';
  };
  if (text.empty() || text.size() > 128) return "must be 1 to 128 characters";
  for (const char c : text) {
    if (!allowed(c)) return "may hold only letters, digits and _ . + -";
  }
  return {};
}

std::string cache_mode_problem(std::string_view text) {
  if (text.empty() || text.size() > 16) return "must be 1 to 16 lower-case letters";
  for (const char c : text) {
    if (c < 'a' || c > 'z') return "must be 1 to 16 lower-case letters";
  }
  return {};
}

std::string shape_problem(std::string_view text) {
  return shape_dims(text) ? std::string() : "must be comma-separated unsigned 32-bit numbers";
}

std::string timestamp_problem(std::string_view text) {
  if (text.empty()) return {};
  // YYYY-MM-DDTHH:MM:SS[.fff...]Z
  constexpr std::string_view pattern = "dddd-dd-ddTdd:dd:dd";
  bool ok = text.size() >= pattern.size() + 1 && text.back() == 'Z';
  for (std::size_t i = 0; ok && i < pattern.size(); ++i) {
    ok = pattern[i] == 'd' ? digit(text[i]) : text[i] == pattern[i];
  }
  const auto rest = ok ? text.substr(pattern.size(), text.size() - pattern.size() - 1) : std::string_view();
  if (ok && !rest.empty()) {
    ok = rest.size() >= 2 && rest.size() <= 10 && rest[0] == '.';
    for (std::size_t i = 1; ok && i < rest.size(); ++i) ok = digit(rest[i]);
  }
  if (!ok) return "must be an ISO-8601 UTC time such as 2024-05-01T12:00:00.000Z";
  // An entry stamped far ahead would win every later import of its key
  // (the newer entry wins): a day's slack covers clocks that disagree.
  const auto limit = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() + std::chrono::hours(24));
  std::tm utc{};
  gmtime_r(&limit, &utc);
  char latest[32];
  std::strftime(latest, sizeof latest, "%Y-%m-%dT%H:%M:%S", &utc);
  if (text.substr(0, pattern.size()) > std::string_view(latest)) {
    return "is later than a day from now (" + std::string(latest) + "Z): the clock that wrote it is wrong";
  }
  return {};
}

std::string text_problem(std::string_view text) {
  if (text.size() > 256) return "is longer than 256 bytes";
  for (std::size_t i = 0; i < text.size();) {
    const auto n = utf8_length(text, i);
    if (n == 0) return "is not valid UTF-8";
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = n == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0;  // U+0080..U+009F
    if ((n == 1 && (c < 0x20 || c == 0x7f)) || c1) return "holds a control character";
    i += n;
  }
  return {};
}

}  // namespace vktune::results
