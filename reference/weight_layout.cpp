#include "reference/weight_layout.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/error.hpp"
#include "reference/gguf_blocks.hpp"

namespace vktune::ref {
namespace split_arithmetic {
// The runtime's own text (runtime/src/weight_layout.inc), copied at
// configure time (reference/CMakeLists.txt): vktune and the runtime
// rearrange a weight alike.
#include "vktune_weight_layout.inc"
static_assert(q6_k_block_bytes == sizeof(BlockQ6_K) && q6_k_body_bytes == offsetof(BlockQ6_K, d));
}  // namespace split_arithmetic

namespace {

std::vector<std::uint8_t> rearranged(WeightLayout layout, std::span<const std::uint8_t> bytes, bool split) {
  std::vector<std::uint8_t> out(bytes.begin(), bytes.end());
  if (layout == WeightLayout::gguf) return out;
  const std::size_t blocks = split_arithmetic::q6_k_whole_blocks(bytes.size());
  if (blocks > bytes.size()) {
    throw Error(ErrorKind::usage, "q6_k_split: " + std::to_string(bytes.size()) + " bytes are not whole Q6_K blocks of " +
                                      std::to_string(split_arithmetic::q6_k_block_bytes) +
                                      " bytes (with at most 15 bytes of padding)");
  }
  split_arithmetic::q6_k_split_copy(bytes.data(), out.data(), blocks, split);
  return out;
}

}  // namespace

std::string_view layout_name(WeightLayout layout) {
  return layout == WeightLayout::q6_k_split ? "q6_k_split" : "gguf";
}

std::vector<std::uint8_t> to_layout(WeightLayout layout, std::span<const std::uint8_t> gguf) {
  return rearranged(layout, gguf, true);
}

std::vector<std::uint8_t> from_layout(WeightLayout layout, std::span<const std::uint8_t> device) {
  return rearranged(layout, device, false);
}

}  // namespace vktune::ref
