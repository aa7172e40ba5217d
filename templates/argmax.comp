#version 450
// Argmax over rows of N floats: the index of the largest value, the lowest
// index among equal values, NaNs skipped (an all-NaN row gives 0), written
// as a float (exact below 2^24). One team per row, see include/rowops.glsl.
//
// Parameters: WG_SIZE, ROWS_PER_WG, VEC, EPT, REDUCTION, SUBGROUP_SIZE (host
// only). Buffers: x, y (ROWS floats). Push constants: ROWS, N.
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
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };

#define ROWOPS_ARGMAX
#include "rowops.glsl"

void main() {
  rowops_setup();
  const uint row = gl_WorkGroupID.x * ROWS_PER_WG + team_id;
  const Span s = make_span(min(row, ROWS - 1u) * N, N);
  const uint nv = span_vectors(s);

  float best = 0.0;
  uint at = NONE;  // float index in the buffer
  for (uint base = 0u; base < nv; base += CHUNK) {
    load_step(s, base, VTYPE(0.0));
    [[unroll]] for (uint e = 0u; e < EPT; ++e) {
      const uint i = slot_index(base, e);
      if (i < nv) {
        [[unroll]] for (uint k = 0u; k < VEC; ++k) {
          const float v = comp(cache[e], k);
          const uint j = (s.vb + i) * VEC + k;
          if (better(v, j, best, at)) {
            best = v;
            at = j;
          }
        }
      }
    }
  }
  const uint ei = edge_index(s, lane);
  if (ei != NONE && better(xs[ei], ei, best, at)) {
    best = xs[ei];
    at = ei;
  }
  team_argmax(best, at);
  if (row < ROWS && lane == 0u) y[row] = at == NONE ? 0.0 : float(at - s.start);
}
