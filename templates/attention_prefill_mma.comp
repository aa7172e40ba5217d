#version 450
// Prefill attention on tensor cores: the MMA=1 path of attention_prefill
// (the problem is in include/attention_prefill_io.glsl), flash-attention
// style: scores and weighted values are matrix products
// (GL_NV_cooperative_matrix, fp16 16×16×16 into fp32) and the softmax is
// online and stays in registers, so a query tile's scores never leave its
// subgroup.
//
// A workgroup takes BR = (WARPS/HPW)*16*MT consecutive query tokens of HPW
// query heads that read the same KV head (grouped-query attention; HPW
// heads from gl_WorkGroupID.y*HPW), so one staged block of K and V serves
// them all; each subgroup (warp) takes 16*MT tokens of one head, its q
// (pre-scaled, fp16) held as matrix operands and its output and row sums as
// fp32 accumulators. The cache is walked in blocks of BC entries up to the
// tile's last position; a block of K and one of V are staged in shared
// memory by the whole workgroup (PREFETCH=1: the next block's loads are in
// flight during this block's products). Per block a warp
//   1. multiplies q by the staged Kᵀ into its scores S (accumulators);
//   2. masks the entries past each row's position (blocks on the diagonal);
//   3. turns S into the weights P = 2^(S - m) elementwise, converts them to
//      fp16 operands and multiplies them by the staged V into its output
//      and by a matrix of ones into its row sums l (so that l adds exactly
//      the rounded weights the output does).
// A warp skips the blocks past its last query (the causal mask's upper
// triangle).
//
// Elementwise work needs each accumulator element's row and column, whose
// layout is the driver's: a probe tile (element (r, c) = 16r + c) loaded as
// an accumulator at the start tells each invocation where its elements are
// (`where`), rather than assuming NVIDIA's layout.
//
// The running max m per row is raised lazily, and is held elementwise (in
// `mrow`, an accumulator whose elements hold their row's max). Only when
// some score of the warp exceeds its row's max by more than RESCALE (log2
// units) does the warp take the slow path: the block's exact row maxima
// through shared memory (an atomic max per element), the rows that rise
// take them, and their accumulators and row sums are scaled by
// 2^(m_old - m_new). Otherwise the weights are computed against the old max
// and may reach 2^RESCALE, which fp16 and the fp32 sums hold exactly as well
// as weights below 1; the result is the same softmax. The first block always
// takes the slow path; in a prompt the max settles within a few blocks.
//
// Every loop over an accumulator's elements is [[unroll]]ed: without it the
// H200's driver indexed them at run time, from memory (2048 tokens, head_dim
// 128: 911.6 us against 322.0 us unrolled).
//
// Numerics: K and V are fp16 already and enter exactly; q and the weights
// are rounded to fp16 (about 11 bits), as in flash attention's fp16 mode.
//
// Parameters: WG_SIZE, BC, MT, PREFETCH, HPW (the others of the space are
// pinned and unused here). Semantics: HD (head_dim, from the shape).
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
#include "attention_prefill_io.glsl"

#define WARPS (WG_SIZE / 32u)
#define WR (16u * MT)                                    // query rows per warp
#define WPH (WARPS / HPW)                                // warps per head
#define BR (WPH * WR)                                    // query tokens per workgroup
#define SROW ((HD + 8u) / 8u)                            // staged cache row stride in uvec4s (padded: rows in other banks)
#define PER_LANE ((BC * ROW4 + WG_SIZE - 1u) / WG_SIZE)  // uvec4s of a K (or V) block per invocation
#define DT (HD / 16u)                                    // 16-dim tiles of a row
#define RESCALE 8.0                                      // see the lazy max above
#define LOWEST (-3.0e38)

#if HD % 16 != 0 || BC % 16 != 0 || (MT != 1 && MT != 2) || WG_SIZE % 32 != 0 || (WG_SIZE / 32) % HPW != 0
#error "HD and BC must be multiples of 16, MT 1 or 2, WG_SIZE a multiple of 32 and of 32*HPW"
#endif

// One array for everything the matrix loads touch, of uvec4s: they need
// 16-byte aligned addresses (see attention_decode_mma.comp). The K and V
// blocks; before the first block, a 16×16 fp32 staging tile per warp (q's
// operands, the probe).
#define KS_AT 0u
#define VS_AT (BC * SROW)
#define STAGING (64u * WARPS)
shared uvec4 sh[2u * BC * SROW > STAGING ? 2u * BC * SROW : STAGING];
// The slow path's row maxima per warp, as ordered bits (see ordered()).
shared uint row_max[WARPS * WR];
#ifdef VKTUNE_COOPMAT_KHR
// A KHR cooperative matrix keeps its Use, so the fp16 probabilities (an
// accumulator's values) reach P·V's operand through a 16×16 fp16 tile per
// warp (harness/coopmat_choice.hpp defines VKTUNE_COOPMAT_KHR).
shared uvec4 trip[WARPS * 32u];
#endif

#define ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define OPD fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>

// A float's bits, mapped so that unsigned order is float order (negatives
// have every bit flipped, positives the sign bit set): atomicMax on them is
// a float max.
uint ordered(float x) {
  const uint b = floatBitsToUint(x);
  return (b & 0x80000000u) != 0u ? ~b : b | 0x80000000u;
}
float from_ordered(uint o) { return uintBitsToFloat((o & 0x80000000u) != 0u ? o & 0x7fffffffu : ~o); }

void load_block(uint e0, uint kvh, out uvec4 rk[PER_LANE], out uvec4 rv[PER_LANE]) {
  [[unroll]] for (uint i = 0u; i < PER_LANE; ++i) {
    const uint u = min(gl_LocalInvocationID.x + i * WG_SIZE, BC * ROW4 - 1u);
    const uint row = u / ROW4, col = u - row * ROW4;
    rk[i] = cache_load(false, e0 + row, kvh, col);
    rv[i] = cache_load(true, e0 + row, kvh, col);
  }
}

void store_block(uvec4 rk[PER_LANE], uvec4 rv[PER_LANE]) {
  [[unroll]] for (uint i = 0u; i < PER_LANE; ++i) {
    const uint u = gl_LocalInvocationID.x + i * WG_SIZE;
    if (u < BC * ROW4) {
      const uint row = u / ROW4, col = u - row * ROW4;
      sh[KS_AT + row * SROW + col] = rk[i];
      sh[VS_AT + row * SROW + col] = rv[i];
    }
  }
}

void main() {
  const uint warp = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  // HPW divides the query heads per KV head: every warp's head reads kvh.
  const uint h = gl_WorkGroupID.y * HPW + warp / WPH, kvh = h / (HEADS / KV_HEADS);
  const uint t0 = query_tile() * BR;
  const uint w0 = t0 + (warp % WPH) * WR;  // the warp's first query token
  const uint last = query_position(min(t0 + BR - 1u, TOKENS - 1u));
  const uint warp_last = query_position(min(w0 + WR - 1u, TOKENS - 1u));
  const uint blocks = last / BC + 1u;

  uvec4 rk[PER_LANE], rv[PER_LANE];
#if PREFETCH == 1
  load_block(0u, kvh, rk, rv);
#endif

  // The warp's staging tile: lane holds row lane/2, columns
  // 8*(lane%2)..+8, as two uvec4s of fp32 or one of fp16.
  const uint tile = warp * 64u;
  // q as fp16 operands, a tile at a time (rows past the prompt reread its
  // last token).
  const float scale = inversesqrt(float(HD)) * LOG2E;
  OPD qf[MT][DT];
  [[unroll]] for (uint mt = 0u; mt < MT; ++mt) {
    const uint token = min(w0 + mt * 16u + lane / 2u, TOKENS - 1u);
    [[unroll]] for (uint d = 0u; d < DT; ++d) {
      const uint at = (token * HEADS + h) * HD + d * 16u + (lane % 2u) * 8u;
      uvec4 w;
      [[unroll]] for (uint i = 0u; i < 4u; ++i) w[i] = packHalf2x16(vec2(qs[at + 2u * i], qs[at + 2u * i + 1u]) * scale);
      sh[tile + lane] = w;
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      coopMatLoadNV(qf[mt][d], sh, tile, 2u, false);
      subgroupBarrier();
    }
  }
  // The probe: element (r, c) = 16r + c.
  [[unroll]] for (uint i = 0u; i < 2u; ++i) {
    const uint e = 8u * lane + 4u * i;
    sh[tile + 2u * lane + i] = floatBitsToUint(vec4(e, e + 1u, e + 2u, e + 3u));
  }
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  ACC where;
  coopMatLoadNV(where, sh, tile, 4u, false);

  ACC o[MT][DT], l[MT], mrow[MT];
  [[unroll]] for (uint mt = 0u; mt < MT; ++mt) {
    [[unroll]] for (uint d = 0u; d < DT; ++d) o[mt][d] = ACC(0.0);
    l[mt] = ACC(0.0);
    mrow[mt] = ACC(LOWEST);
  }
  const uint first_pos = query_position(w0);  // row 0 of the warp (rows past the prompt see more: never stored)
  const OPD ones = OPD(1.0);

  for (uint b = 0u; b < blocks; ++b) {
    const uint e0 = b * BC;
    barrier();
#if PREFETCH == 1
    store_block(rk, rv);
    if (b + 1u < blocks) load_block(e0 + BC, kvh, rk, rv);
#else
    load_block(e0, kvh, rk, rv);
    store_block(rk, rv);
#endif
    barrier();
    if (e0 > warp_last) continue;  // every entry of the block is past the warp's queries

    // 1. S = q Kᵀ.
    ACC s[MT][BC / 16u];
    [[unroll]] for (uint j = 0u; j < BC / 16u; ++j) {
      [[unroll]] for (uint mt = 0u; mt < MT; ++mt) s[mt][j] = ACC(0.0);
      [[unroll]] for (uint d = 0u; d < DT; ++d) {
        OPD kt;
        coopMatLoadNV(kt, sh, KS_AT + j * 16u * SROW + 2u * d, SROW, true);
        [[unroll]] for (uint mt = 0u; mt < MT; ++mt) s[mt][j] = coopMatMulAddNV(qf[mt][d], kt, s[mt][j]);
      }
    }
    // 2. The mask, and whether some score exceeds its row's max.
    bool exceeds = false;
    const bool diagonal = e0 + BC - 1u > first_pos;
    [[unroll]] for (uint mt = 0u; mt < MT; ++mt) {
      [[unroll]] for (uint j = 0u; j < BC / 16u; ++j) {
        [[unroll]] for (int i = 0; i < s[mt][j].length(); ++i) {
          const uint at = uint(where[i]);
          if (diagonal && e0 + j * 16u + at % 16u > first_pos + mt * 16u + at / 16u) s[mt][j][i] = LOWEST;
          exceeds = exceeds || s[mt][j][i] > mrow[mt][i] + RESCALE;
        }
      }
    }
    if (subgroupAny(exceeds)) {
      // The slow path: the block's row maxima, and the rows that rise
      // rescaled.
      if (lane < WR) row_max[warp * WR + lane] = ordered(LOWEST);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      [[unroll]] for (uint mt = 0u; mt < MT; ++mt) {
        [[unroll]] for (uint j = 0u; j < BC / 16u; ++j) {
          [[unroll]] for (int i = 0; i < s[mt][j].length(); ++i) {
            atomicMax(row_max[warp * WR + mt * 16u + uint(where[i]) / 16u], ordered(s[mt][j][i]));
          }
        }
      }
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      [[unroll]] for (uint mt = 0u; mt < MT; ++mt) {
        [[unroll]] for (int i = 0; i < l[mt].length(); ++i) {
          const float raised = max(mrow[mt][i], from_ordered(row_max[warp * WR + mt * 16u + uint(where[i]) / 16u]));
          const float f = exp2(mrow[mt][i] - raised);
          mrow[mt][i] = raised;
          l[mt][i] *= f;
          [[unroll]] for (uint d = 0u; d < DT; ++d) o[mt][d][i] *= f;
        }
      }
      subgroupBarrier();
    }

    // 3. P = 2^(S - m) in fp16; O += P V, l += P 1.
    [[unroll]] for (uint k = 0u; k < BC / 16u; ++k) {
      OPD p[MT];
      [[unroll]] for (uint mt = 0u; mt < MT; ++mt) {
        [[unroll]] for (int i = 0; i < s[mt][k].length(); ++i) s[mt][k][i] = exp2(s[mt][k][i] - mrow[mt][i]);
#ifdef VKTUNE_COOPMAT_KHR
        coopMatStoreNV(OPD(s[mt][k]), trip, warp * 32u, 2u, false);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        coopMatLoadNV(p[mt], trip, warp * 32u, 2u, false);
        subgroupBarrier();
#else
        p[mt] = OPD(s[mt][k]);
#endif
        l[mt] = coopMatMulAddNV(p[mt], ones, l[mt]);
      }
      [[unroll]] for (uint d = 0u; d < DT; ++d) {
        OPD vt;
        coopMatLoadNV(vt, sh, VS_AT + k * 16u * SROW + 2u * d, SROW, false);
        [[unroll]] for (uint mt = 0u; mt < MT; ++mt) o[mt][d] = coopMatMulAddNV(p[mt], vt, o[mt][d]);
      }
    }
  }

  // out = O / l, each element to its place (rows past the prompt are not
  // written).
  [[unroll]] for (uint mt = 0u; mt < MT; ++mt) {
    [[unroll]] for (uint d = 0u; d < DT; ++d) {
      [[unroll]] for (int i = 0; i < o[mt][d].length(); ++i) {
        const uint at = uint(where[i]), token = w0 + mt * 16u + at / 16u;
        if (token < TOKENS) outs[(token * HEADS + h) * HD + d * 16u + at % 16u] = o[mt][d][i] / l[mt][i];
      }
    }
  }
}
