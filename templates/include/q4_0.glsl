// GGUF Q4_0 blocks (see quant_words.glsl for the interface): 18 bytes =
// fp16 d, then 16 bytes qs; weight j < 16 is the low nibble of qs[j], weight
// j + 16 the high nibble; weight = (nibble - 8)*d. Run r < 4 is the low
// nibbles of qs word r, run r + 4 its high nibbles; a unit is one qs word
// (runs u and u + 4).
#ifndef VKTUNE_Q4_0_GLSL
#define VKTUNE_Q4_0_GLSL
#include "quant_words.glsl"

#define QB_WEIGHTS 32u
#define QB_BYTES 18u
#define QB_HAS_OFFSET 0
#define QB_UNITS 4u
#define QB_UNIT_RUNS 2u

uint qb_unit_run(uint u, uint i) { return u + 4u * i; }

void qb_run(uint blk, uint r, out vec4 q, out float a, out float b) {
  a = qw_half(blk);
  b = 0.0;
  const uint w = qw_at(blk + 2u + 4u * (r & 3u));
  q = qw_u8x4((w >> (4u * (r >> 2u))) & 0x0F0F0F0Fu) - 8.0;
}

// Unit u: word u of the nibbles, low nibbles (run u) then high (run u + 4).
void qb_unit_i8(uint blk, uint u, out uint q[QB_UNIT_RUNS], out float a[QB_UNIT_RUNS], out float m[QB_UNIT_RUNS]) {
  const float d = qw_half(blk);
  const uint w = qw_at(blk + 2u + 4u * u);
  q[0] = qw_sub_bias(w & 0x0F0F0F0Fu, 8u);
  q[1] = qw_sub_bias((w >> 4u) & 0x0F0F0F0Fu, 8u);
  a[0] = a[1] = d;
  m[0] = m[1] = 0.0;
}

#endif
