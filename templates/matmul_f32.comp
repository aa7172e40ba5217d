#version 450
// matmul_f32: y[M×N] = x[M×K] · Wᵀ, all fp32 row-major (W is N rows of K).
// A shared-memory tiled kernel with register blocking; the body is
// templates/include/matmul_tiled.glsl.
//
// Parameters (#defines): TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N, VEC
// (1 = scalar loads, any K; 4 = vec4 loads, K a multiple of 4), STAGES
// (shared buffers, read through TILED_STAGES); from the plan, TILED_STAGES
// and TILED_UNROLL_K (kernels/dense_matmul.hpp).

#extension GL_GOOGLE_include_directive : require

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

layout(std430, set = 0, binding = 0) readonly buffer XBuf1 { float x1[]; };
layout(std430, set = 0, binding = 0) readonly buffer XBuf4 { vec4 x4[]; };
layout(std430, set = 0, binding = 1) readonly buffer WBuf1 { float w1[]; };
layout(std430, set = 0, binding = 1) readonly buffer WBuf4 { vec4 w4[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };

vec4 tiled_load_x4(uint e) { return x4[e / 4u]; }
vec4 tiled_load_w4(uint e) { return w4[e / 4u]; }
float tiled_load_x1(uint e) { return x1[e]; }
float tiled_load_w1(uint e) { return w1[e]; }

#include "matmul_tiled.glsl"

void main() { tiled_main(); }
