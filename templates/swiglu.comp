#version 450
// SwiGLU, elementwise over ROWS*N floats: y = silu(a) * b (include/swiglu.glsl).
// See include/elementwise.glsl for the layout.
// Parameters: WG_SIZE, VEC, EPT, SUBGROUP_SIZE (host only). Buffers: a, b, y;
// with STACKED=1 (kernel swiglu_stacked) gu, y: a and b side by side in gu's rows.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint ROWS; uint N; };

#include "vec.glsl"
#ifndef STACKED
#define STACKED 0
#endif
#if STACKED
// swiglu_stacked: a and b are one buffer, gu, whose row r holds gate's N
// values, then up's. Output vector i (row r = i / (N/VEC); the kernel makes
// VEC divide N, so no vector straddles a row and no tail is left) reads
// vector i + r*(N/VEC) of gu, and the one N/VEC after it.
layout(std430, set = 0, binding = 0) readonly buffer AS { float as_s[]; };
layout(std430, set = 0, binding = 0) readonly buffer AV { VTYPE as_v[]; };
#define bs_s as_s
#define bs_v as_v
layout(std430, set = 0, binding = 1) writeonly buffer YS { float ys_s[]; };
layout(std430, set = 0, binding = 1) writeonly buffer YV { VTYPE ys_v[]; };
#define A_AT(i) ((i) + ((i) / (N / VEC)) * (N / VEC))
#define B_AT(i) (A_AT(i) + N / VEC)
#else
layout(std430, set = 0, binding = 0) readonly buffer AS { float as_s[]; };
layout(std430, set = 0, binding = 0) readonly buffer AV { VTYPE as_v[]; };
layout(std430, set = 0, binding = 1) readonly buffer BS { float bs_s[]; };
layout(std430, set = 0, binding = 1) readonly buffer BV { VTYPE bs_v[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YS { float ys_s[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YV { VTYPE ys_v[]; };
#endif

#include "swiglu.glsl"
VTYPE op(VTYPE a, VTYPE b) { return swiglu(a, b); }

#define INPUTS 2
#include "elementwise.glsl"
