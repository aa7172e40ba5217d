// GGUF Q6_K super-blocks (see quant_words.glsl for the interface): 210 bytes
// = ql (128 bytes), qh (64 bytes, at 128), 16 int8 scales (at 192), fp16 d
// (at 208). In half h (weights 128h..), quarter j (32 weights) and l < 32:
// weight 128h + 32j + l has low 4 bits in nibble j/2 of ql[64h + 32(j%2) + l],
// high 2 bits in bits 2j..2j+1 of qh[32h + l], scale scales[8h + 2j + l/16];
// weight = (d*scale)*(q - 32). A unit is 4 consecutive l of a half (its four
// quarters share the qh word).
#ifndef VKTUNE_Q6K_GLSL
#define VKTUNE_Q6K_GLSL
#include "quant_words.glsl"

#define QB_WEIGHTS 256u
#define QB_BYTES 210u
#define QB_HAS_OFFSET 0
#define QB_UNITS 16u
#define QB_UNIT_RUNS 4u
#define Q6K_QH_BYTE 128u
#define Q6K_SCALES_BYTE 192u
#define Q6K_D_BYTE 208u

uint qb_unit_run(uint u, uint i) { return 32u * (u / 8u) + 8u * i + (u % 8u); }

void qb_run(uint blk, uint r, out vec4 q, out float a, out float b) {
  const uint t = 4u * r;
  const uint h = t / 128u, j = (t / 32u) & 3u, l = t % 32u;
  const uint ql = qw_at(blk + 64u * h + 32u * (j & 1u) + l);
  const uint qh = qw_at(blk + Q6K_QH_BYTE + 32u * h + l);
  const float sc = float(qw_i8(blk + Q6K_SCALES_BYTE + 8u * h + 2u * j + l / 16u));
  precise const float d1 = qw_half(blk + Q6K_D_BYTE) * sc;
  a = d1;
  b = 0.0;
  q = qw_u8x4(((ql >> (4u * (j >> 1u))) & 0x0F0F0F0Fu) | (((qh >> (2u * j)) & 0x03030303u) << 4u)) - 32.0;
}

// Unit u: l = 4*(u%8) in half h = u/8, quarters j = 0..3 (one run each, all
// with the same 16-weight scale half l/16); codes q - 32 in -32..31.
void qb_unit_i8(uint blk, uint u, out uint q[QB_UNIT_RUNS], out float a[QB_UNIT_RUNS], out float m[QB_UNIT_RUNS]) {
  const uint h = u / 8u, l = 4u * (u % 8u);
  const uint ql0 = qw_at(blk + 64u * h + l);
  const uint ql1 = qw_at(blk + 64u * h + 32u + l);
  const uint qh = qw_at(blk + Q6K_QH_BYTE + 32u * h + l);
  const float d = qw_half(blk + Q6K_D_BYTE);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    const uint ql = (j & 1u) == 0u ? ql0 : ql1;
    const uint code = ((ql >> (4u * (j >> 1u))) & 0x0F0F0F0Fu) | (((qh >> (2u * j)) & 0x03030303u) << 4u);
    q[j] = qw_sub_bias(code, 32u);
    a[j] = d * float(qw_i8(blk + Q6K_SCALES_BYTE + 8u * h + 2u * j + l / 16u));
    m[j] = 0.0;
  }
}

#endif
