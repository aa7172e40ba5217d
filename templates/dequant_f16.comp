#version 450
// The first dispatch of the quantized prefill's tensor-cores-dequant path
// (DEQUANT_STAGE=1, kernels/quant_coopmat.hpp): W, N rows of GGUF blocks of
// the type QTYPE (include/quant_block.glsl), dequantized to fp16 into the scratch W16 (binding
// 3, N×K halves row-major), which matmul_quant_cm_f16w.comp multiplies.
//
// Each weight is a*q - b in fp32 (`precise`: bit-exact with
// reference/dequantize.cpp) rounded to fp16 by packHalf2x16, exactly the
// value the fused path (matmul_quant_cm.comp) stages in shared memory.
//
// A workgroup per row of W (gl_WorkGroupID.x = n) and DQ_WG*DQ_RUN weights
// of it (gl_WorkGroupID.y); each invocation takes DQ_RUN consecutive weights
// (a multiple of 8, inside one block: blocks hold 32 or 256), read as runs
// of 4 through the block header's qb_run and written as 16-byte vectors of 8
// halves. Weights past K are not written.
//
// Parameters (#defines): DQ_WG, DQ_RUN. Semantics: QTYPE. Push constants: M, N, K.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "quant_block.glsl"

#if (DQ_RUN % 8) != 0 || (32 % DQ_RUN) != 0
#error "DQ_RUN must be 8, 16 or 32 (whole 16-byte vectors inside one block)"
#endif

layout(local_size_x = DQ_WG, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

layout(std430, set = 0, binding = 3) writeonly buffer W16Buf { uvec4 w16[]; };

void main() {
  const uint n = gl_WorkGroupID.x;
  const uint k0 = (gl_WorkGroupID.y * DQ_WG + gl_LocalInvocationID.x) * DQ_RUN;
  if (n >= N || k0 >= K) return;
  const uint row_bytes = (K / QB_WEIGHTS) * QB_BYTES;
  const uint blk = n * row_bytes + (k0 / QB_WEIGHTS) * QB_BYTES;
  const uint r0 = (k0 % QB_WEIGHTS) / 4u;
  const uint out0 = (n * K + k0) / 8u;
  [[unroll]] for (uint i = 0; i < DQ_RUN / 8; ++i) {
    vec4 q0, q1;
    float a0, b0, a1, b1;
    qb_run(blk, r0 + 2u * i, q0, a0, b0);
    qb_run(blk, r0 + 2u * i + 1u, q1, a1, b1);
    precise const vec4 d0 = a0 * q0 - b0;
    precise const vec4 d1 = a1 * q1 - b1;
    w16[out0 + i] = uvec4(packHalf2x16(d0.xy), packHalf2x16(d0.zw), packHalf2x16(d1.xy), packHalf2x16(d1.zw));
  }
}
