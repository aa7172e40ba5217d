#pragma once
// IEEE 754 binary16 <-> binary32 conversion, done in integer arithmetic so the
// result does not depend on the host's F16C support or rounding mode.
//
// fp16_to_fp32 is exact for every input (binary32 holds every binary16 value):
// zeros keep their sign, subnormals become normal floats, infinities stay
// infinite and NaNs stay NaN with their payload shifted into the top bits.
//
// fp32_to_fp16 rounds to nearest, ties to even: results whose magnitude rounds
// above 65504 become infinity, tiny values become fp16 subnormals or a signed
// zero, and NaN stays NaN (quiet, with the top payload bits kept).
#include <cstdint>

namespace vktune::ref {

float fp16_to_fp32(std::uint16_t h);
std::uint16_t fp32_to_fp16(float f);

// Largest finite fp16 value.
inline constexpr float fp16_max = 65504.0f;

}  // namespace vktune::ref
