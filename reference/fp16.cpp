#include "reference/fp16.hpp"

#include <bit>
#include <cmath>

namespace vktune::ref {

float fp16_to_fp32(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h >> 15) << 31;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in binary32.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 31) {
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  }
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

namespace {

// Shifts `value` right by `shift` bits (1..31), rounding to nearest, ties to even.
std::uint32_t shift_round_even(std::uint32_t value, unsigned shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t rest = value & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  const bool up = rest > half || (rest == half && (kept & 1u) != 0);
  return kept + (up ? 1u : 0u);
}

}  // namespace

std::uint16_t fp32_to_fp16(float f) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t exponent8 = (bits >> 23) & 0xffu;
  const std::uint32_t mantissa = bits & 0x7fffffu;

  if (exponent8 == 0xff) {
    if (mantissa == 0) return static_cast<std::uint16_t>(sign | 0x7c00u);
    // NaN: keep the top payload bits, force the quiet bit so it stays a NaN.
    return static_cast<std::uint16_t>(sign | 0x7c00u | 0x200u | (mantissa >> 13));
  }
  const int exponent = static_cast<int>(exponent8) - 127;
  if (exponent > 15) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (exponent >= -14) {
    // Normal range: exponent and mantissa rounded together, so a carry out of
    // the mantissa bumps the exponent (and 65520 and above become infinity).
    const std::uint32_t combined = (static_cast<std::uint32_t>(exponent + 15) << 23) | mantissa;
    const std::uint32_t rounded = shift_round_even(combined, 13);
    return static_cast<std::uint16_t>(sign | (rounded >= 0x7c00u ? 0x7c00u : rounded));
  }
  // Subnormal fp16 (or zero): the value is significand * 2^(exponent-23), and
  // the fp16 unit is 2^-24, so shift the 24-bit significand by -(exponent+1).
  const unsigned shift = static_cast<unsigned>(-(exponent + 1));
  if (shift > 24) return sign;  // below half the smallest subnormal
  const std::uint32_t significand = mantissa | 0x800000u;
  return static_cast<std::uint16_t>(sign | shift_round_even(significand, shift));
}

}  // namespace vktune::ref
