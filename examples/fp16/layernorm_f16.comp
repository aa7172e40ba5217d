#version 450
// Layer norm with weight and bias over rows of N halves:
//   y = (x - mean) / sqrt(var + EPS) * w + b, var the mean of (x - mean)^2,
// fp16 in and out, fp32 arithmetic and accumulation (two passes, mean then
// centred squares, as vktune's layernorm). One team per row through vktune's
// include/rowops.glsl: f16 vectors widen into its fp32 cache; this template
// only narrows on store.
//
// Parameters: WG_SIZE, ROWS_PER_WG, VEC, EPT, REDUCTION (0 subgroup, 1 shared
// tree). Semantics: EPS. Buffers: x, w, b, y (f16). Push constants: ROWS, N.
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
layout(std430, set = 0, binding = 1) readonly buffer WS { float16_t ws[]; };
layout(std430, set = 0, binding = 1) readonly buffer WV { HVTYPE wv[]; };
layout(std430, set = 0, binding = 2) readonly buffer BS { float16_t bs[]; };
layout(std430, set = 0, binding = 2) readonly buffer BV { HVTYPE bv[]; };
layout(std430, set = 0, binding = 3) writeonly buffer YS { float16_t ys[]; };
layout(std430, set = 0, binding = 3) writeonly buffer YV { HVTYPE yv[]; };

#include "rowops.glsl"

float centred_squares(Span s, uint base, float mean) {
  float acc = 0.0;
  [[unroll]] for (uint e = 0u; e < EPT; ++e) {
    if (slot_index(base, e) < span_vectors(s)) {
      const VTYPE d = cache[e] - mean;
      acc += dot(d, d);
    }
  }
  return acc;
}

void store_step(Span s, uint base, float mean, float inv) {
  [[unroll]] for (uint e = 0u; e < EPT; ++e) {
    const uint i = slot_index(base, e);
    if (i < span_vectors(s)) {
      const uint at = (s.vb + i) * VEC - s.start;
      yv[s.vb + i] = HVTYPE((cache[e] - mean) * inv * LOAD_ANY(ws, wv, at) + LOAD_ANY(bs, bv, at));
    }
  }
}

void main() {
  rowops_setup();
  const uint row = gl_WorkGroupID.x * ROWS_PER_WG + team_id;
  const Span s = make_span(min(row, ROWS - 1u) * N, N);
  const uint nv = span_vectors(s);

  float acc = 0.0;
  for (uint base = 0u; base < nv; base += CHUNK) {
    load_step(s, base, VTYPE(0.0));
    [[unroll]] for (uint e = 0u; e < EPT; ++e) acc += hsum(cache[e]);
  }
  const uint ei = edge_index(s, lane);
  const float xe = ei != NONE ? float(xs[ei]) : 0.0;
  const float mean = team_sum(acc + xe) / float(N);

  acc = ei != NONE ? (xe - mean) * (xe - mean) : 0.0;
  if (nv <= CHUNK) {
    acc += centred_squares(s, 0u, mean);
  } else {
    for (uint base = 0u; base < nv; base += CHUNK) {
      load_step(s, base, VTYPE(0.0));
      acc += centred_squares(s, base, mean);
    }
  }
  const float inv = inversesqrt(team_sum(acc) / float(N) + EPS);
  if (row >= ROWS) return;

  if (nv <= CHUNK) {
    store_step(s, 0u, mean, inv);
  } else {
    for (uint base = 0u; base < nv; base += CHUNK) {
      load_step(s, base, VTYPE(0.0));
      store_step(s, base, mean, inv);
    }
  }
  if (ei != NONE) ys[ei] = float16_t((xe - mean) * inv * float(ws[ei - s.start]) + float(bs[ei - s.start]));
}
