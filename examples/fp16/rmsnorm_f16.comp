#version 450
// RMS norm with weight over rows of N halves: y = x / sqrt(mean(x^2) + EPS) * w,
// fp16 in and out, fp32 arithmetic and accumulation (the row's sum of squares
// overflows fp16's 65504 once the row's rms passes 4 at N = 4096).
// One team per row through vktune's include/rowops.glsl: it loads the f16
// vectors into fp32 vectors (implicit widening), reduces in fp32; this
// template only narrows on store.
//
// Parameters: WG_SIZE, ROWS_PER_WG, VEC, EPT, REDUCTION (0 subgroup, 1 shared
// tree). Semantics: EPS. Buffers: x, w, y (f16). Push constants: ROWS, N.
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
layout(std430, set = 0, binding = 2) writeonly buffer YS { float16_t ys[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YV { HVTYPE yv[]; };

#include "rowops.glsl"

// Stores cache[] (the step at `base` of span s) scaled by inv and the weight.
void store_step(Span s, uint base, float inv) {
  const uint nv = span_vectors(s);
  [[unroll]] for (uint e = 0u; e < EPT; ++e) {
    const uint i = slot_index(base, e);
    if (i < nv) yv[s.vb + i] = HVTYPE(cache[e] * inv * LOAD_ANY(ws, wv, (s.vb + i) * VEC - s.start));
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
    [[unroll]] for (uint e = 0u; e < EPT; ++e) acc += dot(cache[e], cache[e]);
  }
  const uint ei = edge_index(s, lane);
  const float xe = ei != NONE ? float(xs[ei]) : 0.0;
  acc += xe * xe;
  const float inv = inversesqrt(team_sum(acc) / float(N) + EPS);
  if (row >= ROWS) return;

  if (nv <= CHUNK) {
    store_step(s, 0u, inv);  // the row is still in cache[]
  } else {
    for (uint base = 0u; base < nv; base += CHUNK) {
      load_step(s, base, VTYPE(0.0));
      store_step(s, base, inv);
    }
  }
  if (ei != NONE) ys[ei] = float16_t(xe * inv * float(ws[ei - s.start]));
}
