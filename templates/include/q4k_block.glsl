// GGUF Q4_K super-blocks as a block header of the generic quantized
// templates (QTYPE 5 in quant_block.glsl; the interface is described in
// quant_words.glsl). Layout as in q4k.glsl: weight t = 64c + 32h + l
// (l < 32) is nibble h of qs byte 32c + l, in sub-block 2c + h:
// (d*scale)*q - dmin*min. A unit is one qs word (its low and high nibble
// runs), as Q5_K's (q5k.glsl) without the fifth bits.
#ifndef VKTUNE_Q4K_BLOCK_GLSL
#define VKTUNE_Q4K_BLOCK_GLSL
#include "q4k.glsl"
#include "quant_words.glsl"

#define QB_WEIGHTS 256u
#define QB_BYTES 144u
#define QB_HAS_OFFSET 1
#define QB_UNITS 32u
#define QB_UNIT_RUNS 2u

uint qb_unit_run(uint u, uint i) { return 16u * (u / 8u) + 8u * i + (u % 8u); }

// The header words of the block at byte `blk` (super-blocks are 16-byte aligned).
uvec4 q4k_header(uint blk) {
  const uint w0 = blk / 4u;
  return uvec4(QW_WORD(w0), QW_WORD(w0 + 1u), QW_WORD(w0 + 2u), QW_WORD(w0 + 3u));
}

void qb_run(uint blk, uint r, out vec4 q, out float a, out float b) {
  const uint t = 4u * r;
  const uint c = t / 64u, h = (t / 32u) & 1u, l = t % 32u;
  const uvec4 header = q4k_header(blk);
  const vec2 dm = unpackHalf2x16(header.x);
  float sc, mn;
  q4k_scale_min(header, 2u * c + h, sc, mn);
  precise const float d1 = dm.x * sc;
  precise const float m1 = dm.y * mn;
  a = d1;
  b = m1;
  const uint qs = QW_WORD(blk / 4u + Q4K_QS_WORD + 8u * c + l / 4u);
  q = qw_u8x4((qs >> (4u * h)) & 0x0F0F0F0Fu);
}

// Unit u: l = 4*(u%8) in chunk c = u/8, low (sub-block 2c) and high (2c+1)
// nibbles; codes 0..15. The unit with l = 0 owns both sub-blocks' min terms.
void qb_unit_i8(uint blk, uint u, out uint q[QB_UNIT_RUNS], out float a[QB_UNIT_RUNS], out float m[QB_UNIT_RUNS]) {
  const uint c = u / 8u;
  const uvec4 header = q4k_header(blk);
  const vec2 dm = unpackHalf2x16(header.x);
  const uint qs = QW_WORD(blk / 4u + Q4K_QS_WORD + 8u * c + u % 8u);
  [[unroll]] for (uint h = 0u; h < 2u; ++h) {
    float sc, mn;
    q4k_scale_min(header, 2u * c + h, sc, mn);
    a[h] = dm.x * sc;
    m[h] = dm.y * mn;
    q[h] = (qs >> (4u * h)) & 0x0F0F0F0Fu;
  }
}

bool qb_owns_min(uint u) { return u % 8u == 0u; }

#endif
