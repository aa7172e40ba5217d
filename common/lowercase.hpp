#pragma once
// ASCII lower case, for matching names whatever their case (device names
// in filters, drivers' statistic names). Bytes outside ASCII are kept.
#include <cctype>
#include <string>
#include <string_view>

namespace vktune {

inline std::string lowercase(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

}  // namespace vktune
