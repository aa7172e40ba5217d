// vktune::runtime::to_q6_k_split: a weight rearranged for the
// matmul_q6k_split kernels, with the text vktune tuned them with.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "vktune_runtime.hpp"

namespace vktune::runtime {
namespace detail {
#include "weight_layout.inc"
}  // namespace detail

std::vector<std::uint8_t> to_q6_k_split(const std::uint8_t* bytes, std::size_t size) {
  const std::size_t blocks = detail::q6_k_whole_blocks(size);
  if (bytes == nullptr || blocks > size) {
    throw Error(Error::Kind::usage, "vktune to_q6_k_split: " + std::to_string(size) +
                                        " bytes are not whole Q6_K blocks of 210 bytes (with at most 15 bytes of "
                                        "padding)");
  }
  std::vector<std::uint8_t> out(bytes, bytes + size);
  detail::q6_k_split_copy(bytes, out.data(), blocks, true);
  return out;
}

}  // namespace vktune::runtime
