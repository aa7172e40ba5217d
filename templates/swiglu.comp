#version 450
// SwiGLU, elementwise over ROWS*N floats: y = silu(a) * b, silu(v) = v / (1 + exp(-v)).
// See include/elementwise.glsl for the layout.
// Parameters: WG_SIZE, VEC, EPT, SUBGROUP_SIZE (host only). Buffers: a, b, y.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint ROWS; uint N; };

#include "vec.glsl"
layout(std430, set = 0, binding = 0) readonly buffer AS { float as_s[]; };
layout(std430, set = 0, binding = 0) readonly buffer AV { VTYPE as_v[]; };
layout(std430, set = 0, binding = 1) readonly buffer BS { float bs_s[]; };
layout(std430, set = 0, binding = 1) readonly buffer BV { VTYPE bs_v[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YS { float ys_s[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YV { VTYPE ys_v[]; };

// exp(-a) overflows to +inf for a < -88: a / inf = -0, the right limit.
VTYPE op(VTYPE a, VTYPE b) { return a / (1.0 + exp(-a)) * b; }

#define INPUTS 2
#include "elementwise.glsl"
