#version 450
// Tensor-core ceiling through GL_NV_cooperative_matrix: fp16 CM_M×CM_K and
// CM_K×CM_N matrices multiplied into fp32 CM_M×CM_N accumulators. Each
// subgroup holds TILES_M × TILES_N accumulators (64×64 of C with 16×16
// matrices, the largest part of a tile the matmul spaces give a subgroup)
// and updates all of them ITERATIONS times, so TILES_M*TILES_N independent
// products are in flight.
//
// FROM_SHARED=0: the A and B matrices are loaded once and stay in registers:
//   the rate of the matrix instructions alone.
// FROM_SHARED=1: every iteration loads them from shared memory, as the inner
//   loop of a GEMM does (rows of a 64-deep slice padded by 8 halves, stored
//   as 16-byte words like templates/matmul_f16.comp's VEC=8 staging, the
//   next CM_K columns each iteration): the rate of a GEMM whose global loads
//   and barriers cost nothing.
//
// The accumulators are written only when their sum is an impossible value,
// so nothing is stored and nothing is optimised away.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = WARPS * 32) in;
layout(std430, set = 0, binding = 0) writeonly buffer Sink { float sink[]; };
layout(push_constant) uniform Params { float seed; };

#define SLICE 64
#define STRIDE (SLICE + 8)  // halves per shared row
#define ROWS_A (TILES_M * CM_M)
#define ROWS_B (TILES_N * CM_N)
// All subgroups read the same rows (a GEMM's subgroups share theirs with
// their neighbours): 8 halves per word.
shared uvec4 a_s[ROWS_A * STRIDE / 8];
shared uvec4 b_s[ROWS_B * STRIDE / 8];

void main() {
  // Small values (1/1024 to 2/1024), so the fp32 sums stay finite.
  const uint h = packHalf2x16(vec2(seed * 0.0009765625 + float(gl_LocalInvocationID.x % 8u) * 0.0001220703125));
  const uvec4 word = uvec4(h | (h << 16));
  for (uint i = gl_LocalInvocationID.x; i < ROWS_A * STRIDE / 8; i += WARPS * 32) a_s[i] = word;
  for (uint i = gl_LocalInvocationID.x; i < ROWS_B * STRIDE / 8; i += WARPS * 32) b_s[i] = word;
  barrier();

  fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N> acc[TILES_M * TILES_N];
  [[unroll]] for (uint t = 0; t < TILES_M * TILES_N; ++t) acc[t] = fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>(0.0);
  fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_K> fa[TILES_M];
  fcoopmatNV<16, gl_ScopeSubgroup, CM_K, CM_N> fb[TILES_N];
  [[unroll]] for (uint i = 0; i < TILES_M; ++i) coopMatLoadNV(fa[i], a_s, i * CM_M * STRIDE / 8, STRIDE / 8, false);
  [[unroll]] for (uint j = 0; j < TILES_N; ++j) coopMatLoadNV(fb[j], b_s, j * CM_N * STRIDE / 8, STRIDE / 8, true);

  for (uint it = 0; it < ITERATIONS; ++it) {
#if FROM_SHARED
    const uint kk = (it % (SLICE / CM_K)) * CM_K;
    [[unroll]] for (uint i = 0; i < TILES_M; ++i) {
      coopMatLoadNV(fa[i], a_s, (i * CM_M * STRIDE + kk) / 8, STRIDE / 8, false);
    }
    [[unroll]] for (uint j = 0; j < TILES_N; ++j) {
      coopMatLoadNV(fb[j], b_s, (j * CM_N * STRIDE + kk) / 8, STRIDE / 8, true);
    }
#endif
    [[unroll]] for (uint i = 0; i < TILES_M; ++i) {
      [[unroll]] for (uint j = 0; j < TILES_N; ++j) acc[i * TILES_N + j] = coopMatMulAddNV(fa[i], fb[j], acc[i * TILES_N + j]);
    }
  }

  float total = 0.0;
  [[unroll]] for (uint t = 0; t < TILES_M * TILES_N; ++t) {
    for (int e = 0; e < acc[t].length(); ++e) total += acc[t][e];
  }
  if (total == -1234.5) sink[0] = total;
}
