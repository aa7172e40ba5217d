// Storing a subgroup's fp32 cooperative-matrix accumulators into y, for the
// tensor-core GEMMs (include/coopmat_gemm.glsl's fp16 skeleton,
// matmul_quant_cm_i8.comp's int8 one): a CM_M × CM_N block that lies inside
// y, with 16-byte aligned rows (N % 4 == 0; with Y_F16 N % 8 == 0), is
// stored directly; any other goes through a per-subgroup shared scratch and
// stores guarded by M and N.
//
// The including template declares the push constants M and N and `float
// y[]` (with Y_F16 `float16_t y[]`: the accumulators are rounded to fp16 as
// stored), and defines CM_M, CM_N and CM_SUBGROUPS (subgroups per
// workgroup) before including it; it enables GL_NV_cooperative_matrix,
// GL_KHR_memory_scope_semantics, GL_KHR_shader_subgroup_basic and (Y_F16)
// the fp16 arithmetic types.
#ifndef VKTUNE_COOPMAT_STORE_GLSL
#define VKTUNE_COOPMAT_STORE_GLSL

// uvec4 (fp32 bits): a matrix store needs a 16-byte aligned address, which
// only a 16-byte element type guarantees (on the H200 a float array was
// placed 4 bytes off, shifting every stored matrix by one element), and the
// stores take no vec4 arrays.
shared uvec4 cs_[CM_SUBGROUPS * CM_M * CM_N / 4];

#ifdef Y_F16
#define Y_ROW_ALIGN 8u  // halves in 16 bytes
#define Y_MATRIX(a) fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_N>(a)
#define Y_VALUE(v) float16_t(v)
#else
#define Y_ROW_ALIGN 4u
#define Y_MATRIX(a) (a)
#define Y_VALUE(v) (v)
#endif

// Accumulator `a` (an fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>) as y's
// block at row gm, column gn; every invocation of the subgroup calls it.
#define STORE_ACCUMULATOR(a, gm, gn)                                                                       \
  {                                                                                                        \
    const uint scratch_ = gl_SubgroupID * (CM_M * CM_N);                                                   \
    if ((gm) + CM_M <= M && (gn) + CM_N <= N && (N % Y_ROW_ALIGN) == 0u) {                                 \
      coopMatStoreNV(Y_MATRIX(a), y, (gm) * N + (gn), N, false);                                           \
    } else if ((gm) < M && (gn) < N) {                                                                     \
      coopMatStoreNV(a, cs_, scratch_ / 4u, CM_N / 4u, false);                                             \
      subgroupMemoryBarrierShared();                                                                       \
      subgroupBarrier();                                                                                   \
      for (uint e = gl_SubgroupInvocationID; e < CM_M * CM_N; e += gl_SubgroupSize) {                      \
        const uint m_ = (gm) + e / CM_N, n_ = (gn) + e % CM_N;                                             \
        if (m_ < M && n_ < N) y[m_ * N + n_] = Y_VALUE(uintBitsToFloat(cs_[(scratch_ + e) / 4u][(scratch_ + e) % 4u])); \
      }                                                                                                    \
      subgroupBarrier();                                                                                   \
    }                                                                                                      \
  }

#endif
