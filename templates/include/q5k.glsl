// GGUF Q5_K super-blocks (see quant_words.glsl for the interface): 176 bytes
// = fp16 d, fp16 dmin, 12 bytes of 6-bit scales and mins packed as Q4_K's
// (q4k.glsl), qh (32 bytes, at 16), qs (128 bytes, at 48). Weight
// t = 64c + 32h + l (l < 32) is nibble h of qs[32c + l] plus 16 times bit
// 2c + h of qh[l], in sub-block 2c + h: (d*scale)*q - dmin*min.
// A unit is one qs word (its low and high nibble runs).
#ifndef VKTUNE_Q5K_GLSL
#define VKTUNE_Q5K_GLSL
#include "q4k.glsl"
#include "quant_words.glsl"

#define QB_WEIGHTS 256u
#define QB_BYTES 176u
#define QB_HAS_OFFSET 1
#define QB_UNITS 32u
#define QB_UNIT_RUNS 2u
#define Q5K_QH_BYTE 16u
#define Q5K_QS_BYTE 48u

uint qb_unit_run(uint u, uint i) { return 16u * (u / 8u) + 8u * i + (u % 8u); }

void qb_run(uint blk, uint r, out vec4 q, out float a, out float b) {
  const uint t = 4u * r;
  const uint c = t / 64u, h = (t / 32u) & 1u, l = t % 32u;
  const uint w0 = blk / 4u;  // super-blocks are 16-byte aligned
  const uvec4 header = uvec4(QW_WORD(w0), QW_WORD(w0 + 1u), QW_WORD(w0 + 2u), QW_WORD(w0 + 3u));
  const vec2 dm = unpackHalf2x16(header.x);
  float sc, mn;
  q4k_scale_min(header, 2u * c + h, sc, mn);
  precise const float d1 = dm.x * sc;
  precise const float m1 = dm.y * mn;
  a = d1;
  b = m1;
  const uint qs = QW_WORD(w0 + (Q5K_QS_BYTE + 32u * c + l) / 4u);
  const uint qh = QW_WORD(w0 + (Q5K_QH_BYTE + l) / 4u);
  q = qw_u8x4(((qs >> (4u * h)) & 0x0F0F0F0Fu) | (((qh >> (2u * c + h)) & 0x01010101u) << 4u));
}

// Unit u: l = 4*(u%8) in chunk c = u/8, low (sub-block 2c) and high (2c+1)
// halves; codes 0..31. The unit with l = 0 owns both sub-blocks' min terms.
void qb_unit_i8(uint blk, uint u, out uint q[QB_UNIT_RUNS], out float a[QB_UNIT_RUNS], out float m[QB_UNIT_RUNS]) {
  const uint c = u / 8u, l = 4u * (u % 8u);
  const uint w0 = blk / 4u;  // super-blocks are 16-byte aligned
  const uvec4 header = uvec4(QW_WORD(w0), QW_WORD(w0 + 1u), QW_WORD(w0 + 2u), QW_WORD(w0 + 3u));
  const vec2 dm = unpackHalf2x16(header.x);
  const uint qs = QW_WORD(w0 + (Q5K_QS_BYTE + 32u * c + l) / 4u);
  const uint qh = QW_WORD(w0 + (Q5K_QH_BYTE + l) / 4u);
  [[unroll]] for (uint h = 0u; h < 2u; ++h) {
    float sc, mn;
    q4k_scale_min(header, 2u * c + h, sc, mn);
    a[h] = dm.x * sc;
    m[h] = dm.y * mn;
    q[h] = ((qs >> (4u * h)) & 0x0F0F0F0Fu) | (((qh >> (2u * c + h)) & 0x01010101u) << 4u);
  }
}

bool qb_owns_min(uint u) { return u % 8u == 0u; }

#endif
