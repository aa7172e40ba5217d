// The angle of a rotary position embedding, as reference/ops.hpp `rope`
// defines it: pair i (0 <= i < head_dim/2) of a token at position p turns by
// theta = p * base^(-2i/head_dim). Shared by rope.comp and the products that
// rotate their outputs as they store them (include/matvec_pair_store.glsl).
//
// theta is reduced to [-pi, pi] before sin/cos (Cody-Waite with 2*pi split
// in an exact high part and a low part), so the result does not depend on how
// a driver's sin/cos handle arguments up to ~8000 radians.
#ifndef VKTUNE_ROPE_ANGLE_GLSL
#define VKTUNE_ROPE_ANGLE_GLSL

// log2(theta) step per pair: -2/head_dim * log2(base).
float rope_log2_step(float freq_base, uint head_dim) { return -2.0 * log2(freq_base) / float(head_dim); }

// (cos(theta), sin(theta)) of pair `pair` at position p.
vec2 rope_cos_sin(float p, uint pair, float log2_step) {
  const float theta = p * exp2(float(pair) * log2_step);
  const float n = round(theta * 0.15915494309189535);
  const float r = (theta - n * 6.28125) - n * 1.9353071795864769e-3;  // theta - 2*pi*n
  return vec2(cos(r), sin(r));
}

#endif
