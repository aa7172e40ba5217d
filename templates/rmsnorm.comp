#version 450
// RMS norm over rows of N floats: y = x / sqrt(mean(x^2) + EPS), and with
// FUSED_WEIGHT (kernel rmsnorm_mul) times the weight w[N] shared by all
// rows. One team per row, see include/rowops.glsl.
//
// Parameters: WG_SIZE, ROWS_PER_WG, VEC, EPT, REDUCTION, SUBGROUP_SIZE (host
// only). Semantics (set by the kernel, not tuned): FUSED_WEIGHT, EPS.
// Buffers: x, [w,] y. Push constants: ROWS, N.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#if REDUCTION == 0
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint ROWS; uint N; };

#include "vec.glsl"
layout(std430, set = 0, binding = 0) readonly buffer XS { float xs[]; };
layout(std430, set = 0, binding = 0) readonly buffer XV { VTYPE xv[]; };
#if FUSED_WEIGHT
layout(std430, set = 0, binding = 1) readonly buffer WS { float ws[]; };
layout(std430, set = 0, binding = 1) readonly buffer WV { VTYPE wv[]; };
#define Y_BINDING 2
#else
#define Y_BINDING 1
#endif
layout(std430, set = 0, binding = Y_BINDING) writeonly buffer YS { float ys[]; };
layout(std430, set = 0, binding = Y_BINDING) writeonly buffer YV { VTYPE yv[]; };

#include "rowops.glsl"

// Stores cache[] (the step at `base` of span s) scaled by inv.
void store_step(Span s, uint base, float inv) {
  const uint nv = span_vectors(s);
  [[unroll]] for (uint e = 0u; e < EPT; ++e) {
    const uint i = slot_index(base, e);
    if (i < nv) {
#if FUSED_WEIGHT
      yv[s.vb + i] = cache[e] * inv * LOAD_ANY(ws, wv, (s.vb + i) * VEC - s.start);
#else
      yv[s.vb + i] = cache[e] * inv;
#endif
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
    [[unroll]] for (uint e = 0u; e < EPT; ++e) acc += dot(cache[e], cache[e]);
  }
  const uint ei = edge_index(s, lane);
  const float xe = ei != NONE ? xs[ei] : 0.0;
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
  if (ei != NONE) {
#if FUSED_WEIGHT
    ys[ei] = xe * inv * ws[ei - s.start];
#else
    ys[ei] = xe * inv;
#endif
  }
}
