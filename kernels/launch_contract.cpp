#include "kernels/launch_contract.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>

#include "common/error.hpp"
#include "kernels/kernel.hpp"
#include "kernels/push_word_value.hpp"
#include "results/table_format.hpp"

namespace vktune::kernels {

namespace size_arithmetic {
// The runtime's own text (runtime/src/size_rule.inc), copied at configure
// time (kernels/CMakeLists.txt): vktune and the runtime size buffers alike.
#include "vktune_size_rule.inc"
}  // namespace size_arithmetic


// A role's value is its index among the table format's role names.
static_assert(static_cast<std::size_t>(BindingRole::uniform) + 1 == results::table_format::binding_role_count);

std::string_view to_string(BindingRole role) {
  const auto index = static_cast<std::size_t>(role);
  return results::table_format::binding_role_names[index < results::table_format::binding_role_count ? index : 0];
}

BindingRole binding_role_from_string(std::string_view text) {
  const int index = results::table_format::binding_role_index(text);
  if (index < 0) {
    throw Error(ErrorKind::usage, "unknown binding role '" + std::string(text) + "' (" +
                                      results::table_format::binding_role_list() + ")");
  }
  return static_cast<BindingRole>(index);
}

std::uint64_t SizeRule::bytes(const Shape& shape) const {
  const auto size = size_arithmetic::size_rule_bytes(*this, shape);
  if (size.failure == size_arithmetic::SizeFailure::missing_dimension) {
    throw Error(ErrorKind::internal, "a size rule names shape dimension " + std::to_string(size.dimension) + " of a " +
                                         std::to_string(shape.size()) + "-dimensional shape");
  }
  if (size.failure == size_arithmetic::SizeFailure::overflow) {
    throw Error(ErrorKind::usage, "a buffer of " + describe({}) + " bytes passes 2^64 at shape " +
                                      shape_to_string(shape));
  }
  return size.bytes;
}

std::string SizeRule::describe(const std::vector<std::string>& dim_names) const {
  std::string text;
  for (const auto& term : terms) {
    if (!text.empty()) text += " + ";
    text += std::to_string(term.coefficient);
    for (int d : term.dims) {
      text += "*";
      text += static_cast<std::size_t>(d) < dim_names.size() ? dim_names[static_cast<std::size_t>(d)]
                                                            : "dim" + std::to_string(d);
    }
  }
  if (text.empty()) text = "0";
  if (divisor > 1) text = (terms.size() > 1 ? "(" + text + ")" : text) + "/" + std::to_string(divisor);
  if (align > 1) text += ", in whole " + std::to_string(align) + "-byte units";
  return text;
}

SizeRule size_rule(std::uint64_t coefficient, std::vector<int> dims, std::uint64_t divisor) {
  return SizeRule{{SizeTerm{coefficient, std::move(dims)}}, divisor};
}

SizeRule operator+(SizeRule a, const SizeRule& b) {
  if (a.divisor != b.divisor || a.align != b.align) throw Error(ErrorKind::internal, "adding size rules with different divisors");
  a.terms.insert(a.terms.end(), b.terms.begin(), b.terms.end());
  return a;
}

std::vector<std::uint32_t> push_constant_words(const std::vector<PushWord>& words, const Shape& shape) {
  if (words.empty()) return shape;
  std::vector<std::uint32_t> values;
  for (const auto& word : words) {
    if (!word.expression.empty()) {
      std::string why;
      const auto v = push_expression_value(word, shape, why);
      if (!v) throw Error(ErrorKind::usage, "push constant '" + word.name + "': " + why);
      const auto bits = push_word_bits(*v, word.type);
      if (!bits) {
        throw Error(ErrorKind::usage, "push constant '" + word.name + "' is " + std::to_string(*v) +
                                          " for this shape, which is no " + word.type + " word");
      }
      values.push_back(*bits);
      continue;
    }
    const auto v = word.value.bytes(shape);
    if (v > std::numeric_limits<std::uint32_t>::max()) {
      throw Error(ErrorKind::usage, "push constant '" + word.name + "' is " + std::to_string(v) +
                                        " for this shape, more than a 32-bit word holds");
    }
    values.push_back(static_cast<std::uint32_t>(v));
  }
  return values;
}

std::vector<std::uint8_t> uniform_block_bytes(const Binding& binding, const Shape& shape) {
  std::vector<std::uint8_t> block(binding.size.bytes(shape), 0);
  for (const auto& member : binding.members) {
    std::uint32_t bits = 0;
    try {
      bits = push_constant_words({member.word}, shape).front();  // a member is a push word placed at its offset
    } catch (const Error& e) {
      throw Error(e.kind(), "uniform buffer '" + binding.name + "': " + e.what());
    }
    if (member.offset % 4 != 0 || member.offset + std::size_t{4} > block.size()) {
      throw Error(ErrorKind::internal, "uniform buffer '" + binding.name + "': member '" + member.word.name +
                                           "' at offset " + std::to_string(member.offset) + " is outside its block");
    }
    for (int i = 0; i < 4; ++i) block[member.offset + i] = static_cast<std::uint8_t>(bits >> (8 * i));
  }
  return block;
}

bool in_shape_class(const ShapeClass& shape_class, const Shape& shape) {
  for (const auto& bound : shape_class) {
    if (bound.dim < 0 || static_cast<std::size_t>(bound.dim) >= shape.size()) return false;
    const auto v = shape[static_cast<std::size_t>(bound.dim)];
    if (v < bound.min || v > bound.max) return false;
  }
  return true;
}

std::string describe(const ShapeClass& shape_class, const std::vector<std::string>& dim_names) {
  if (shape_class.empty()) return "any shape";
  std::string text;
  for (const auto& bound : shape_class) {
    const auto d = static_cast<std::size_t>(bound.dim);
    const std::string name = d < dim_names.size() ? dim_names[d] : "dim" + std::to_string(bound.dim);
    if (!text.empty()) text += ", ";
    const bool bounded_above = bound.max != DimBound{}.max;
    if (bound.min > 1 && bounded_above) {
      text += std::to_string(bound.min) + " <= " + name + " <= " + std::to_string(bound.max);
    } else if (bounded_above) {
      text += name + " <= " + std::to_string(bound.max);
    } else {
      text += name + " >= " + std::to_string(bound.min);
    }
  }
  return text;
}

}  // namespace vktune::kernels
