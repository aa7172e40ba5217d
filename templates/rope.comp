#version 450
// Rotary position embedding over TOKENS tokens of HEADS heads of HEAD_DIM
// (even) values, as reference/ops.hpp `rope` defines it: token t is rotated
// by p = pos[t]; pair i (0 <= i < HEAD_DIM/2) turns by
// theta = p * base^(-2i/HEAD_DIM):
//   (a, b) -> (a cos(theta) - b sin(theta), a sin(theta) + b cos(theta)).
//   NEOX 0 (kernels rope, rope_f16):          pair i is (x[2i], x[2i+1]);
//   NEOX 1 (kernels rope_neox, rope_neox_f16): pair i is (x[i], x[i + HEAD_DIM/2]).
// F16 1: x holds fp16 values, read as packed 32-bit words (two halves each)
// and widened with unpackHalf2x16, so no 16-bit storage feature is needed;
// y is always fp32.
// CACHE 1 (kernels rope_cache, rope_neox_cache; F16 0): y is a KV cache of
// fp16 values, KV_LEN rows of HEADS*HEAD_DIM ([kv_len][heads][head_dim], what
// attention_decode reads), and token t's rotated row is stored at row pos[t]
// instead of row t: the rope of k and the cache store in one dispatch. The
// values are packed with packHalf2x16 into whole 32-bit words (no 16-bit
// storage feature), each word within this token's row and written by one
// invocation only, so no read-modify-write: NEOX 0 packs pair (2i, 2i+1) into
// one word; NEOX 1 packs outputs i and i+1 of one half (pairs i and i+1), so
// it needs VEC >= 2. The other cache rows are never touched. KV_LEN, the
// shape's fourth push-constant word, is not read (the row is pos[t]).
//
// A workgroup takes HEADS_PER_WG heads of one token (gl_WorkGroupID.x: head
// group, .y: token). Its work items are (pair vector j, head slot g): VEC
// consecutive pairs of HEADS_PER_THREAD consecutive heads, which share one
// sin/cos evaluation per pair. Invocations walk the items in steps of
// WG_SIZE, j fastest (consecutive lanes read consecutive memory).
//
// theta and its sin/cos: include/rope_angle.glsl.
//
// Parameters: WG_SIZE, HEADS_PER_WG, HEADS_PER_THREAD, VEC. Semantics: NEOX,
// F16, CACHE. Buffers: x, pos (int32 per token), base (one float: the
// frequency base, e.g. 10000 or 500000), y (the cache with CACHE 1). Push
// constants: TOKENS, HEADS, HEAD_DIM (and KV_LEN with CACHE 1, unread).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "rope_angle.glsl"

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint TOKENS; uint HEADS; uint HEAD_DIM; };

#if F16
layout(std430, set = 0, binding = 0) readonly buffer X1 { uint x1[]; };   // 2 halves
layout(std430, set = 0, binding = 0) readonly buffer X2 { uvec2 x2[]; };  // 4 halves
#else
layout(std430, set = 0, binding = 0) readonly buffer X1 { float x1[]; };
layout(std430, set = 0, binding = 0) readonly buffer X2 { vec2 x2[]; };
layout(std430, set = 0, binding = 0) readonly buffer X4 { vec4 x4[]; };
#endif
layout(std430, set = 0, binding = 1) readonly buffer Pos { int pos[]; };
layout(std430, set = 0, binding = 2) readonly buffer Base { float freq_base; };
#if CACHE
layout(std430, set = 0, binding = 3) writeonly buffer C1 { uint c1[]; };   // 2 halves
layout(std430, set = 0, binding = 3) writeonly buffer C2 { uvec2 c2[]; };  // 4 halves
layout(std430, set = 0, binding = 3) writeonly buffer C4 { uvec4 c4[]; };  // 8 halves
#else
layout(std430, set = 0, binding = 3) writeonly buffer Y1 { float y1[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y2 { vec2 y2[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y4 { vec4 y4[]; };
#endif

#if VEC != 1 && VEC != 2 && VEC != 4
#error "VEC must be 1, 2 or 4"
#endif
#if CACHE && F16
#error "the cache mode reads fp32 x"
#endif
#if CACHE && NEOX && VEC == 1
#error "NEOX with CACHE packs outputs i and i+1 into one word: VEC must be at least 2"
#endif
#if (HEADS_PER_WG % HEADS_PER_THREAD) != 0
#error "HEADS_PER_THREAD must divide HEADS_PER_WG"
#endif

// 1, 2 or 4 consecutive x values from element e (aligned to the count).
float ld1(uint e) {
#if F16
  return unpackHalf2x16(x1[e >> 1u])[e & 1u];
#else
  return x1[e];
#endif
}
vec2 ld2(uint e) {
#if F16
  return unpackHalf2x16(x1[e >> 1u]);
#else
  return x2[e >> 1u];
#endif
}
vec4 ld4(uint e) {
#if F16
  const uvec2 w = x2[e >> 2u];
  return vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y));
#else
  return x4[e >> 2u];
#endif
}

// Pairs i0 .. i0+VEC-1 of the head starting at element `base`: (a[k], b[k]).
void load_pairs(uint base, uint i0, out float a[VEC], out float b[VEC]) {
#if NEOX
  const uint ea = base + i0, eb = base + HEAD_DIM / 2u + i0;
#if VEC == 1
  a[0] = ld1(ea);
  b[0] = ld1(eb);
#elif VEC == 2
  const vec2 u = ld2(ea), w = ld2(eb);
  a[0] = u.x, a[1] = u.y;
  b[0] = w.x, b[1] = w.y;
#else
  const vec4 u = ld4(ea), w = ld4(eb);
  [[unroll]] for (uint k = 0u; k < 4u; ++k) a[k] = u[k], b[k] = w[k];
#endif
#else
  const uint e = base + 2u * i0;
#if VEC == 1
  const vec2 u = ld2(e);
  a[0] = u.x, b[0] = u.y;
#elif VEC == 2
  const vec4 u = ld4(e);
  a[0] = u.x, b[0] = u.y, a[1] = u.z, b[1] = u.w;
#else
  const vec4 u = ld4(e), w = ld4(e + 4u);
  a[0] = u.x, b[0] = u.y, a[1] = u.z, b[1] = u.w;
  a[2] = w.x, b[2] = w.y, a[3] = w.z, b[3] = w.w;
#endif
#endif
}

// Pairs i0 .. i0+VEC-1 of the output head starting at element `base`. With
// CACHE, as fp16 words: element offsets are multiples of the word's halves
// since HEAD_DIM/2 % VEC == 0 (so HEAD_DIM % (2*VEC) == 0).
void store_pairs(uint base, uint i0, float a[VEC], float b[VEC]) {
#if CACHE && NEOX
  const uint ea = base + i0, eb = base + HEAD_DIM / 2u + i0;
#if VEC == 2
  c1[ea >> 1u] = packHalf2x16(vec2(a[0], a[1]));
  c1[eb >> 1u] = packHalf2x16(vec2(b[0], b[1]));
#else
  c2[ea >> 2u] = uvec2(packHalf2x16(vec2(a[0], a[1])), packHalf2x16(vec2(a[2], a[3])));
  c2[eb >> 2u] = uvec2(packHalf2x16(vec2(b[0], b[1])), packHalf2x16(vec2(b[2], b[3])));
#endif
#elif CACHE
  const uint e = base + 2u * i0;
#if VEC == 1
  c1[e >> 1u] = packHalf2x16(vec2(a[0], b[0]));
#elif VEC == 2
  c2[e >> 2u] = uvec2(packHalf2x16(vec2(a[0], b[0])), packHalf2x16(vec2(a[1], b[1])));
#else
  c4[e >> 3u] = uvec4(packHalf2x16(vec2(a[0], b[0])), packHalf2x16(vec2(a[1], b[1])),
                      packHalf2x16(vec2(a[2], b[2])), packHalf2x16(vec2(a[3], b[3])));
#endif
#elif NEOX
  const uint ea = base + i0, eb = base + HEAD_DIM / 2u + i0;
#if VEC == 1
  y1[ea] = a[0];
  y1[eb] = b[0];
#elif VEC == 2
  y2[ea >> 1u] = vec2(a[0], a[1]);
  y2[eb >> 1u] = vec2(b[0], b[1]);
#else
  y4[ea >> 2u] = vec4(a[0], a[1], a[2], a[3]);
  y4[eb >> 2u] = vec4(b[0], b[1], b[2], b[3]);
#endif
#else
  const uint e = base + 2u * i0;
#if VEC == 1
  y2[e >> 1u] = vec2(a[0], b[0]);
#elif VEC == 2
  y4[e >> 2u] = vec4(a[0], b[0], a[1], b[1]);
#else
  y4[e >> 2u] = vec4(a[0], b[0], a[1], b[1]);
  y4[(e >> 2u) + 1u] = vec4(a[2], b[2], a[3], b[3]);
#endif
#endif
}

void main() {
  const uint t = gl_WorkGroupID.y;
  const uint pv = HEAD_DIM / 2u / VEC;  // pair vectors per head
  const uint first_head = gl_WorkGroupID.x * HEADS_PER_WG;
  const float p = float(pos[t]);
#if CACHE
  const uint out_row = uint(pos[t]);  // the cache row of this token
#else
  const uint out_row = t;
#endif
  const float log2_step = rope_log2_step(freq_base, HEAD_DIM);
  const uint items = pv * (HEADS_PER_WG / HEADS_PER_THREAD);
  for (uint k = gl_LocalInvocationID.x; k < items; k += WG_SIZE) {
    const uint j = k % pv;
    const uint h0 = first_head + (k / pv) * HEADS_PER_THREAD;
    if (h0 >= HEADS) break;  // later items only have higher heads
    float cs[VEC], sn[VEC];
    [[unroll]] for (uint v = 0u; v < VEC; ++v) {
      const vec2 turn = rope_cos_sin(p, j * VEC + v, log2_step);
      cs[v] = turn.x;
      sn[v] = turn.y;
    }
    [[unroll]] for (uint e = 0u; e < HEADS_PER_THREAD; ++e) {
      const uint h = h0 + e;
      if (h < HEADS) {
        const uint base = (t * HEADS + h) * HEAD_DIM;
        float a[VEC], b[VEC];
        load_pairs(base, j * VEC, a, b);
        [[unroll]] for (uint v = 0u; v < VEC; ++v) {
          const float ra = a[v] * cs[v] - b[v] * sn[v];
          const float rb = a[v] * sn[v] + b[v] * cs[v];
          a[v] = ra;
          b[v] = rb;
        }
        store_pairs((out_row * HEADS + h) * HEAD_DIM, j * VEC, a, b);
      }
    }
  }
}
