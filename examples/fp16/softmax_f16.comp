#version 450
// Softmax over rows of N halves, numerically stable: m = max(x),
// y = exp(x - m) / sum exp(x - m); fp16 in and out, exp and the reductions
// in fp32. One team per row through vktune's include/rowops.glsl (f16
// vectors widen into its fp32 cache); three passes over the row (max, sum,
// store) read memory once when the row fits in one step.
//
// ACC_F16 1 (measurement only, not in the spec: see softmax_f16.json) sums
// each invocation's exponentials in fp16 before the fp32 team sum.
//
// Parameters: WG_SIZE, ROWS_PER_WG, VEC, EPT, REDUCTION (0 subgroup, 1 shared
// tree). Buffers: x, y (f16). Push constants: ROWS, N.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#if REDUCTION == 0
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint ROWS; uint N; };

#include "f16_types.glsl"
#include "vec.glsl"
layout(std430, set = 0, binding = 0) readonly buffer XS { float16_t xs[]; };
layout(std430, set = 0, binding = 0) readonly buffer XV { HVTYPE xv[]; };
layout(std430, set = 0, binding = 1) writeonly buffer YS { float16_t ys[]; };
layout(std430, set = 0, binding = 1) writeonly buffer YV { HVTYPE yv[]; };

#include "rowops.glsl"

#if ACC_F16
#define ACC float16_t
#else
#define ACC float
#endif

void main() {
  rowops_setup();
  const uint row = gl_WorkGroupID.x * ROWS_PER_WG + team_id;
  const Span s = make_span(min(row, ROWS - 1u) * N, N);
  const uint nv = span_vectors(s);
  const VTYPE neg_inf = VTYPE(uintBitsToFloat(0xFF800000u));

  // Pass 1: the maximum (exact in any precision).
  float m = neg_inf.x;
  for (uint base = 0u; base < nv; base += CHUNK) {
    load_step(s, base, neg_inf);
    [[unroll]] for (uint e = 0u; e < EPT; ++e) m = max(m, hmax(cache[e]));
  }
  const uint ei = edge_index(s, lane);
  const float xe = ei != NONE ? float(xs[ei]) : neg_inf.x;
  m = team_max(max(m, xe));

  // Pass 2: the sum of exponentials (kept in cache[] for a one-step row).
  ACC sum = ACC(0.0);
  for (uint base = 0u; base < nv; base += CHUNK) {
    if (base > 0u || nv > CHUNK) load_step(s, base, neg_inf);
    [[unroll]] for (uint e = 0u; e < EPT; ++e) {
      if (slot_index(base, e) < nv) {
        cache[e] = exp(cache[e] - m);
        sum += ACC(hsum(cache[e]));
      }
    }
  }
  const float pe = ei != NONE ? exp(xe - m) : 0.0;
  const float inv = 1.0 / team_sum(float(sum) + pe);
  if (row >= ROWS) return;

  // Pass 3: store.
  for (uint base = 0u; base < nv; base += CHUNK) {
    if (nv > CHUNK) {
      load_step(s, base, neg_inf);
      [[unroll]] for (uint e = 0u; e < EPT; ++e) cache[e] = exp(cache[e] - m);
    }
    [[unroll]] for (uint e = 0u; e < EPT; ++e) {
      const uint i = slot_index(base, e);
      if (i < nv) yv[s.vb + i] = HVTYPE(cache[e] * inv);
    }
  }
  if (ei != NONE) ys[ei] = float16_t(pe * inv);
}
