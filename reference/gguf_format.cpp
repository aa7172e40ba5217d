#include "reference/gguf_format.hpp"

#include <limits>

namespace vktune::ref {

TensorSize compute_tensor_size(GgmlType type, std::span<const std::uint64_t> shape) {
  TensorSize size;
  if (shape.empty() || shape.size() > gguf_max_dims) {
    size.problem = std::to_string(shape.size()) + " dimensions (1 to " + std::to_string(gguf_max_dims) + " allowed)";
    return size;
  }
  constexpr std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t elements = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) {
      size.problem = "dimension " + std::to_string(i) + " is zero";
      return size;
    }
    if (shape[i] > limit / elements) {
      size.problem = "the element count overflows";
      return size;
    }
    elements *= shape[i];
  }
  const std::uint64_t per_block = block_weights(type);
  if (shape[0] % per_block != 0) {
    size.problem = "a row of " + std::to_string(shape[0]) + " is not a whole number of " +
                   std::string(type_name(type)) + " blocks of " + std::to_string(per_block);
    return size;
  }
  const std::uint64_t blocks = elements / per_block;
  if (blocks > limit / block_bytes(type)) {
    size.problem = "the byte size overflows";
    return size;
  }
  size.elements = elements;
  size.bytes = blocks * block_bytes(type);
  return size;
}

}  // namespace vktune::ref
