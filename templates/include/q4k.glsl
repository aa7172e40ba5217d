// GGUF Q4_K super-blocks as 32-bit words, shared by the Q4_K templates.
//
// A Q4_K block is 144 bytes = 36 words = 9 uvec4, and a row of K/256 blocks is
// packed without padding, so every block starts 16-byte aligned whenever the
// buffer does:
//   word 0      fp16 d (low half) and fp16 dmin (high half)
//   words 1..3  12 bytes of packed 6-bit scales and mins for sub-blocks 0..7
//   words 4..35 qs: 128 bytes of nibbles
// Weight t of the block (t = 64*c + 32*h + l, chunk c in 0..3, half h in 0..1,
// l in 0..31) is nibble h of qs byte 32*c + l, i.e. of qs word 8*c + l/4,
// byte l%4; it belongs to sub-block j = 2*c + h and equals
//   d*scale(j)*q - dmin*min(j).
// So one qs word holds 4 weights of sub-block 2c (low nibbles, bits 0-3, 8-11,
// 16-19, 24-27) and the 4 weights 32 further on of sub-block 2c+1 (high
// nibbles).

#ifndef VKTUNE_Q4K_GLSL
#define VKTUNE_Q4K_GLSL

#define Q4K_BLOCK_WORDS 36u
#define Q4K_BLOCK_VEC4S 9u
#define Q4K_QS_WORD 4u

// The 6-bit scales of sub-blocks 0..3 (one per byte) from the three scale
// words s0, s1, s2 (header words 1..3).
uint q4k_scales_lo(uint s0) { return s0 & 0x3F3F3F3Fu; }
uint q4k_mins_lo(uint s1) { return s1 & 0x3F3F3F3Fu; }
// Sub-blocks 4..7 keep their low 4 bits in s2 (scale: low nibble, min: high
// nibble) and their top 2 bits in bits 6-7 of the bytes of s0 (scale) and s1
// (min); >> 2 moves bits 6-7 of each byte to bits 4-5.
uint q4k_scales_hi(uint s0, uint s2) { return (s2 & 0x0F0F0F0Fu) | ((s0 >> 2) & 0x30303030u); }
uint q4k_mins_hi(uint s1, uint s2) { return ((s2 >> 4) & 0x0F0F0F0Fu) | ((s1 >> 2) & 0x30303030u); }

// d*scale and dmin*min of the two sub-blocks of 64-weight chunk c (0..3),
// 2c in .x and 2c+1 in .y, from the header words (the dedicated integer
// layouts of Q4_K and Q5_K decode them once per chunk).
void q4k_chunk_scale_min(uvec4 header, uint c, out vec2 a, out vec2 m) {
  const vec2 dm = unpackHalf2x16(header.x);
  const uint shift = 16u * (c & 1u);
  const uint sw = (c < 2u ? q4k_scales_lo(header.y) : q4k_scales_hi(header.y, header.w)) >> shift;
  const uint mw = (c < 2u ? q4k_mins_lo(header.z) : q4k_mins_hi(header.z, header.w)) >> shift;
  a = dm.x * vec2(float(sw & 0xFFu), float((sw >> 8) & 0xFFu));
  m = dm.y * vec2(float(mw & 0xFFu), float((mw >> 8) & 0xFFu));
}

// Scale and min of sub-block j (0..7) as floats, from the header words.
void q4k_scale_min(uvec4 header, uint j, out float scale, out float mn) {
  const uint sw = j < 4u ? q4k_scales_lo(header.y) : q4k_scales_hi(header.y, header.w);
  const uint mw = j < 4u ? q4k_mins_lo(header.z) : q4k_mins_hi(header.z, header.w);
  const uint shift = 8u * (j & 3u);
  scale = float((sw >> shift) & 0xFFu);
  mn = float((mw >> shift) & 0xFFu);
}

// Nibble q of `w` whose lowest bit is bit P (a constant), returned as the
// float 1 + q/16 without an integer-to-float conversion: the nibble is moved
// to the top four mantissa bits (19..22) of 1.0. Callers recover sum(x*q) as
// 16*(sum(x*f) - sum(x)); the cancellation costs at most a few ulps because
// f lies in [1, 2). On GPUs whose int->float conversions run at a fraction of
// the FMA rate (NVIDIA) this keeps dequantization at two integer ops per
// weight.
#define Q4K_NIB_F(w, P)                                                                       \
  uintBitsToFloat((((P) <= 19 ? ((w) << uint(19 - min((P), 19))) : ((w) >> uint(max((P), 19) - 19))) & \
                   0x00780000u) |                                                                   \
                  0x3F800000u)

#endif
