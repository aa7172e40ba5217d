// main() of the integer-dot decode walk: see matvec_q8_walk.glsl.
#ifndef VKTUNE_MATVEC_Q8_WALK_MAIN_GLSL
#define VKTUNE_MATVEC_Q8_WALK_MAIN_GLSL

#include "matvec_slot_reduce.glsl"

#if X_SCOPE == 1
// The slot's invocations quantize unit u of every x row into region r of
// xq (see X_SCOPE in matvec_q8_walk.glsl): 8 values each per pass, four
// invocations a 32-value group; every invocation of the slot runs the same
// passes.
void quantize_unit(uint u, uint r) {
  const uint lanes = WG_SIZE / S;
  const uint lane = gl_LocalInvocationID.x % lanes;
  for (uint e0 = 0u; e0 < C * 32u; e0 += lanes) {
    const uint e = e0 + lane;  // piece: 8 values of x row c
    const uint c = min(e / 32u, C - 1u), kk = (e % 32u) * 8u;
    vec4 a = vec4(0.0), b = vec4(0.0);
    if (e < C * 32u && X_ROW_READ(c)) {
      const uint at = (col_row[c] * K + u * 256u + kk) / 4u;
      a = x4(at);
      b = x4(at + 1u);
    }
    quantize_piece(a, b, (c * SEG + r * 256u + kk) / 4u, e < C * 32u);
  }
}
#endif

void main() {
  x_prologue();  // include/matmul_xy.glsl: before any x4()
  const uint tid = gl_LocalInvocationID.x;
  const uint part = tid % PARTS;
  const uint group = (tid / PARTS) % G;
  const uint slot = tid / (PARTS * G);
  const uint row0 = gl_WorkGroupID.x * R;
  const uint col0 = gl_WorkGroupID.y * C;
  const uint nu = K / 256u;  // units per row
  init_part(part, slot);

  // Rows and x rows past the end are clamped for loading; only stores check.
  [[unroll]] for (uint i = 0; i < RT; ++i) row_base[i] = row_start(min(row0 + group + G * i, N - 1u), nu);
  [[unroll]] for (uint c = 0; c < C; ++c) col_row[c] = min(col0 + c, M - 1u);
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    [[unroll]] for (uint c = 0; c < C; ++c) acc[i][c] = 0.0;
  }

#if X_SCOPE == 1
  // Steps of S*U units: slot s takes units step*S*U + s + S*j, j < U, each
  // into region s*U + j of xq; the last step's units past the row are
  // skipped, its barriers still met.
  const uint steps = (nu + S * U - 1u) / (S * U);
  for (uint step = 0u; step < steps; ++step) {
    Unit v[U];
    [[unroll]] for (uint j = 0; j < U; ++j) {
      const uint u = step * (S * U) + slot + S * j;
      if (u < nu) load_unit(u, v[j]);
    }
    subgroupMemoryBarrierShared();
    subgroupBarrier();  // the slot's previous units' x is no longer read
    [[unroll]] for (uint j = 0; j < U; ++j) {
      const uint u = step * (S * U) + slot + S * j;
      if (u < nu) quantize_unit(u, slot * U + j);
    }
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    [[unroll]] for (uint j = 0; j < U; ++j) {
      const uint u = step * (S * U) + slot + S * j;
      if (u < nu) math_unit(slot * U + j, v[j]);
    }
  }
#else
  for (uint k0 = 0u; k0 < K; k0 += SEG) {
    const uint u0 = k0 / 256u;
    const uint u1 = min(nu, u0 + SEG_UNITS);
    uint u = u0 + slot;
    Unit v[U];
    const bool first_step = u + S * (U - 1) < u1;
    if (first_step) {
      [[unroll]] for (uint j = 0; j < U; ++j) load_unit(u + S * j, v[j]);
    }
    barrier();  // the previous segment's x is no longer read
    quantize_segment(k0, min(SEG, K - k0));
    barrier();
    if (first_step) {
      [[unroll]] for (uint j = 0; j < U; ++j) math_unit(u + S * j - u0, v[j]);
      u += S * U;
    }
#if U > 1
    for (; u + S * (U - 1) < u1; u += S * U) {
      [[unroll]] for (uint j = 0; j < U; ++j) load_unit(u + S * j, v[j]);
      [[unroll]] for (uint j = 0; j < U; ++j) math_unit(u + S * j - u0, v[j]);
    }
#endif
    for (; u < u1; u += S) {
      load_unit(u, v[0]);
      math_unit(u - u0, v[0]);
    }
  }
#endif

  x_epilogue();  // include/matmul_xy.glsl: after the last x4()
  reduce_and_store(tid, part, group, slot, row0, col0);
}

#endif
