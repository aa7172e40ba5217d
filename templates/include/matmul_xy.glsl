// The activations x (binding 0, M×K row-major) and the outputs y (binding 2,
// M×N) of the GGUF-quantized matrix products: fp32, or fp16 where the
// template is compiled with ACT_F16 defined (the _f16 kernels,
// kernels/quant_matmul.hpp), or with ACT_SWIGLU (the _swiglu kernels) x
// computed from a gate and an up vector as it is read. The arithmetic is
// fp32 in each case, so one template serves all three:
//   x4(i)          values 4i .. 4i+3 of x as a vec4 (fp16 widened exactly);
//   store_y(i, v)  y[i] = v (with ACT_F16 rounded to fp16 on the store).
// The tensor-core path reads x's halves as they are stored (xv, f16vec4)
// and stores fp16 matrices into y (include/coopmat_quant_x.glsl).
//
// fp16 buffers need storageBuffer16BitAccess (legality rejects ACT_F16
// variants on a device without it). The including template declares the
// push constants and includes this file once.
#ifndef VKTUNE_MATMUL_XY_GLSL
#define VKTUNE_MATMUL_XY_GLSL

#ifdef ACT_SWIGLU
// x is the SwiGLU of a feed-forward block's gate and up products, read from
// their outputs side by side (row m of binding 0: the gate's K values, then
// the up's K; kernels/quant_matmul.hpp, Activations::swiglu):
// x = silu(gate)·up = gate / (1 + e^-gate) · up.
layout(std430, set = 0, binding = 0) readonly buffer XBuf { vec4 xv[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };
vec4 x4(uint i) {
  const uint row_vectors = K / 4u, m = i / row_vectors, at = i - m * row_vectors;
  const vec4 gate = xv[2u * m * row_vectors + at], up = xv[(2u * m + 1u) * row_vectors + at];
  return gate / (1.0 + exp(-gate)) * up;
}
void store_y(uint i, float v) { y[i] = v; }
#elif defined(ACT_F16)
#extension GL_EXT_shader_16bit_storage : require
layout(std430, set = 0, binding = 0) readonly buffer XBuf { f16vec4 xv[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float16_t y[]; };
vec4 x4(uint i) { return vec4(xv[i]); }
void store_y(uint i, float v) { y[i] = float16_t(v); }
#else
layout(std430, set = 0, binding = 0) readonly buffer XBuf { vec4 xv[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };
vec4 x4(uint i) { return xv[i]; }
void store_y(uint i, float v) { y[i] = v; }
#endif

#endif
