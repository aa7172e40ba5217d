#include "common/hash.hpp"

#include <cstdio>

namespace vktune {

namespace {
constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;
}

Hasher& Hasher::add(std::string_view bytes) {
  for (unsigned char c : bytes) state_ = (state_ ^ c) * kFnvPrime;
  // Length separator so that add("ab").add("c") differs from add("a").add("bc").
  return add_length_marker(bytes.size()), *this;
}

Hasher& Hasher::add(std::span<const std::uint8_t> bytes) {
  for (std::uint8_t c : bytes) state_ = (state_ ^ c) * kFnvPrime;
  return add_length_marker(bytes.size()), *this;
}

Hasher& Hasher::add(std::uint64_t value) {
  for (int i = 0; i < 8; ++i) state_ = (state_ ^ ((value >> (8 * i)) & 0xff)) * kFnvPrime;
  return *this;
}

void Hasher::add_length_marker(std::uint64_t length) { add(length); }

std::string to_hex64(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string Hasher::hex() const { return to_hex64(state_); }

}  // namespace vktune
