// The shape's push-constant words of the matrix-vector templates whose
// stores go through matvec_slot_reduce.glsl (matvec_q8_walk.glsl's and
// matvec_q4k.comp): M, N and K, and with Y_ROPE the size of a head (the
// _rope and _rope_cache products: shape M,N,K,head_dim[,kv_len]; a cache's
// kv_len is not read, its row is the position). Y_ROPE, Y_CACHE and Y_GLU,
// the epilogues of include/matvec_pair_store.glsl, and Y_RESNORM
// (include/residual_norm.glsl) default to 0 here.
#ifndef VKTUNE_MATVEC_SHAPE_GLSL
#define VKTUNE_MATVEC_SHAPE_GLSL

#ifndef Y_ROPE
#define Y_ROPE 0
#endif
#ifndef Y_CACHE
#define Y_CACHE 0
#endif
#ifndef Y_GLU
#define Y_GLU 0  // include/matvec_pair_store.glsl
#endif
#ifndef Y_RESNORM
#define Y_RESNORM 0  // include/residual_norm.glsl
#endif

layout(push_constant) uniform Shape {
  uint M;
  uint N;
  uint K;
#if Y_ROPE
  uint HEAD_DIM;
#endif
};

#endif
