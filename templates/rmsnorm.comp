#version 450
// RMS norm over rows of N floats: y = x / sqrt(mean(x^2) + EPS), and with
// FUSED_WEIGHT (kernel rmsnorm_mul) times the weight w[N] shared by all
// rows. With ADD_RESIDUAL (kernel add_rmsnorm_mul) the row is the sum of two
// inputs, x = a + b (a transformer's residual add), which is written out as
// well: one dispatch instead of an add and a norm with a barrier between. One
// team per row, see include/rowops.glsl.
//
// Parameters: WG_SIZE, ROWS_PER_WG, VEC, EPT, REDUCTION, SUBGROUP_SIZE (host
// only). Semantics (set by the kernel, not tuned): FUSED_WEIGHT,
// ADD_RESIDUAL, EPS. Buffers: x, [w,] y; with ADD_RESIDUAL a, b, w, s, y.
// Push constants: ROWS, N.
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
#if ADD_RESIDUAL
#if !FUSED_WEIGHT
#error "ADD_RESIDUAL is offered with the weight only (add_rmsnorm_mul)"
#endif
#define ROWOPS_ADD_INPUT
layout(std430, set = 0, binding = 1) readonly buffer BS { float bs[]; };
layout(std430, set = 0, binding = 1) readonly buffer BV { VTYPE bv[]; };
#define W_BINDING 2
layout(std430, set = 0, binding = 3) writeonly buffer SS { float ss[]; };
layout(std430, set = 0, binding = 3) writeonly buffer SV { VTYPE sv[]; };
#define Y_BINDING 4
#else
#define W_BINDING 1
#define Y_BINDING (W_BINDING + FUSED_WEIGHT)
#endif
#if FUSED_WEIGHT
layout(std430, set = 0, binding = W_BINDING) readonly buffer WS { float ws[]; };
layout(std430, set = 0, binding = W_BINDING) readonly buffer WV { VTYPE wv[]; };
#endif
layout(std430, set = 0, binding = Y_BINDING) writeonly buffer YS { float ys[]; };
layout(std430, set = 0, binding = Y_BINDING) writeonly buffer YV { VTYPE yv[]; };

#include "rowops.glsl"

#if FUSED_WEIGHT
// The weights of the step at `base` of span s (0 past its end).
VTYPE w_cache[EPT];
void load_weights(Span s, uint base) {
  const uint nv = span_vectors(s);
  [[unroll]] for (uint e = 0u; e < EPT; ++e) {
    const uint i = slot_index(base, e);
    w_cache[e] = i < nv ? LOAD_ANY(ws, wv, (s.vb + i) * VEC - s.start) : VTYPE(0.0);
  }
}
#endif

// Stores cache[] (the step at `base` of span s) scaled by inv, and with
// FUSED_WEIGHT by w_cache[] (that step's weights, loaded by the caller).
void store_step(Span s, uint base, float inv) {
  const uint nv = span_vectors(s);
  [[unroll]] for (uint e = 0u; e < EPT; ++e) {
    const uint i = slot_index(base, e);
    if (i < nv) {
#if FUSED_WEIGHT
      yv[s.vb + i] = cache[e] * inv * w_cache[e];
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

  const uint ei = edge_index(s, lane);
#if FUSED_WEIGHT
  // Where the row is one step (a decode row: one workgroup, the chain's
  // dependent dispatch waiting on it), its weights and edge weight are
  // loaded before the sum, their latency behind it rather than after.
  float we = 0.0;
  if (nv <= CHUNK) {
    load_weights(s, 0u);
    if (ei != NONE) we = ws[ei - s.start];
  }
#endif
  float acc = 0.0;
  for (uint base = 0u; base < nv; base += CHUNK) {
    load_step(s, base, VTYPE(0.0));
    [[unroll]] for (uint e = 0u; e < EPT; ++e) {
      acc += dot(cache[e], cache[e]);
#if ADD_RESIDUAL
      const uint i = slot_index(base, e);
      if (row < ROWS && i < nv) sv[s.vb + i] = cache[e];
#endif
    }
  }
  const float xe = ei != NONE ? row_float(ei) : 0.0;
#if ADD_RESIDUAL
  if (row < ROWS && ei != NONE) ss[ei] = xe;
#endif
  acc += xe * xe;
  const float inv = inversesqrt(team_sum(acc) / float(N) + EPS);
  if (row >= ROWS) return;

  if (nv <= CHUNK) {
    store_step(s, 0u, inv);  // the row (and its weights) still in cache[] (w_cache[])
  } else {
    for (uint base = 0u; base < nv; base += CHUNK) {
      load_step(s, base, VTYPE(0.0));
#if FUSED_WEIGHT
      load_weights(s, base);
#endif
      store_step(s, base, inv);
    }
  }
  if (ei != NONE) {
#if FUSED_WEIGHT
    ys[ei] = xe * inv * (nv <= CHUNK ? we : ws[ei - s.start]);
#else
    ys[ei] = xe * inv;
#endif
  }
}
