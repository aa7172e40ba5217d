// GGUF Q8_0 blocks (see quant_words.glsl for the interface): 34 bytes =
// fp16 d, then 32 int8 q; weight t = d*q[t]. Run r is q bytes 4r..4r+3.
// Units: 8 weights (two runs, one 8-byte read).
#ifndef VKTUNE_Q8_0_GLSL
#define VKTUNE_Q8_0_GLSL
#include "quant_words.glsl"

#define QB_WEIGHTS 32u
#define QB_BYTES 34u
#define QB_HAS_OFFSET 0
#define QB_UNITS 4u
#define QB_UNIT_RUNS 2u

uint qb_unit_run(uint u, uint i) { return 2u * u + i; }

void qb_run(uint blk, uint r, out vec4 q, out float a, out float b) {
  a = qw_half(blk);
  b = 0.0;
  q = qw_i8x4(qw_at(blk + 2u + 4u * r));
}

void qb_unit_i8(uint blk, uint u, out uint q[QB_UNIT_RUNS], out float a[QB_UNIT_RUNS], out float m[QB_UNIT_RUNS]) {
  const float d = qw_half(blk);
  [[unroll]] for (uint i = 0u; i < QB_UNIT_RUNS; ++i) {
    q[i] = qw_at(blk + 2u + 4u * qb_unit_run(u, i));
    a[i] = d;
    m[i] = 0.0;
  }
}

#endif
