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

// Low nibbles and fifth bits of Q5_0/Q5_1: weight j's nibble as in Q4_0, its
// fifth bit at bit j of the 32-bit qh.
void pack_q5_bits(const std::uint8_t (&q)[qk5_0], std::uint8_t (&qh)[4], std::uint8_t (&qs)[qk5_0 / 2]) {
  for (std::size_t j = 0; j < qk5_0 / 2; ++j) qs[j] = nibbles(q[j], q[j + qk5_0 / 2]);
  for (std::size_t j = 0; j < qk5_0; ++j) qh[j / 8] = static_cast<std::uint8_t>(qh[j / 8] | (((q[j] >> 4) & 1) << (j % 8)));
}

// The 2-bit fields of Q2_K and Q3_K: weight 128h + 32p + l at bits 2p of qs[32h + l].
void pack_two_bit_codes(const std::uint8_t (&q)[qk_k], std::uint8_t (&qs)[qk_k / 4]) {
  for (std::size_t w = 0; w < qk_k; ++w) {
    const std::size_t h = w / 128, p = (w % 128) / 32, l = w % 32;
    qs[32 * h + l] = static_cast<std::uint8_t>(qs[32 * h + l] | ((q[w] & 3) << (2 * p)));
  }
}

}  // namespace

BlockQ4_0 pack_q4_0(std::uint16_t d, const std::uint8_t (&q)[qk4_0]) {
  BlockQ4_0 block{};
  block.d = d;
  for (std::size_t j = 0; j < qk4_0 / 2; ++j) block.qs[j] = nibbles(q[j], q[j + qk4_0 / 2]);
  return block;
}

BlockQ5_0 pack_q5_0(std::uint16_t d, const std::uint8_t (&q)[qk5_0]) {
  BlockQ5_0 block{};
  block.d = d;
  pack_q5_bits(q, block.qh, block.qs);
  return block;
}

BlockQ5_1 pack_q5_1(std::uint16_t d, std::uint16_t m, const std::uint8_t (&q)[qk5_0]) {
  BlockQ5_1 block{};
  block.d = d;
  block.m = m;
  pack_q5_bits(q, block.qh, block.qs);
  return block;
}

BlockQ8_0 pack_q8_0(std::uint16_t d, const std::int8_t (&q)[qk8_0]) {
  BlockQ8_0 block{};
  block.d = d;
  std::memcpy(block.qs, q, sizeof block.qs);
  return block;
}

BlockQ2_K pack_q2_k(std::uint16_t d, std::uint16_t dmin, const std::uint8_t (&scales)[16],
                    const std::uint8_t (&mins)[16], const std::uint8_t (&q)[qk_k]) {
  BlockQ2_K block{};
  block.d = d;
  block.dmin = dmin;
  for (int s = 0; s < 16; ++s) block.scales[s] = nibbles(scales[s], mins[s]);
  pack_two_bit_codes(q, block.qs);
  return block;
}

BlockQ3_K pack_q3_k(std::uint16_t d, const std::uint8_t (&scales)[16], const std::uint8_t (&q)[qk_k]) {
  BlockQ3_K block{};
  block.d = d;
  for (int s = 0; s < 16; ++s) set_q3_k_scale(s, block.scales, scales[s]);
  pack_two_bit_codes(q, block.qs);
  // The third bit of weight 128h + 32p + l: bit 4h + p of hmask[l].
  for (std::size_t w = 0; w < qk_k; ++w) {
    const std::size_t h = w / 128, p = (w % 128) / 32, l = w % 32;
    block.hmask[l] = static_cast<std::uint8_t>(block.hmask[l] | (((q[w] >> 2) & 1) << (4 * h + p)));
  }
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

BlockIQ4_NL pack_iq4_nl(std::uint16_t d, const std::uint8_t (&q)[qk4_nl]) {
  BlockIQ4_NL block{};
  block.d = d;
  for (std::size_t j = 0; j < qk4_nl / 2; ++j) block.qs[j] = nibbles(q[j], q[j + qk4_nl / 2]);
  return block;
}

BlockIQ4_XS pack_iq4_xs(std::uint16_t d, const std::uint8_t (&scales)[8], const std::uint8_t (&q)[qk_k]) {
  BlockIQ4_XS block{};
  block.d = d;
  for (int ib = 0; ib < 8; ++ib) {
    const int scale = scales[ib] & 63;
    block.scales_l[ib / 2] = static_cast<std::uint8_t>(block.scales_l[ib / 2] | ((scale & 0xf) << (4 * (ib % 2))));
    block.scales_h = static_cast<std::uint16_t>(block.scales_h | ((scale >> 4) << (2 * ib)));
    for (int j = 0; j < 16; ++j) block.qs[16 * ib + j] = nibbles(q[32 * ib + j], q[32 * ib + 16 + j]);
  }
  return block;
}

}  // namespace vktune::ref
