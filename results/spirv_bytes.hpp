#pragma once
// SPIR-V words as bytes in little-endian order: how the store keeps them and
// how exports carry them, the same on every machine.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <span>
#include <vector>

namespace vktune::results {

std::vector<std::byte> spirv_to_bytes(std::span<const std::uint32_t> words);
// nullopt when the byte count is not a whole number of words.
std::optional<std::vector<std::uint32_t>> spirv_from_bytes(std::span<const std::byte> bytes);
// The store's key of SPIR-V words: the stable content hash of their bytes
// (results/table_format.hpp), 16 hex digits; the runtime checks it.
std::string spirv_content_hash(std::span<const std::uint32_t> words);

}  // namespace vktune::results
