#version 450
// Residual add, elementwise over ROWS*N floats: y = a + b.
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

VTYPE op(VTYPE a, VTYPE b) { return a + b; }

#define INPUTS 2
#include "elementwise.glsl"
