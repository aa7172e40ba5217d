// The end of the _resnorm products (kernels/quant_matmul_epilogue.hpp,
// Epilogue::residual_norm): each output is stored with the residual stream
// added, y = x·Wᵀ + r (the stream after the block's add), and the workgroup
// that finishes last writes the RMS norm of each y row times the next
// block's norm weight g into xn, xn = y / sqrt(mean(y^2) + EPS) * g: the
// residual add and the norm that a decode step otherwise runs as a
// dispatch of their own (add_rmsnorm_mul) after the product, a barrier
// before and after it. The norm needs every row of y, written by every
// workgroup: the last to finish (include/last_workgroup.glsl) reads them
// back, in the same dispatch.
//
// Bindings: 2 y (coherent: include/matmul_xy.glsl), 3 r (M×N), 4 g (N),
// 5 xn (M×N), 6 the counter (one uint, zero between dispatches: the
// elected workgroup resets it). The includer (matvec_slot_reduce.glsl)
// defines WG_SIZE and the push constants M and N, and EPS is defined by
// the host; subgroup shuffles are enabled by every template that reduces
// through it.
#ifndef VKTUNE_RESIDUAL_NORM_GLSL
#define VKTUNE_RESIDUAL_NORM_GLSL

layout(std430, set = 0, binding = 3) readonly buffer RBuf { float residual_in[]; };
layout(std430, set = 0, binding = 4) readonly buffer GBuf { float norm_weight[]; };
layout(std430, set = 0, binding = 5) writeonly buffer NBuf { float normed[]; };
layout(std430, set = 0, binding = 6) coherent buffer CBuf { uint norm_counters[]; };
#define LAST_WORKGROUP_COUNTERS norm_counters
#include "last_workgroup.glsl"

// A subgroup's sum each (at most WG_SIZE subgroups of one invocation).
shared float norm_partial[WG_SIZE];

// Output i of y: the product's value s plus the stream's.
float with_residual(uint i, float s) { return s + residual_in[i]; }

// The sum of every invocation's v; all invocations call it.
float norm_workgroup_sum(uint tid, float v) {
  for (uint off = gl_SubgroupSize / 2u; off > 0u; off /= 2u) v += subgroupShuffleXor(v, off);
  if (gl_SubgroupInvocationID == 0u) norm_partial[gl_SubgroupID] = v;
  barrier();
  float total = 0.0;
  for (uint s = 0u; s < gl_NumSubgroups; ++s) total += norm_partial[s];
  barrier();  // norm_partial is written again for the next row
  return total;
}

// Loads of y (and g) go out NORM_BATCH at a time before their math: N is a
// push constant, so a plain loop would wait on each load in turn, and the
// rest of the GPU waits on this one workgroup.
#define NORM_BATCH 8u

// After every invocation has stored its outputs; all invocations call it.
void residual_norm(uint tid) {
  const uint workgroups = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z;
  if (!is_last_workgroup(tid, 0u, workgroups)) return;
  for (uint m = 0u; m < M; ++m) {
    const uint row = m * N;
    float squares = 0.0;
    for (uint i0 = tid; i0 < N; i0 += NORM_BATCH * WG_SIZE) {
      float v[NORM_BATCH];
      [[unroll]] for (uint j = 0u; j < NORM_BATCH; ++j) {
        const uint i = i0 + j * WG_SIZE;
        v[j] = i < N ? y[row + i] : 0.0;
      }
      [[unroll]] for (uint j = 0u; j < NORM_BATCH; ++j) squares += v[j] * v[j];
    }
    const float scale = inversesqrt(norm_workgroup_sum(tid, squares) / float(N) + EPS);
    for (uint i0 = tid; i0 < N; i0 += NORM_BATCH * WG_SIZE) {
      float v[NORM_BATCH], g[NORM_BATCH];
      [[unroll]] for (uint j = 0u; j < NORM_BATCH; ++j) {
        const uint i = min(i0 + j * WG_SIZE, N - 1u);
        v[j] = y[row + i];
        g[j] = norm_weight[i];
      }
      [[unroll]] for (uint j = 0u; j < NORM_BATCH; ++j) {
        const uint i = i0 + j * WG_SIZE;
        if (i < N) normed[row + i] = v[j] * scale * g[j];
      }
    }
  }
  if (tid == 0u) norm_counters[0] = 0u;
}

#endif
