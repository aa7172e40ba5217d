#include "reference/block_pack.hpp"

#include <cstring>

namespace vktune::ref {

namespace {

std::uint8_t nibbles(std::uint8_t low, std::uint8_t high) {
  return static_cast<std::uint8_t>((low & 0xf) | ((high & 0xf) << 4));
}

void pack_scales_k4(const std::uint8_t (&scales)[8], const std::uint8_t (&mins)[8], std::uint8_t* out) {
  std::memset(out, 0, k_scale_bytes);
  for (int j = 0; j < 8; ++j) set_scale_min_k4(j, out, scales[j], mins[j]);
}

// Low nibbles of Q4_K/Q5_K: qs[32c + l] = weight 64c + l | weight 64c + 32 + l << 4.
void pack_k4_nibbles(const std::uint8_t (&q)[qk_k], std::uint8_t* qs) {
  for (int c = 0; c < 4; ++c) {
    for (int l = 0; l < 32; ++l) qs[32 * c + l] = nibbles(q[64 * c + l], q[64 * c + 32 + l]);
  }
}

}  // namespace

BlockQ4_0 pack_q4_0(std::uint16_t d, const std::uint8_t (&q)[qk4_0]) {
  BlockQ4_0 block{};
  block.d = d;
  for (std::size_t j = 0; j < qk4_0 / 2; ++j) block.qs[j] = nibbles(q[j], q[j + qk4_0 / 2]);
  return block;
}

BlockQ8_0 pack_q8_0(std::uint16_t d, const std::int8_t (&q)[qk8_0]) {
  BlockQ8_0 block{};
  block.d = d;
  std::memcpy(block.qs, q, sizeof block.qs);
  return block;
}

BlockQ4_K pack_q4_k(std::uint16_t d, std::uint16_t dmin, const std::uint8_t (&scales)[8],
                    const std::uint8_t (&mins)[8], const std::uint8_t (&q)[qk_k]) {
  BlockQ4_K block{};
  block.d = d;
  block.dmin = dmin;
  pack_scales_k4(scales, mins, block.scales);
  pack_k4_nibbles(q, block.qs);
  return block;
}

BlockQ5_K pack_q5_k(std::uint16_t d, std::uint16_t dmin, const std::uint8_t (&scales)[8],
                    const std::uint8_t (&mins)[8], const std::uint8_t (&q)[qk_k]) {
  // Everything but the fifth bit is laid out as in Q4_K.
  const BlockQ4_K low = pack_q4_k(d, dmin, scales, mins, q);
  BlockQ5_K block{};
  block.d = low.d;
  block.dmin = low.dmin;
  std::memcpy(block.scales, low.scales, sizeof block.scales);
  std::memcpy(block.qs, low.qs, sizeof block.qs);
  for (int c = 0; c < 4; ++c) {
    for (int l = 0; l < 32; ++l) {
      const int low_bit = (q[64 * c + l] >> 4) & 1;
      const int high_bit = (q[64 * c + 32 + l] >> 4) & 1;
      block.qh[l] = static_cast<std::uint8_t>(block.qh[l] | (low_bit << (2 * c)) | (high_bit << (2 * c + 1)));
    }
  }
  return block;
}

BlockQ6_K pack_q6_k(std::uint16_t d, const std::int8_t (&scales)[16], const std::uint8_t (&q)[qk_k]) {
  BlockQ6_K block{};
  block.d = d;
  std::memcpy(block.scales, scales, sizeof block.scales);
  for (int half = 0; half < 2; ++half) {
    std::uint8_t* ql = block.ql + 64 * half;
    std::uint8_t* qh = block.qh + 32 * half;
    const std::uint8_t* v = q + 128 * half;
    for (int l = 0; l < 32; ++l) {
      ql[l] = nibbles(v[l], v[l + 64]);
      ql[l + 32] = nibbles(v[l + 32], v[l + 96]);
      qh[l] = static_cast<std::uint8_t>(((v[l] >> 4) & 3) | (((v[l + 32] >> 4) & 3) << 2) |
                                        (((v[l + 64] >> 4) & 3) << 4) | (((v[l + 96] >> 4) & 3) << 6));
    }
  }
  return block;
}

}  // namespace vktune::ref
