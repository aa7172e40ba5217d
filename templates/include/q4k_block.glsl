// GGUF Q4_K super-blocks as a block header of the generic quantized
// templates (QTYPE 5 in quant_block.glsl; the interface is described in
// quant_words.glsl). Only qb_run is provided: matmul_q4k's matrix-vector and
// fp32 tiled paths have their own templates (matvec_q4k*.comp,
// matmul_q4k.comp), and the generic tensor-core prefill
// (matmul_quant_cm.comp) needs runs of 4 weights only. Layout as in q4k.glsl:
// weight t = 64c + 32h + l (l < 32) is nibble h of qs byte 32c + l, in
// sub-block 2c + h: (d*scale)*q - dmin*min.
#ifndef VKTUNE_Q4K_BLOCK_GLSL
#define VKTUNE_Q4K_BLOCK_GLSL
#include "q4k.glsl"
#include "quant_words.glsl"

#define QB_WEIGHTS 256u
#define QB_BYTES 144u
#define QB_HAS_OFFSET 1

void qb_run(uint blk, uint r, out vec4 q, out float a, out float b) {
  const uint t = 4u * r;
  const uint c = t / 64u, h = (t / 32u) & 1u, l = t % 32u;
  const uint w0 = blk / 4u;  // super-blocks are 16-byte aligned
  const uvec4 header = uvec4(qwords[w0], qwords[w0 + 1u], qwords[w0 + 2u], qwords[w0 + 3u]);
  const vec2 dm = unpackHalf2x16(header.x);
  float sc, mn;
  q4k_scale_min(header, 2u * c + h, sc, mn);
  precise const float d1 = dm.x * sc;
  precise const float m1 = dm.y * mn;
  a = d1;
  b = m1;
  const uint qs = qwords[w0 + Q4K_QS_WORD + 8u * c + l / 4u];
  q = qw_u8x4((qs >> (4u * h)) & 0x0F0F0F0Fu);
}

#endif
