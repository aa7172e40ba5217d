#pragma once
// A spec's push-constant words as the launch contract carries them
// (kernels::PushWord: ceil of a polynomial over the shape over a divisor, or
// an expression of the shape in the runtime's own language), so that the
// runtime library pushes what the spec's shader declares for any shape, not
// only the tuned ones.
#include <cstdint>
#include <optional>
#include <string>

#include "kernels/launch_contract.hpp"
#include "kernels/spec/spec_definition.hpp"

namespace vktune::kernels::spec {

// The 32-bit word `pc` pushes where the names read `values`: an integer's
// two's-complement bits, or the bits of the nearest float; nullopt where the
// value is not a whole number in the type's range (u32, i32) or not a finite
// float (f32).
std::optional<std::uint32_t> push_word_bits(const PushConstant& pc, const double* values);

// What push_word_bits takes of a type, for the line that refuses a value:
// "a 32-bit unsigned integer", "a finite 32-bit float".
const char* push_type_range(PushType type);

// The largest divisor a fitted word may have: ceil_div(n, 4096) fits,
// anything whose rational coefficients need more does not.
inline constexpr std::uint64_t kMaxPushDivisor = 4096;

// The word `d.push_constants[index]` as ceil((sum of whole multiples of
// products of distinct shape dimensions + a constant) / q), q <= kMaxPushDivisor
// ("n", "rows * n", "1", "ceil_div(n, 4)", "2 * n + 3"), verified at probe
// shapes and the spec's own shapes. Otherwise nullopt, with `why` one line
// naming the file, the field and the expression.
std::optional<PushWord> fit_push_word(const Definition& d, std::size_t index, std::string& why);
// The same for any word of the spec's (a uniform member's lane), `pointer`
// naming its value field in messages ("/buffers/2/members/0/value/1").
std::optional<PushWord> fit_push_word(const Definition& d, const PushConstant& pc, const std::string& pointer,
                                      std::string& why);

// A word as the launch contract carries it: a polynomial where it fits one
// (not an f32 word), else its expression where the runtime's language
// evaluates it as the spec does at every probe shape; else nullopt with
// `why` the refusal (naming the file, `pointer` and the expression).
std::optional<PushWord> carried_word(const Definition& d, const PushConstant& pc, const std::string& pointer,
                                     std::string& why);

// The kernel's layout for its Space: empty when the words are the shape
// itself in order (the built-in convention, so such specs export as before),
// else every word: a polynomial where it fits one (not an f32 word), else its
// expression where the runtime's language evaluates it as the spec does at
// every probe shape. `unfit` gets the first word's refusal, and the layout
// is then empty.
std::vector<PushWord> fit_push_constants(const Definition& d, std::string& unfit);

}  // namespace vktune::kernels::spec
