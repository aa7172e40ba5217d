#include "kernels/push_word_value.hpp"

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace vktune::kernels {

namespace word_arithmetic {
// The runtime's own text, so that vktune and the runtime push the same bits.
#include "vktune_word_expression.inc"
}  // namespace word_arithmetic

std::optional<double> push_expression_value(const PushWord& word, const Shape& shape, std::string& why) {
  const std::vector<std::string_view> names(word.dims.begin(), word.dims.end());
  std::vector<double> values(shape.begin(), shape.end());
  values.resize(names.size(), 0.0);
  const auto v = word_arithmetic::evaluate_word_expression(word.expression, names.data(), names.size(), values.data());
  if (!v.ok) {
    why = v.error;
    return std::nullopt;
  }
  return v.value;
}

std::optional<std::uint32_t> push_word_bits(double value, std::string_view type) {
  std::uint32_t bits = 0;
  if (!word_arithmetic::word_bits(value, type, bits)) return std::nullopt;
  return bits;
}

}  // namespace vktune::kernels
