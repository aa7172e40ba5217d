#version 450
// Embedding lookup: out[t, :] = dequantize(table[ids[t], :]) for TOKENS token
// ids into a table of VOCAB rows of DIM weights, bit-exact with
// reference/dequantize.hpp (products and differences rounded as there;
// `precise` keeps Q4_K's d1*q - m1 from being fused).
//   TYPE 0 (get_rows_f16):  rows of DIM fp16 values.
//   TYPE 1 (get_rows_q8_0): rows of DIM/32 Q8_0 blocks of 34 bytes (fp16 d,
//     32 int8 q; y = q*d). Blocks are only 2-byte aligned, so four weights
//     are read as two words and funnel-shifted.
//   TYPE 2 (get_rows_q4k):  rows of DIM/256 Q4_K super-blocks (include/q4k.glsl).
// The table is read as 32-bit words (fp16 widened with unpackHalf2x16), so no
// 8- or 16-bit storage feature is needed; only the selected rows are read.
//
// An invocation writes ELEMS consecutive outputs of one row (one run of a
// block: ELEMS divides the block, or DIM for F16), STEPS times, WG_SIZE*ELEMS
// outputs apart. Workgroups: gl_WorkGroupID.x covers WG_SIZE*ELEMS*STEPS
// outputs of a row, .y is the token.
//
// Parameters: WG_SIZE, ELEMS, STEPS. Semantics: TYPE. Buffers: ids (int32),
// table, out (fp32). Push constants: TOKENS, VOCAB, DIM.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint TOKENS; uint VOCAB; uint DIM; };

layout(std430, set = 0, binding = 0) readonly buffer Ids { int ids[]; };
layout(std430, set = 0, binding = 1) readonly buffer T1 { uint tw[]; };
layout(std430, set = 0, binding = 1) readonly buffer T2 { uvec2 tw2[]; };
layout(std430, set = 0, binding = 1) readonly buffer T4 { uvec4 tw4[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { vec4 out4[]; };

#if ELEMS != 4 && ELEMS != 8 && ELEMS != 16 && ELEMS != 32
#error "ELEMS must be 4, 8, 16 or 32"
#endif
#define WORDS (ELEMS / 4)  // vec4 outputs per run

// NW consecutive table words from word w (aligned to NW when NW is 2, or to
// 4 when it is larger).
#if TYPE == 0
#define NW (ELEMS / 2)
#else
#define NW (ELEMS / 4)
#endif
void load_words(uint w, out uint dst[NW]) {
#if NW == 1
  dst[0] = tw[w];
#elif NW == 2
  const uvec2 u = tw2[w >> 1u];
  dst[0] = u.x, dst[1] = u.y;
#else
  [[unroll]] for (uint q = 0u; q < NW / 4; ++q) {
    const uvec4 u = tw4[(w >> 2u) + q];
    dst[4u * q] = u.x, dst[4u * q + 1u] = u.y, dst[4u * q + 2u] = u.z, dst[4u * q + 3u] = u.w;
  }
#endif
}

#if TYPE == 0
// ELEMS values from element e of the table (e a multiple of ELEMS).
void run(uint e, out vec4 v[WORDS]) {
  uint w[NW];
  load_words(e >> 1u, w);
  [[unroll]] for (uint i = 0u; i < WORDS; ++i) {
    v[i] = vec4(unpackHalf2x16(w[2u * i]), unpackHalf2x16(w[2u * i + 1u]));
  }
}

#elif TYPE == 1
#define BLOCK 32u
#define BLOCK_BYTES 34u
// The 4 bytes at byte offset a (a even) as one word.
uint word_at(uint a) {
  const uint lo = tw[a >> 2u];
  if ((a & 3u) == 0u) return lo;
  return (lo >> 16u) | (tw[(a >> 2u) + 1u] << 16u);
}

// ELEMS values of block `blk` (counted over the whole table) from weight l.
void run_block(uint blk, uint l, out vec4 v[WORDS]) {
  const uint o = blk * BLOCK_BYTES;
  const float d = unpackHalf2x16(tw[o >> 2u])[(o >> 1u) & 1u];
  [[unroll]] for (uint i = 0u; i < WORDS; ++i) {
    const int q = int(word_at(o + 2u + l + 4u * i));
    precise vec4 f = vec4(bitfieldExtract(q, 0, 8), bitfieldExtract(q, 8, 8), bitfieldExtract(q, 16, 8),
                          bitfieldExtract(q, 24, 8));
    v[i] = f * d;
  }
}

#elif TYPE == 2
#include "q4k.glsl"
#define BLOCK 256u

// ELEMS values of super-block `blk` (over the whole table) from weight
// l = 64c + 32h + l0: nibble half h of qs words 8c + l0/4 ...
void run_block(uint blk, uint l, out vec4 v[WORDS]) {
  const uint c = l / 64u, h = (l / 32u) & 1u, l0 = l & 31u;
  const uvec4 header = tw4[blk * Q4K_BLOCK_VEC4S];
  float sc, mn;
  q4k_scale_min(header, 2u * c + h, sc, mn);
  const vec2 dm = unpackHalf2x16(header.x);
  precise const float d1 = dm.x * sc;
  precise const float m1 = dm.y * mn;
  uint w[NW];
  load_words(blk * Q4K_BLOCK_WORDS + Q4K_QS_WORD + 8u * c + l0 / 4u, w);
  [[unroll]] for (uint i = 0u; i < WORDS; ++i) {
    const uint n = (w[i] >> (4u * h)) & 0x0F0F0F0Fu;
    const vec4 q = vec4(n & 0xFFu, (n >> 8u) & 0xFFu, (n >> 16u) & 0xFFu, n >> 24u);
    precise vec4 y = d1 * q - m1;
    v[i] = y;
  }
}

#else
#error "TYPE must be 0 (F16), 1 (Q8_0) or 2 (Q4_K)"
#endif

void main() {
  const uint t = gl_WorkGroupID.y;
  const uint row = uint(ids[t]);
  [[unroll]] for (uint s = 0u; s < STEPS; ++s) {
    const uint e = ((gl_WorkGroupID.x * STEPS + s) * WG_SIZE + gl_LocalInvocationID.x) * ELEMS;
    if (e < DIM) {
      vec4 v[WORDS];
#if TYPE == 0
      run(row * DIM + e, v);
#else
      run_block(row * (DIM / BLOCK) + e / BLOCK, e % BLOCK, v);
#endif
      const uint o = (t * DIM + e) / 4u;
      [[unroll]] for (uint i = 0u; i < WORDS; ++i) out4[o + i] = v[i];
    }
  }
}
