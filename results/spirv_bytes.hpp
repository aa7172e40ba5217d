#pragma once
// SPIR-V words as bytes in little-endian order: how the store keeps them and
// how exports carry them, the same on every machine.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace vktune::results {

std::vector<std::byte> spirv_to_bytes(std::span<const std::uint32_t> words);
// nullopt when the byte count is not a whole number of words.
std::optional<std::vector<std::uint32_t>> spirv_from_bytes(std::span<const std::byte> bytes);

}  // namespace vktune::results
