// The epilogues of the q, k and v products of an attention block (the
// _rope, _rope_cache and _cache kernels, fp32 activations:
// kernels/quant_matmul_epilogue.hpp), which take in what a decode step
// otherwise does in a dispatch of its own after them: the rope of q and k
// and the KV-cache stores of k and v. Outputs come in pairs of rows
// (2i, 2i+1) of W, the pairs the normal rope layout turns together; the
// invocation that stores row 2i of x row m holds both values
// (matvec_slot_reduce.glsl) and stores
//   Y_ROPE 1   both turned by the angle of pair (2i mod HEAD_DIM)/2 at
//              position pos[m] (include/rope_angle.glsl), the base of the
//              frequencies in `base`;
//   Y_CACHE 1  both as one word of two fp16 halves (packHalf2x16: no 16-bit
//              storage needed) into the cache at row pos[m] (rows of N
//              values: [kv_len][heads][head_dim], what attention_decode
//              reads), no other row touched; else into y;
//   Y_GLU 1    the pair's SwiGLU, silu(a)·b (W's rows gate and up
//              interleaved), as value row/2 of y's rows of N/2.
// Bindings after x, W and y (or the cache), with Y_ROPE or Y_CACHE: pos (one
// int32 per x row) at 3, base (one float) at 4 with Y_ROPE. ROWS_PER_WG and N are even (legality),
// so a pair never straddles two workgroups or the end of W.
#ifndef VKTUNE_MATVEC_PAIR_STORE_GLSL
#define VKTUNE_MATVEC_PAIR_STORE_GLSL

#include "rope_angle.glsl"
#include "swiglu.glsl"

#if (ROWS_PER_WG % 2) != 0
#error "the pair epilogues need an even ROWS_PER_WG"
#endif

#if defined(ACT_ADDNORM) || defined(ACT_SWIGLU) || defined(ACT_F16)
#error "the pair epilogues take fp32 activations"
#endif

#if Y_GLU && (Y_ROPE || Y_CACHE)
#error "Y_GLU stores the SwiGLU of a pair, neither turned nor cached"
#endif

#if Y_ROPE || Y_CACHE
layout(std430, set = 0, binding = 3) readonly buffer PosBuf { int pos[]; };
#endif
#if Y_ROPE
layout(std430, set = 0, binding = 4) readonly buffer BaseBuf { float freq_base; };
#endif

// Rows `row` and row + 1 of x row `col`: a and b, as the walk summed them.
void store_pair(uint col, uint row, float a, float b) {
#if Y_GLU
  y[col * (N / 2u) + row / 2u] = swiglu(a, b);
#else
  const uint i = col * N + row;
#if Y_ROPE
  const vec2 turn = rope_cos_sin(float(pos[col]), (row % HEAD_DIM) / 2u, rope_log2_step(freq_base, HEAD_DIM));
  const float ra = a * turn.x - b * turn.y;
  b = a * turn.y + b * turn.x;
  a = ra;
#endif
#if Y_CACHE
  y_words[(uint(pos[col]) * N + row) / 2u] = packHalf2x16(vec2(a, b));
#else
  y[i] = a;
  y[i + 1u] = b;
#endif
#endif
}

#endif
