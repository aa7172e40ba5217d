// The end of the matrix-vector templates whose invocations are (part, row
// group, slot): matvec_q8_walk_main.glsl and matvec_q4k.comp (REDUCTION 0).
// Each acc[i][c] is summed over the PARTS invocations of a unit with
// subgroup shuffles and over the S slots through shared memory; then
// invocation o < R*C stores output o (row o / C, x row o % C).
//
// The including template defines PARTS, S, G, R, C, RT, WG_SIZE, the push
// constants M and N, `shared float partial[S * R * C]`, `float acc[RT][C]`
// and the output buffer `y`.
//
// With Y_ROPE, Y_CACHE or Y_GLU (include/matvec_shape.glsl) the outputs are
// stored in pairs of rows by include/matvec_pair_store.glsl.
#ifndef VKTUNE_MATVEC_SLOT_REDUCE_GLSL
#define VKTUNE_MATVEC_SLOT_REDUCE_GLSL

#define Y_PAIRS (Y_ROPE || Y_CACHE || Y_GLU)
#if Y_PAIRS
#include "matvec_pair_store.glsl"
#endif
#if Y_RESNORM
#include "residual_norm.glsl"
#endif

void reduce_and_store(uint tid, uint part, uint group, uint slot, uint row0, uint col0) {
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    [[unroll]] for (uint c = 0; c < C; ++c) {
      float s = acc[i][c];
      [[unroll]] for (uint off = PARTS / 2u; off > 0u; off /= 2u) s += subgroupShuffleXor(s, off);
      if (part == 0u) partial[(slot * R + group + G * i) * C + c] = s;
    }
  }
  barrier();
  for (uint o = tid; o < R * C; o += WG_SIZE) {
    const uint row = row0 + o / C;
    const uint col = col0 + o % C;
#if Y_PAIRS
    // Rows in pairs (include/matvec_pair_store.glsl): the even row's
    // invocation stores both, the odd row's nothing.
    if ((o / C) % 2u != 0u) continue;
    float a = 0.0, b = 0.0;
    [[unroll]] for (uint k = 0; k < S; ++k) {
      a += partial[k * (R * C) + o];
      b += partial[k * (R * C) + o + C];
    }
    if (row < N && col < M) store_pair(col, row, a, b);
#else
    float s = 0.0;
    [[unroll]] for (uint k = 0; k < S; ++k) s += partial[k * (R * C) + o];
#if Y_RESNORM
    if (row < N && col < M) store_y(col * N + row, with_residual(col * N + row, s));
#else
    if (row < N && col < M) store_y(col * N + row, s);
#endif
#endif
  }
#if Y_RESNORM
  residual_norm(tid);
#endif
}

#endif
