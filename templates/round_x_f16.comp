#version 450
// The second dispatch of the quantized prefill's tensor-cores-dequant-x16
// path (DEQUANT_STAGE=2, kernels/quant_coopmat.hpp): x (binding 0, M×K fp32
// row-major) rounded to fp16 into the scratch W16 (binding 3) behind the
// N×K weights dequant_f16.comp wrote there, for matmul_quant_cm_f16w.comp
// to read as it reads W16. packHalf2x16 rounds as the other paths' staging
// rounds x (include/coopmat_quant_x.glsl), so the values multiplied are
// theirs.
//
// A workgroup per row of x (gl_WorkGroupID.x = m) and ROUND_WG*8 values of
// it (gl_WorkGroupID.y); each invocation reads 8 values as two vec4 and
// writes them as one 16-byte vector (K is a multiple of 32: every GGUF
// block holds 32 or 256 weights).
//
// Parameters (#defines): ROUND_WG. Push constants: M, N, K.

layout(local_size_x = ROUND_WG, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

layout(std430, set = 0, binding = 0) readonly buffer XBuf { vec4 xv[]; };
layout(std430, set = 0, binding = 3) writeonly buffer W16Buf { uvec4 w16[]; };

void main() {
  const uint m = gl_WorkGroupID.x;
  const uint k = (gl_WorkGroupID.y * ROUND_WG + gl_LocalInvocationID.x) * 8u;
  if (m >= M || k >= K) return;
  const uint i = (m * K + k) / 4u;
  const vec4 a = xv[i], b = xv[i + 1u];
  w16[(N * K + m * K + k) / 8u] = uvec4(packHalf2x16(a.xy), packHalf2x16(a.zw), packHalf2x16(b.xy), packHalf2x16(b.zw));
}
