#pragma once
// Byte layouts of the quantized GGUF blocks, as the GGUF specification (ggml's
// block structs) defines them. All multi-byte fields are little-endian; fp16
// fields are raw IEEE binary16 bits (see fp16.hpp).
//
// A row of blocks is packed with no padding, so a block of 18, 34 or 210 bytes
// is only 2-byte aligned inside a row, and a row itself may sit anywhere in a
// mapped file. Never reinterpret_cast row bytes to these structs: use
// load_block / store_block, which copy through memcpy.
#include <cstddef>
#include <cstdint>
#include <bit>
#include <cstring>
#include <type_traits>

namespace vktune::ref {

inline constexpr std::size_t qk4_0 = 32;  // weights per Q4_0 block
inline constexpr std::size_t qk8_0 = 32;  // weights per Q8_0 block
inline constexpr std::size_t qk_k = 256;  // weights per K-quant super-block
inline constexpr std::size_t k_scale_bytes = 12;  // packed 6-bit scales+mins of Q4_K/Q5_K

// Q4_0: y = d * (q - 8); weight j of the block is the low nibble of qs[j] for
// j < 16 and the high nibble of qs[j-16] otherwise.
struct BlockQ4_0 {
  std::uint16_t d;                // fp16 scale
  std::uint8_t qs[qk4_0 / 2];     // nibbles
};

// Q8_0: y = d * q.
struct BlockQ8_0 {
  std::uint16_t d;                // fp16 scale
  std::int8_t qs[qk8_0];
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

static_assert(sizeof(BlockQ4_0) == 18 && offsetof(BlockQ4_0, qs) == 2);
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

}  // namespace vktune::ref
