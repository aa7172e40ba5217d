#version 450
// Argmax over rows of N floats: the index of the largest value, the lowest
// index among equal values, NaNs skipped (an all-NaN row gives 0), written
// as a float (exact below 2^24). One team per row, see include/rowops.glsl;
// or, SPLIT_STEPS > 0, a row split into segments of SPLIT_STEPS steps, one
// workgroup each (the x axis of the dispatch; the rows along y): each leaves
// its segment's best (value, index) in the scratch buffer, and the last one
// of the row to finish (include/last_workgroup.glsl) picks the row's best
// among them. A single team walking a vocabulary-sized row (128256 floats)
// waits on its loads step after step; the segments' loads are all in flight
// at once.
//
// Parameters: WG_SIZE, ROWS_PER_WG, VEC, EPT, REDUCTION, SPLIT_STEPS,
// SUBGROUP_SIZE (host only). Buffers: x, y (ROWS floats), scratch (SPLIT_STEPS
// > 0: ROWS counters, then a (value bits, index) pair per segment of each
// row, the row's segments side by side). Push constants: ROWS, N.
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

#if SPLIT_STEPS > 0
#if ROWS_PER_WG != 1
#error "SPLIT_STEPS > 0 takes one row per workgroup"
#endif
layout(std430, set = 0, binding = 2) coherent buffer Scratch { uint scratch[]; };
#define LAST_WORKGROUP_COUNTERS scratch
#include "last_workgroup.glsl"
#define SEGMENT (CHUNK * VEC * SPLIT_STEPS)  // floats of a row per workgroup
#endif

void main() {
  rowops_setup();
#if SPLIT_STEPS > 0
  const uint row = gl_WorkGroupID.y;
  const uint first = gl_WorkGroupID.x * SEGMENT;  // inside the row: the dispatch has ceil(N / SEGMENT) along x
  const Span s = make_span(row * N + first, min(SEGMENT, N - first));
#else
  const uint row = gl_WorkGroupID.x * ROWS_PER_WG + team_id;
  const Span s = make_span(min(row, ROWS - 1u) * N, N);
#endif
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
#if SPLIT_STEPS > 0
  // Indices stay those of the buffer until the row's best is written.
  const uint segments = gl_NumWorkGroups.x;
  const uint pairs = ROWS + 2u * row * segments;
  if (lane == 0u) {
    scratch[pairs + 2u * gl_WorkGroupID.x] = floatBitsToUint(best);
    scratch[pairs + 2u * gl_WorkGroupID.x + 1u] = at;
  }
  if (!is_last_workgroup(lane, row, segments)) return;
  best = 0.0;
  at = NONE;
  for (uint j = lane; j < segments; j += TEAM) {
    const float v = uintBitsToFloat(scratch[pairs + 2u * j]);
    const uint i = scratch[pairs + 2u * j + 1u];
    if (better(v, i, best, at)) {
      best = v;
      at = i;
    }
  }
  team_argmax(best, at);
  if (lane == 0u) {
    y[row] = at == NONE ? 0.0 : float(at - row * N);
    scratch[row] = 0u;
  }
#else
  if (row < ROWS && lane == 0u) y[row] = at == NONE ? 0.0 : float(at - s.start);
#endif
}
