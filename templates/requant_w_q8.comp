#version 450
// The second dispatch of the quantized prefill's int8 tensor-core path
// (DEQUANT_STAGE=3, kernels/quant_coopmat.hpp): W, N rows of GGUF blocks of
// the type QTYPE (include/quant_block.glsl), as signed 8-bit codes c and a
// pair (a, b) per 32 weights, each weight being a*c - b, into the scratch
// binding 3:
//   bytes n*K + k              code of W[n][k],
//   vec2  N*K/8 + (k/32)*N + n   (a, b) of the 32 weights from k
//                              (group-major, as x's: quantize_x_q8.comp).
// Where the 32 weights share one scale and one offset (Q4_0, Q8_0, and the
// 32-weight sub-blocks of Q4_K and Q5_K) the codes are the block's own
// integers and a*c - b is the weight bit for bit (the fp32 path's
// dequantization, reference/dequantize.cpp). Where they do not (Q6_K's
// 16-weight sub-blocks carry two scales) the 32 dequantized weights are
// quantized again, to round(w/a) with a = max|w|/127 and b = 0: an error
// of at most a/2 a weight, the same kind x's codes carry
// (quantize_x_q8.comp).
//
// A workgroup of RQ_WG invocations per row of W (gl_WorkGroupID.x = n), an
// invocation per 32 weights.
//
// Parameters (#defines): RQ_WG. Semantics: QTYPE. Push constants: M, N, K.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "quant_block.glsl"

layout(local_size_x = RQ_WG, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

layout(std430, set = 0, binding = 3) writeonly buffer Q8Words { uvec4 q8_vectors[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Q8Scales { vec2 q8_scales[]; };

// Four integer codes in -128..127 as signed bytes, the first in the lowest.
uint pack_codes(ivec4 c) {
  return uint(c.x & 255) | (uint(c.y & 255) << 8u) | (uint(c.z & 255) << 16u) | (uint(c.w & 255) << 24u);
}

void main() {
  const uint n = gl_WorkGroupID.x;
  const uint k = (gl_WorkGroupID.y * RQ_WG + gl_LocalInvocationID.x) * 32u;
  if (n >= N || k >= K) return;
  const uint row_bytes = (K / QB_WEIGHTS) * QB_BYTES;
  const uint blk = n * row_bytes + (k / QB_WEIGHTS) * QB_BYTES;
  const uint r0 = (k % QB_WEIGHTS) / 4u;
  vec4 q[8];
  float a[8], b[8];
  bool shared_scale = true;
  [[unroll]] for (uint r = 0; r < 8u; ++r) {
    qb_run(blk, r0 + r, q[r], a[r], b[r]);
    shared_scale = shared_scale && a[r] == a[0] && b[r] == b[0];
  }
  float scale = a[0], offset = b[0];
  if (!shared_scale) {
    precise vec4 w[8];
    float wmax = 0.0;
    [[unroll]] for (uint r = 0; r < 8u; ++r) {
      w[r] = a[r] * q[r] - b[r];
      const vec4 aw = abs(w[r]);
      wmax = max(wmax, max(max(aw.x, aw.y), max(aw.z, aw.w)));
    }
    scale = wmax * (1.0 / 127.0);
    offset = 0.0;
    const float inv = wmax > 0.0 ? 127.0 / wmax : 0.0;
    [[unroll]] for (uint r = 0; r < 8u; ++r) q[r] = round(w[r] * inv);
  }
  uint words[8];
  [[unroll]] for (uint r = 0; r < 8u; ++r) words[r] = pack_codes(ivec4(q[r]));
  const uint v = (n * K + k) / 16u;
  q8_vectors[v] = uvec4(words[0], words[1], words[2], words[3]);
  q8_vectors[v + 1u] = uvec4(words[4], words[5], words[6], words[7]);
  q8_scales[(N * K) / 8u + (k / 32u) * N + n] = vec2(scale, offset);
}
