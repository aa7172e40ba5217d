#include "results/spirv_bytes.hpp"

#include "results/table_format.hpp"

namespace vktune::results {

std::vector<std::byte> spirv_to_bytes(std::span<const std::uint32_t> words) {
  std::vector<std::byte> bytes;
  bytes.reserve(words.size() * 4);
  for (const std::uint32_t word : words) {
    for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<std::byte>((word >> shift) & 0xffu));
  }
  return bytes;
}

std::optional<std::vector<std::uint32_t>> spirv_from_bytes(std::span<const std::byte> bytes) {
  if (bytes.size() % 4 != 0) return std::nullopt;
  std::vector<std::uint32_t> words(bytes.size() / 4);
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::uint32_t word = 0;
    for (std::size_t b = 4; b-- > 0;) word = (word << 8) | std::to_integer<std::uint32_t>(bytes[i * 4 + b]);
    words[i] = word;
  }
  return words;
}

std::string spirv_content_hash(std::span<const std::uint32_t> words) {
  const auto bytes = spirv_to_bytes(words);
  return table_format::content_hash(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace vktune::results
