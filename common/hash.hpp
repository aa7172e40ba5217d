#pragma once
// Stable content hashing (64-bit FNV-1a) for variant identities and the SPIR-V
// cache. Not cryptographic: it only has to be stable across runs, machines and
// compilers, which std::hash is not.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace vktune {

class Hasher {
 public:
  Hasher& add(std::string_view bytes);
  Hasher& add(std::span<const std::uint8_t> bytes);
  Hasher& add(std::uint64_t value);  // little-endian bytes of value
  std::uint64_t value() const { return state_; }
  std::string hex() const;  // 16 lowercase hex digits

 private:
  void add_length_marker(std::uint64_t length);
  std::uint64_t state_ = 0xcbf29ce484222325ull;
};

std::string to_hex64(std::uint64_t value);

}  // namespace vktune
