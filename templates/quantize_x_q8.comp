#version 450
// The first dispatch of the quantized prefill's int8 tensor-core path
// (DEQUANT_STAGE=3, kernels/quant_coopmat.hpp): x (binding 0, M×K fp32
// row-major) quantized to 8 bits per 32 values exactly as the decode path's
// X_QUANT=1 quantizes it (include/x_q8.glsl's quantize_segment: codes
// round(x/dx), dx = max|x|/127, and dx times the sum of the codes), into the
// scratch binding 3 behind W's codes (requant_w_q8.comp):
//   bytes 2NK + mK + k         code of x[m][k],
//   vec2  (2NK + MK)/8 + (k/32)*M + m   (dx, dx * sum of codes) of the 32
//                              values from k: group-major, so that the GEMM
//                              reads a group's scales of consecutive rows as
//                              one run.
// A workgroup per row of x (gl_WorkGroupID.x = m) and XQ_SEG values of it
// (gl_WorkGroupID.y), quantized into shared memory and copied out.
//
// Parameters (#defines): XQ_SEG (a multiple of 8 * XQ_WG). Push constants:
// M, N, K.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_spirv_intrinsics : require

#include "int_dot.glsl"

#define XQ_WG (XQ_SEG / 8)  // 8 values an invocation: one pass of quantize_segment
layout(local_size_x = XQ_WG, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

#include "matmul_xy.glsl"

layout(std430, set = 0, binding = 3) writeonly buffer Q8Words { uint q8_words[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Q8Scales { vec2 q8_scales[]; };

#define C 1u
#define SEG XQ_SEG
#define WG_SIZE XQ_WG
#define XQ_BATCH 1u
uint col_row[C];
#include "x_q8.glsl"

void main() {
  const uint m = gl_WorkGroupID.x;
  const uint k0 = gl_WorkGroupID.y * SEG;
  if (m >= M || k0 >= K) return;  // uniform over the workgroup
  col_row[0] = m;
  const uint len = min(SEG, K - k0);  // K is a multiple of 32
  quantize_segment(k0, len);
  barrier();
  const uint tid = gl_LocalInvocationID.x;
  const uint words = (2u * N * K + m * K + k0) / 4u;
  for (uint w = tid; w < len / 4u; w += WG_SIZE) q8_words[words + w] = xq[w];
  const uint scales = (2u * N * K + M * K) / 8u + (k0 / 32u) * M + m;
  for (uint g = tid; g < len / 32u; g += WG_SIZE) q8_scales[scales + g * M] = xds[g];
}
