#version 450
// Softmax over rows, numerically stable: m = max(v), y = exp(v - m) / sum exp(v - m).
//   CAUSAL 0 (kernel softmax):        rows of N floats, v = x.
//   CAUSAL 1 (kernel softmax_causal): attention scores of HEADS heads, QUERIES
//     query rows of KEYS keys each; query q (0-based) sits at position
//     KEYS - QUERIES + q and sees keys 0..KEYS-QUERIES+q; v = scale * x over
//     those, and the masked keys give y = 0. scale is the one float of
//     binding 1.
// One team per row, see include/rowops.glsl. Three passes over the row (max,
// sum, store) read memory once when the row fits in one step.
//
// Parameters: WG_SIZE, ROWS_PER_WG, VEC, EPT, REDUCTION, SUBGROUP_SIZE (host
// only). Semantics: CAUSAL. Buffers: x, [scale,] y.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#if REDUCTION == 0
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
#if CAUSAL
layout(push_constant) uniform Shape { uint HEADS; uint QUERIES; uint KEYS; };
#define INNER_ROWS QUERIES
#define N KEYS
#else
layout(push_constant) uniform Shape { uint ROWS; uint N; };
#define INNER_ROWS ROWS
#endif

#include "vec.glsl"
layout(std430, set = 0, binding = 0) readonly buffer XS { float xs[]; };
layout(std430, set = 0, binding = 0) readonly buffer XV { VTYPE xv[]; };
#if CAUSAL
layout(std430, set = 0, binding = 1) readonly buffer Scale { float scale; };
#define Y_BINDING 2
#else
#define Y_BINDING 1
#endif
layout(std430, set = 0, binding = Y_BINDING) writeonly buffer YS { float ys[]; };
layout(std430, set = 0, binding = Y_BINDING) writeonly buffer YV { VTYPE yv[]; };

#include "rowops.glsl"

void main() {
  rowops_setup();
  // q: the row along the dispatch's x axis (the query, for CAUSAL).
  const uint q = gl_WorkGroupID.x * ROWS_PER_WG + team_id;
  const uint qc = min(q, INNER_ROWS - 1u);
  const uint row_start = (gl_WorkGroupID.y * INNER_ROWS + qc) * N;
#if CAUSAL
  const float sc = scale;
  const uint len = min(KEYS - QUERIES + qc + 1u, KEYS);
#else
  const float sc = 1.0;
  const uint len = N;
#endif
  const Span s = make_span(row_start, len);
  const uint nv = span_vectors(s);
  const VTYPE neg_inf = VTYPE(uintBitsToFloat(0xFF800000u));

  // Pass 1: the maximum.
  float m = neg_inf.x;
  for (uint base = 0u; base < nv; base += CHUNK) {
    load_step(s, base, neg_inf);
    [[unroll]] for (uint e = 0u; e < EPT; ++e) {
      cache[e] *= sc;
      m = max(m, hmax(cache[e]));
    }
  }
  const uint ei = edge_index(s, lane);
  const float xe = ei != NONE ? xs[ei] * sc : neg_inf.x;
  m = team_max(max(m, xe));

  // Pass 2: the sum of exponentials (kept in cache[] for a one-step row).
  float sum = 0.0;
  if (nv <= CHUNK) {
    [[unroll]] for (uint e = 0u; e < EPT; ++e) {
      if (slot_index(0u, e) < nv) {
        cache[e] = exp(cache[e] - m);
        sum += hsum(cache[e]);
      }
    }
  } else {
    for (uint base = 0u; base < nv; base += CHUNK) {
      load_step(s, base, neg_inf);
      [[unroll]] for (uint e = 0u; e < EPT; ++e) {
        if (slot_index(base, e) < nv) sum += hsum(exp(cache[e] * sc - m));
      }
    }
  }
  const float pe = ei != NONE ? exp(xe - m) : 0.0;
  const float inv = 1.0 / team_sum(sum + pe);
  if (q >= INNER_ROWS) return;

  // Pass 3: store.
  if (nv <= CHUNK) {
    [[unroll]] for (uint e = 0u; e < EPT; ++e) {
      const uint i = slot_index(0u, e);
      if (i < nv) yv[s.vb + i] = cache[e] * inv;
    }
  } else {
    for (uint base = 0u; base < nv; base += CHUNK) {
      load_step(s, base, neg_inf);
      [[unroll]] for (uint e = 0u; e < EPT; ++e) {
        const uint i = slot_index(base, e);
        if (i < nv) yv[s.vb + i] = exp(cache[e] * sc - m) * inv;
      }
    }
  }
  if (ei != NONE) ys[ei] = pe * inv;

#if CAUSAL
  // The masked keys.
  const Span z = make_span(row_start + len, N - len);
  for (uint i = lane; i < span_vectors(z); i += TEAM) yv[z.vb + i] = VTYPE(0.0);
  const uint ez = edge_index(z, lane);
  if (ez != NONE) ys[ez] = 0.0;
#endif
}
