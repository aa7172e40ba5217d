#include "reference/weight_layout.hpp"

#include <cstddef>
#include <cstring>

#include "common/error.hpp"
#include "reference/gguf_blocks.hpp"

namespace vktune::ref {
namespace {

constexpr std::size_t kBlock = sizeof(BlockQ6_K);        // 210
constexpr std::size_t kBody = offsetof(BlockQ6_K, d);    // 208: ql, qh, scales
constexpr std::size_t kScale = sizeof(BlockQ6_K::d);     // 2
static_assert(kBody + kScale == kBlock && kBody % 16 == 0);

// Whole blocks of `bytes`, the rest (at most 15 bytes) padding.
std::size_t q6_k_blocks(std::size_t bytes) {
  const std::size_t blocks = bytes / kBlock;
  if (bytes - blocks * kBlock >= 16) {
    throw Error(ErrorKind::usage, "q6_k_split: " + std::to_string(bytes) + " bytes are not whole Q6_K blocks of " +
                                      std::to_string(kBlock) + " bytes (with at most 15 bytes of padding)");
  }
  return blocks;
}

}  // namespace

std::string_view layout_name(WeightLayout layout) {
  return layout == WeightLayout::q6_k_split ? "q6_k_split" : "gguf";
}

std::vector<std::uint8_t> to_layout(WeightLayout layout, std::span<const std::uint8_t> gguf) {
  std::vector<std::uint8_t> out(gguf.begin(), gguf.end());
  if (layout == WeightLayout::gguf) return out;
  const std::size_t blocks = q6_k_blocks(gguf.size());
  for (std::size_t i = 0; i < blocks; ++i) {
    std::memcpy(out.data() + kBody * i, gguf.data() + kBlock * i, kBody);
    std::memcpy(out.data() + kBody * blocks + kScale * i, gguf.data() + kBlock * i + kBody, kScale);
  }
  return out;
}

std::vector<std::uint8_t> from_layout(WeightLayout layout, std::span<const std::uint8_t> device) {
  std::vector<std::uint8_t> out(device.begin(), device.end());
  if (layout == WeightLayout::gguf) return out;
  const std::size_t blocks = q6_k_blocks(device.size());
  for (std::size_t i = 0; i < blocks; ++i) {
    std::memcpy(out.data() + kBlock * i, device.data() + kBody * i, kBody);
    std::memcpy(out.data() + kBlock * i + kBody, device.data() + kBody * blocks + kScale * i, kScale);
  }
  return out;
}

}  // namespace vktune::ref
