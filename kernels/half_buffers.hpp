#pragma once
// Input buffers of fp16 values and of int32 indices, for the kernels that
// read them (rope_f16, rope_neox_f16, get_rows, attention_decode). Templates
// read fp16 buffers as packed 32-bit words and widen them with
// unpackHalf2x16, so these kernels need no 16-bit storage feature.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"
#include "reference/fp16.hpp"

namespace vktune::kernels::half {

// `values` rounded to fp16 (ties to even) in place, as their bits in a buffer;
// after the call `values` holds exactly what the device reads.
inline HostBuffer rounded_buffer(const std::string& name, std::vector<float>& values, bool is_weights) {
  HostBuffer b{name, std::vector<std::uint8_t>(values.size() * 2), false, is_weights};
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint16_t h = ref::fp32_to_fp16(values[i]);
    std::memcpy(b.bytes.data() + 2 * i, &h, 2);
    values[i] = ref::fp16_to_fp32(h);
  }
  return b;
}

inline HostBuffer int32_buffer(const std::string& name, const std::vector<std::int32_t>& values) {
  HostBuffer b{name, std::vector<std::uint8_t>(values.size() * sizeof(std::int32_t)), false, false};
  std::memcpy(b.bytes.data(), values.data(), b.bytes.size());
  return b;
}

}  // namespace vktune::kernels::half
