// The activations x (binding 0, M×K row-major) and the outputs y (binding 2,
// M×N) of the GGUF-quantized matrix products: fp32, or fp16 where the
// template is compiled with ACT_F16 defined (the _f16 kernels,
// kernels/quant_matmul.hpp), or with ACT_SWIGLU (the _swiglu kernels) x
// computed from a gate and an up vector as it is read, or with ACT_ADDNORM
// (the _addnorm kernels) x the norm of a residual sum. The arithmetic is
// fp32 in each case, so one template serves all four:
//   x_prologue()   called by every invocation at the start of main() (a
//                  decode template's), before any x4(), and
//   x_epilogue()   by every invocation of a template that quantizes x
//                  (X_QUANT=1) after its last x4(), before the stores;
//                  both empty but for ACT_ADDNORM;
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

// y as the fp32 and SwiGLU inputs store it: written only, or with
// Y_RESNORM (include/residual_norm.glsl) read back by the workgroup that
// finishes last, so coherent.
#if defined(Y_RESNORM) && Y_RESNORM
#define Y_ACCESS coherent
#else
#define Y_ACCESS writeonly
#endif

#if defined(ACT_ADDNORM)
// x is the RMS norm of a residual stream h plus what a block added to it,
// times the norm's weight g: x = s / sqrt(mean(s^2) + EPS) * g, s = h + d
// (the _addnorm kernels, kernels/quant_matmul.hpp, Activations::addnorm),
// so that the product takes in the add and the norm before it: one
// dispatch and one barrier fewer. Binding 0 holds h (M×K), 3 d (M×K), 4 g
// (K), and 5 receives s, the stream the next block adds to, written by the
// workgroups of column 0 alone (each its own x rows).
//
// Each x row's scale 1/sqrt(mean(s^2) + EPS) needs the squares of the whole
// row. With X_QUANT=1 every value of x is read once per workgroup, as it is
// quantized: x4() returns s·g and sums s^2 as it reads, x_epilogue() adds
// up the workgroup's sums and store_y() scales each output by its row's
// scale (the quantization's codes do not change with a row's scale, its
// step dx scales with it). Otherwise x is read many times: x_prologue()
// sums each row's squares before the walk and x4() scales as it reads.
// Either way one shared-memory tree per x row of the pass (rows one after
// the other; C <= 8, the decode shapes).
layout(std430, set = 0, binding = 0) readonly buffer XBuf { vec4 xv[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };
layout(std430, set = 0, binding = 3) readonly buffer DBuf { vec4 dv[]; };
layout(std430, set = 0, binding = 4) readonly buffer GBuf { vec4 gv[]; };
layout(std430, set = 0, binding = 5) writeonly buffer SBuf { vec4 sv[]; };
#if (WG_SIZE & (WG_SIZE - 1)) != 0
#error "ACT_ADDNORM's tree sums WG_SIZE partial sums: a power of two"
#endif
shared float x_partial[WG_SIZE];
shared float x_scale[C];
float x_squares[C];  // this invocation's sums of s^2, per x row of the pass

// x_scale[c] from every invocation's x_squares[c]; all invocations call it.
void x_sum_rows() {
  const uint tid = gl_LocalInvocationID.x;
  [[unroll]] for (uint c = 0u; c < C; ++c) {
    x_partial[tid] = x_squares[c];
    barrier();
    [[unroll]] for (uint half_size = WG_SIZE / 2u; half_size > 0u; half_size /= 2u) {
      if (tid < half_size) x_partial[tid] += x_partial[tid + half_size];
      barrier();
    }
    if (tid == 0u) x_scale[c] = inversesqrt(x_partial[0] / float(K) + EPS);
    barrier();  // x_partial is written again for the next row
  }
}

#if X_QUANT == 1
void x_prologue() {
  [[unroll]] for (uint c = 0u; c < C; ++c) x_squares[c] = 0.0;
}
vec4 x4(uint i) {
  const uint row_vectors = K / 4u, m = i / row_vectors, c = m - gl_WorkGroupID.y * C;
  const vec4 s = xv[i] + dv[i];
  if (gl_WorkGroupID.x == 0u) sv[i] = s;
  [[unroll]] for (uint r = 0u; r < C; ++r) {
    if (r == c) x_squares[r] += dot(s, s);
  }
  return s * gv[i - m * row_vectors];
}
void x_epilogue() { x_sum_rows(); }
// x rows past M, clamped to the last for loading, are quantized as zeros
// (their outputs are not stored), so that x4() reads every value once.
#define X_ROW_READ(c) (gl_WorkGroupID.y * C + (c) < M)
void store_y(uint i, float v) { y[i] = v * x_scale[i / N - gl_WorkGroupID.y * C]; }
#else
void x_prologue() {
  const uint tid = gl_LocalInvocationID.x, row_vectors = K / 4u;
  [[unroll]] for (uint c = 0u; c < C; ++c) {
    x_squares[c] = 0.0;
    const uint m = gl_WorkGroupID.y * C + c;
    if (m >= M) continue;
    for (uint v = m * row_vectors + tid; v < (m + 1u) * row_vectors; v += WG_SIZE) {
      const vec4 s = xv[v] + dv[v];
      if (gl_WorkGroupID.x == 0u) sv[v] = s;
      x_squares[c] += dot(s, s);
    }
  }
  x_sum_rows();
}
vec4 x4(uint i) {
  const uint row_vectors = K / 4u, m = i / row_vectors;
  return (xv[i] + dv[i]) * gv[i - m * row_vectors] * x_scale[m - gl_WorkGroupID.y * C];
}
void x_epilogue() {}
void store_y(uint i, float v) { y[i] = v; }
#endif
#elif defined(ACT_SWIGLU)
// x is the SwiGLU of a feed-forward block's gate and up products, read from
// their outputs side by side (row m of binding 0: the gate's K values, then
// the up's K; kernels/quant_matmul.hpp, Activations::swiglu):
// x = silu(gate)·up (include/swiglu.glsl).
#include "swiglu.glsl"
layout(std430, set = 0, binding = 0) readonly buffer XBuf { vec4 xv[]; };
layout(std430, set = 0, binding = 2) Y_ACCESS buffer YBuf { float y[]; };
vec4 x4(uint i) {
  const uint row_vectors = K / 4u, m = i / row_vectors, at = i - m * row_vectors;
  const vec4 gate = xv[2u * m * row_vectors + at], up = xv[(2u * m + 1u) * row_vectors + at];
  return swiglu(gate, up);
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
#if defined(Y_CACHE) && Y_CACHE
// The products whose outputs go into a KV cache (the _cache and
// _rope_cache kernels): binding 2 is the cache, fp16 pairs as 32-bit
// words, stored by include/matvec_pair_store.glsl.
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { uint y_words[]; };
#else
layout(std430, set = 0, binding = 2) Y_ACCESS buffer YBuf { float y[]; };
void store_y(uint i, float v) { y[i] = v; }
#endif
vec4 x4(uint i) { return xv[i]; }
#endif

#ifndef X_ROW_READ
// Whether a quantizing template reads x row c of its pass (ACT_ADDNORM
// reads only rows below M); the other inputs read the clamped rows too, as
// they did before, so that their code is unchanged.
#define X_ROW_READ(c) true
#endif
#ifndef ACT_ADDNORM
void x_prologue() {}
void x_epilogue() {}
#endif

#endif
