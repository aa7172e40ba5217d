#pragma once
// Byte layouts of the quantized GGUF blocks, as the GGUF specification (ggml's
// block structs) defines them. All multi-byte fields are little-endian; fp16
// fields are raw IEEE binary16 bits (see fp16.hpp).
//
// A row of blocks is packed with no padding, so a block of 18, 22, 34, 110 or
// 210 bytes is only 2-byte aligned inside a row, and a row itself may sit anywhere in a
// mapped file. Never reinterpret_cast row bytes to these structs: use
// load_block / store_block, which copy through memcpy.
#include <cstddef>
#include <cstdint>
#include <bit>
#include <cstring>
#include <type_traits>

namespace vktune::ref {

inline constexpr std::size_t qk4_0 = 32;  // weights per Q4_0 block
inline constexpr std::size_t qk5_0 = 32;  // weights per Q5_0 and Q5_1 block
inline constexpr std::size_t qk8_0 = 32;  // weights per Q8_0 block
inline constexpr std::size_t qk4_nl = 32;  // weights per IQ4_NL block
inline constexpr std::size_t qk_k = 256;  // weights per K-quant (and IQ4_XS) super-block
inline constexpr std::size_t k_scale_bytes = 12;  // packed 6-bit scales(+mins) of Q3_K, Q4_K, Q5_K

// The 16 values a 4-bit IQ4_NL or IQ4_XS code stands for (times the block's
// scale): a non-linear grid, denser near zero, from -127 to 113.
inline constexpr std::int8_t iq4nl_values[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                                 1,    13,   25,  38,  53,  69,  89,  113};

// Q4_0: y = d * (q - 8); weight j of the block is the low nibble of qs[j] for
// j < 16 and the high nibble of qs[j-16] otherwise.
struct BlockQ4_0 {
  std::uint16_t d;                // fp16 scale
  std::uint8_t qs[qk4_0 / 2];     // nibbles
};

// Q5_0: y = d * (q - 16), q a 5-bit code. Weight j < 16 has its low 4 bits
// in the low nibble of qs[j], weight 16 + j in the high nibble of qs[j]; the
// fifth bit of weight j (0..31) is bit j of qh read as a little-endian 32-bit
// word (bit j % 8 of qh[j / 8]).
struct BlockQ5_0 {
  std::uint16_t d;                // fp16 scale
  std::uint8_t qh[4];             // fifth bits
  std::uint8_t qs[qk5_0 / 2];     // low nibbles
};

// Q5_1: y = d * q + m, q a 5-bit code 0..31 laid out as in Q5_0 (no offset:
// m, usually negative, is the block's minimum).
struct BlockQ5_1 {
  std::uint16_t d;                // fp16 scale
  std::uint16_t m;                // fp16 offset, added
  std::uint8_t qh[4];
  std::uint8_t qs[qk5_0 / 2];
};

// Q8_0: y = d * q.
struct BlockQ8_0 {
  std::uint16_t d;                // fp16 scale
  std::int8_t qs[qk8_0];
};

// Q2_K: 16 sub-blocks of 16 weights, each with a 4-bit scale (low nibble of
// scales[s]) and a 4-bit min (high nibble); 2-bit codes q.
// y = (d*scale)*q - (dmin*min). Weight 128h + 32p + l (h 0..1, p 0..3, l
// 0..31) is bits 2p..2p+1 of qs[32h + l], in sub-block (128h + 32p + l) / 16.
struct BlockQ2_K {
  std::uint8_t scales[qk_k / 16];  // scale | min << 4
  std::uint8_t qs[qk_k / 4];
  std::uint16_t d;                 // fp16 super-block scale of the scales
  std::uint16_t dmin;              // fp16 super-block scale of the mins
};

// Q3_K: 16 sub-blocks of 16 weights with 6-bit scales stored with an offset
// of 32 (see q3_k_scale); 3-bit codes q in 0..7, weights
// y = (d*(scale - 32))*(q - 4). Weight 128h + 32p + l (h 0..1, p 0..3, l
// 0..31) has its low 2 bits in bits 2p..2p+1 of qs[32h + l] and its third bit
// (worth 4) in bit 4h + p of hmask[l]; it is in sub-block (128h + 32p + l) / 16.
struct BlockQ3_K {
  std::uint8_t hmask[qk_k / 8];    // third bits
  std::uint8_t qs[qk_k / 4];       // low 2 bits
  std::uint8_t scales[k_scale_bytes];
  std::uint16_t d;                 // fp16 super-block scale
};

// Q4_K: 8 sub-blocks of 32 weights, each with a 6-bit scale and a 6-bit min
// packed in `scales` (see get_scale_min_k4). y = (d*sc)*q - (dmin*m).
// qs[32*c + l] holds weight 64*c + l in its low nibble and 64*c + 32 + l in
// its high nibble.
struct BlockQ4_K {
  std::uint16_t d;                // fp16 super-block scale of the scales
  std::uint16_t dmin;             // fp16 super-block scale of the mins
  std::uint8_t scales[k_scale_bytes];
  std::uint8_t qs[qk_k / 2];
};

// Q5_K: Q4_K plus a fifth bit per weight: bit (2c) of qh[l] is the high bit of
// weight 64*c + l, bit (2c+1) that of weight 64*c + 32 + l.
struct BlockQ5_K {
  std::uint16_t d;
  std::uint16_t dmin;
  std::uint8_t scales[k_scale_bytes];
  std::uint8_t qh[qk_k / 8];
  std::uint8_t qs[qk_k / 2];
};

// Q6_K: 16 sub-blocks of 16 weights with int8 scales; 6-bit weights split in
// 4 low bits (ql) and 2 high bits (qh); y = (d*scale)*(q - 32). For half
// h (0, 1) and l in 0..31, with ql' = ql + 64h, qh' = qh + 32h, sc' = scales + 8h:
//   weight 128h +  0 + l: ql'[l] low nibble,     qh'[l] bits 0-1, sc'[l/16 + 0]
//   weight 128h + 32 + l: ql'[l+32] low nibble,  qh'[l] bits 2-3, sc'[l/16 + 2]
//   weight 128h + 64 + l: ql'[l] high nibble,    qh'[l] bits 4-5, sc'[l/16 + 4]
//   weight 128h + 96 + l: ql'[l+32] high nibble, qh'[l] bits 6-7, sc'[l/16 + 6]
struct BlockQ6_K {
  std::uint8_t ql[qk_k / 2];
  std::uint8_t qh[qk_k / 4];
  std::int8_t scales[qk_k / 16];
  std::uint16_t d;                // fp16 super-block scale
};

// IQ4_NL: y = d * iq4nl_values[q], q a 4-bit code laid out as in Q4_0 (weight
// j < 16 in the low nibble of qs[j], 16 + j in its high nibble).
struct BlockIQ4_NL {
  std::uint16_t d;                // fp16 scale
  std::uint8_t qs[qk4_nl / 2];
};

// IQ4_XS: 8 sub-blocks of 32 weights, each with a 6-bit scale stored with an
// offset of 32: its low 4 bits in nibble (ib % 2) of scales_l[ib / 2] (the
// low nibble for even ib), its top 2 bits in bits 2ib..2ib+1 of scales_h.
// y = (d*(scale - 32)) * iq4nl_values[q]. In sub-block ib, weight 32ib + j
// (j < 16) is the low nibble of qs[16ib + j], 32ib + 16 + j its high nibble.
struct BlockIQ4_XS {
  std::uint16_t d;                // fp16 super-block scale
  std::uint16_t scales_h;         // top 2 bits of the 8 scales
  std::uint8_t scales_l[qk_k / 64];  // low 4 bits, two scales a byte
  std::uint8_t qs[qk_k / 2];
};

static_assert(sizeof(BlockQ4_0) == 18 && offsetof(BlockQ4_0, qs) == 2);
static_assert(sizeof(BlockQ5_0) == 22 && offsetof(BlockQ5_0, qh) == 2 && offsetof(BlockQ5_0, qs) == 6);
static_assert(sizeof(BlockQ5_1) == 24 && offsetof(BlockQ5_1, m) == 2 && offsetof(BlockQ5_1, qh) == 4 &&
              offsetof(BlockQ5_1, qs) == 8);
static_assert(sizeof(BlockQ2_K) == 84 && offsetof(BlockQ2_K, qs) == 16 && offsetof(BlockQ2_K, d) == 80 &&
              offsetof(BlockQ2_K, dmin) == 82);
static_assert(sizeof(BlockQ3_K) == 110 && offsetof(BlockQ3_K, qs) == 32 && offsetof(BlockQ3_K, scales) == 96 &&
              offsetof(BlockQ3_K, d) == 108);
static_assert(sizeof(BlockIQ4_NL) == 18 && offsetof(BlockIQ4_NL, qs) == 2);
static_assert(sizeof(BlockIQ4_XS) == 136 && offsetof(BlockIQ4_XS, scales_h) == 2 &&
              offsetof(BlockIQ4_XS, scales_l) == 4 && offsetof(BlockIQ4_XS, qs) == 8);
static_assert(sizeof(BlockQ8_0) == 34 && offsetof(BlockQ8_0, qs) == 2);
static_assert(sizeof(BlockQ4_K) == 144 && offsetof(BlockQ4_K, dmin) == 2 && offsetof(BlockQ4_K, scales) == 4 &&
              offsetof(BlockQ4_K, qs) == 16);
static_assert(sizeof(BlockQ5_K) == 176 && offsetof(BlockQ5_K, dmin) == 2 && offsetof(BlockQ5_K, scales) == 4 &&
              offsetof(BlockQ5_K, qh) == 16 && offsetof(BlockQ5_K, qs) == 48);
static_assert(sizeof(BlockQ6_K) == 210 && offsetof(BlockQ6_K, qh) == 128 && offsetof(BlockQ6_K, scales) == 192 &&
              offsetof(BlockQ6_K, d) == 208);

// The byte layout above is the file's little-endian layout only on a
// little-endian host; vktune targets little-endian machines.
static_assert(std::endian::native == std::endian::little, "vktune's GGUF code assumes a little-endian host");

template <class Block>
Block load_block(const std::uint8_t* bytes) {
  static_assert(std::is_trivially_copyable_v<Block>);
  Block block;
  std::memcpy(&block, bytes, sizeof(Block));
  return block;
}

template <class Block>
void store_block(const Block& block, std::uint8_t* bytes) {
  static_assert(std::is_trivially_copyable_v<Block>);
  std::memcpy(bytes, &block, sizeof(Block));
}

// The 6-bit scale and min of sub-block j (0..7) of a Q4_K/Q5_K block.
// Sub-blocks 0-3 keep theirs in the low 6 bits of bytes j (scale) and j+4
// (min); sub-blocks 4-7 keep their low 4 bits in byte j+4 (scale: low nibble,
// min: high nibble) and their top 2 bits in the top 2 bits of bytes j-4
// (scale) and j (min).
inline void get_scale_min_k4(int j, const std::uint8_t* q, std::uint8_t& scale, std::uint8_t& min) {
  if (j < 4) {
    scale = q[j] & 63;
    min = q[j + 4] & 63;
  } else {
    scale = static_cast<std::uint8_t>((q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4));
    min = static_cast<std::uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

// The inverse of get_scale_min_k4: writes the 6-bit scale and min (0..63) of
// sub-block j into q, leaving the bits of other sub-blocks as they are.
inline void set_scale_min_k4(int j, std::uint8_t* q, std::uint8_t scale, std::uint8_t min) {
  scale &= 63;
  min &= 63;
  if (j < 4) {
    q[j] = static_cast<std::uint8_t>((q[j] & 0xc0) | scale);
    q[j + 4] = static_cast<std::uint8_t>((q[j + 4] & 0xc0) | min);
  } else {
    q[j + 4] = static_cast<std::uint8_t>((scale & 0xf) | ((min & 0xf) << 4));
    q[j - 4] = static_cast<std::uint8_t>((q[j - 4] & 0x3f) | ((scale >> 4) << 6));
    q[j] = static_cast<std::uint8_t>((q[j] & 0x3f) | ((min >> 4) << 6));
  }
}

// The 6-bit stored scale (0..63; the weight uses scale - 32) of sub-block s
// (0..15) of a Q3_K block. Its low 4 bits are the low nibble of q[s] for
// s < 8 and the high nibble of q[s - 8] otherwise; its top 2 bits are bits
// 2*(s/4)..2*(s/4)+1 of q[8 + s % 4].
inline int q3_k_scale(int s, const std::uint8_t* q) {
  const int low = s < 8 ? q[s] & 0xf : q[s - 8] >> 4;
  const int high = (q[8 + s % 4] >> (2 * (s / 4))) & 3;
  return low | (high << 4);
}

// The inverse of q3_k_scale: writes the 6-bit scale (0..63) of sub-block s
// into q, leaving the bits of other sub-blocks as they are.
inline void set_q3_k_scale(int s, std::uint8_t* q, int scale) {
  scale &= 63;
  if (s < 8) {
    q[s] = static_cast<std::uint8_t>((q[s] & 0xf0) | (scale & 0xf));
  } else {
    q[s - 8] = static_cast<std::uint8_t>((q[s - 8] & 0x0f) | ((scale & 0xf) << 4));
  }
  const int shift = 2 * (s / 4);
  q[8 + s % 4] = static_cast<std::uint8_t>((q[8 + s % 4] & ~(3 << shift)) | ((scale >> 4) << shift));
}

// The 6-bit stored scale (0..63; the weight uses scale - 32) of sub-block ib
// (0..7) of an IQ4_XS block.
inline int iq4_xs_scale(int ib, const BlockIQ4_XS& block) {
  const int low = (block.scales_l[ib / 2] >> (4 * (ib % 2))) & 0xf;
  const int high = (block.scales_h >> (2 * ib)) & 3;
  return low | (high << 4);
}

}  // namespace vktune::ref
