#version 450
// Prefill attention on tensor cores: the MMA=1 path of attention_prefill
// (the problem is in include/attention_prefill_io.glsl), flash-attention
// style: scores and weighted values are matrix products
// (GL_NV_cooperative_matrix, fp16 16×16×16 into fp32) and the softmax is
// online, so a query tile's scores never leave the workgroup.
//
// A workgroup takes BR = WARPS*16*MT consecutive query tokens of one head
// (gl_WorkGroupID.y); each subgroup (warp) takes 16*MT of them, its q
// (pre-scaled, fp16) held as matrix operands in registers and its output
// as fp32 accumulators. The cache is walked in blocks of BC entries up to
// the tile's last position; a block of K and one of V are staged in shared
// memory by the whole workgroup (PREFETCH=1: the next block's loads are in
// flight during this block's products). Per block a warp
//   1. multiplies q by the staged Kᵀ into its scores S (16*MT × BC, fp32,
//      through shared memory: the accumulators' layout is opaque);
//   2. per row, masks the entries past the query's position, takes the
//      block's max and writes the weights p = 2^(s - m) as fp16 (P);
//   3. multiplies P by the staged V into its output accumulators.
// A warp skips the blocks past its last query (the causal mask's upper
// triangle).
//
// The running max m per row is raised lazily: only when a block's max
// exceeds it by more than RESCALE (in log2 units) does the row take the new
// max and the warp rescale its accumulators (stored to shared memory, each
// row scaled by 2^(m_old - m_new), loaded back: the only way to reach a
// row of an opaque accumulator). Otherwise the weights are computed against
// the old max and may reach 2^RESCALE, which fp16 and the fp32 sums hold
// exactly as well as weights below 1; the result is the same softmax. In a
// prompt the max settles within a few blocks, so most blocks rescale
// nothing.
//
// Numerics: K and V are fp16 already and enter exactly; q and the weights
// are rounded to fp16 (about 11 bits), as in flash attention's fp16 mode;
// the sums of weights l add the rounded weights, so that the normalization
// matches the products.
//
// Parameters: WG_SIZE, BC, MT, PREFETCH (the others of the space are pinned
// and unused here). Semantics: HD (head_dim, from the shape).
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
#include "attention_prefill_io.glsl"

#define WARPS (WG_SIZE / 32u)
#define WR (16u * MT)                          // query rows per warp
#define BR (WARPS * WR)                        // query rows per workgroup
#define SROW ((HD + 8u) / 8u)                  // staged cache row stride in uvec4s (padded: rows in other banks)
#define SSTR ((BC + 4u) / 4u)                  // score row stride in uvec4s (4 floats each)
#define PSTR ((BC + 8u) / 8u)                  // weight row stride in uvec4s (8 halves each)
#define SREG (WR * SSTR)                       // a warp's score region
#define PREG (WR * PSTR)                       // a warp's weight region
#define LPR (32u / WR)                         // lanes per row in the softmax
#define EPL (BC / LPR)                         // entries per lane in the softmax
#define PER_LANE ((BC * ROW4 + WG_SIZE - 1u) / WG_SIZE)  // uvec4s of a K (or V) block per invocation
#define DT (HD / 16u)                          // 16-dim tiles of a row
#define RESCALE 8.0                            // see the lazy max above
#define LOWEST (-3.0e38)

#if HD % 16 != 0 || BC % 16 != 0 || (MT != 1 && MT != 2) || WG_SIZE % 32 != 0
#error "HD and BC must be multiples of 16, MT 1 or 2, WG_SIZE a multiple of 32"
#endif

// One array for everything the matrix loads and stores touch, of uvec4s:
// they need 16-byte aligned addresses (see attention_decode_mma.comp).
// Regions: K and V blocks; per warp its scores (also the scratch of q's
// staging, the rescales and the output) and its weights.
#define KS_AT 0u
#define VS_AT (BC * SROW)
#define SS_AT (2u * BC * SROW)
#define PS_AT (SS_AT + WARPS * SREG)
shared uvec4 sh[PS_AT + WARPS * PREG];
shared float row_factor[BR];  // per row: the rescale factor, then 1/l

#define ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define OPD fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>

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

// A 16×16 fp32 tile through the warp's scratch: lane `lane` holds row
// lane/2, columns 8*(lane%2)..+8, as two vec4s at TILE_AT + 2*lane.
#define TILE_AT (SS_AT + gl_SubgroupID * SREG)

void main() {
  const uint lid = gl_LocalInvocationID.x, warp = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  const uint h = gl_WorkGroupID.y, kvh = h / (HEADS / KV_HEADS);
  const uint t0 = query_tile() * BR;
  const uint w0 = t0 + warp * WR;  // the warp's first query token
  const uint last = query_position(min(t0 + BR - 1u, TOKENS - 1u));
  const uint warp_last = query_position(min(w0 + WR - 1u, TOKENS - 1u));
  const uint blocks = last / BC + 1u;

  uvec4 rk[PER_LANE], rv[PER_LANE];
#if PREFETCH == 1
  load_block(0u, kvh, rk, rv);
#endif

  // q as fp16 operands, through the scratch a tile at a time: lane holds
  // 8 dims of one row (rows past the prompt reread its last token).
  const float scale = inversesqrt(float(HD)) * LOG2E;
  OPD qf[MT][DT];
  [[unroll]] for (uint mt = 0u; mt < MT; ++mt) {
    const uint token = min(w0 + mt * 16u + lane / 2u, TOKENS - 1u);
    [[unroll]] for (uint d = 0u; d < DT; ++d) {
      const uint at = (token * HEADS + h) * HD + d * 16u + (lane % 2u) * 8u;
      uvec4 w;
      [[unroll]] for (uint i = 0u; i < 4u; ++i) w[i] = packHalf2x16(vec2(qs[at + 2u * i], qs[at + 2u * i + 1u]) * scale);
      sh[TILE_AT + lane] = w;
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      coopMatLoadNV(qf[mt][d], sh, TILE_AT, 2u, false);
      subgroupBarrier();
    }
  }

  ACC o[MT][DT];
  [[unroll]] for (uint mt = 0u; mt < MT; ++mt) {
    [[unroll]] for (uint d = 0u; d < DT; ++d) o[mt][d] = ACC(0.0);
  }
  // The softmax's rows: lane takes row r of the warp, entries part*EPL..
  const uint r = lane / LPR, part = lane % LPR;
  const uint row_pos = query_position(min(w0 + r, TOKENS - 1u));
  float m = LOWEST, l = 0.0;

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

    // 1. S = q Kᵀ, a 16-entry column of tiles at a time.
    [[unroll]] for (uint j = 0u; j < BC / 16u; ++j) {
      ACC s[MT];
      [[unroll]] for (uint mt = 0u; mt < MT; ++mt) s[mt] = ACC(0.0);
      [[unroll]] for (uint d = 0u; d < DT; ++d) {
        OPD kt;
        coopMatLoadNV(kt, sh, KS_AT + j * 16u * SROW + 2u * d, SROW, true);
        [[unroll]] for (uint mt = 0u; mt < MT; ++mt) s[mt] = coopMatMulAddNV(qf[mt][d], kt, s[mt]);
      }
      [[unroll]] for (uint mt = 0u; mt < MT; ++mt) {
        coopMatStoreNV(s[mt], sh, TILE_AT + mt * 16u * SSTR + 4u * j, SSTR, false);
      }
    }
    subgroupMemoryBarrierShared();
    subgroupBarrier();

    // 2. The weights of row r, entries part*EPL.. (8 at a time: a uvec4 of P).
    const uint s_row = TILE_AT + r * SSTR + part * (EPL / 4u);
    float mx = LOWEST;
    [[unroll]] for (uint c = 0u; c < EPL / 4u; ++c) {
      const vec4 s4 = uintBitsToFloat(sh[s_row + c]);
      [[unroll]] for (uint i = 0u; i < 4u; ++i) {
        if (e0 + part * EPL + 4u * c + i <= row_pos) mx = max(mx, s4[i]);
      }
    }
    if (LPR == 2u) mx = max(mx, subgroupShuffleXor(mx, 1u));
    const bool raise = mx > m + RESCALE;
    const bool any_raise = subgroupAny(raise);
    if (raise) {
      l *= exp2(m - mx);
      if (part == 0u) row_factor[warp * WR + r] = exp2(m - mx);
      m = mx;
    } else if (any_raise && part == 0u) {
      row_factor[warp * WR + r] = 1.0;
    }
    float sum = 0.0;
    const uint p_row = PS_AT + warp * PREG + r * PSTR + part * (EPL / 8u);
    [[unroll]] for (uint c = 0u; c < EPL / 8u; ++c) {
      uvec4 w;
      [[unroll]] for (uint i = 0u; i < 4u; ++i) {
        const uint c0 = part * EPL + 8u * c + 2u * i;
        const vec2 s2 = uintBitsToFloat(uvec2(sh[s_row + 2u * c + i / 2u][2u * (i % 2u)],
                                              sh[s_row + 2u * c + i / 2u][2u * (i % 2u) + 1u]));
        const vec2 p = vec2(e0 + c0 <= row_pos ? exp2(s2.x - m) : 0.0, e0 + c0 + 1u <= row_pos ? exp2(s2.y - m) : 0.0);
        w[i] = packHalf2x16(p);
        const vec2 rounded = unpackHalf2x16(w[i]);
        sum += rounded.x + rounded.y;
      }
      sh[p_row + c] = w;
    }
    if (LPR == 2u) sum += subgroupShuffleXor(sum, 1u);
    l += sum;
    subgroupMemoryBarrierShared();
    subgroupBarrier();

    // The lazy rescale: each accumulator through the scratch (the scores
    // are no longer needed), rows scaled by their factors.
    if (any_raise) {
      [[unroll]] for (uint mt = 0u; mt < MT; ++mt) {
        const float f = row_factor[warp * WR + mt * 16u + lane / 2u];
        [[unroll]] for (uint d = 0u; d < DT; ++d) {
          coopMatStoreNV(o[mt][d], sh, TILE_AT, 4u, false);
          subgroupMemoryBarrierShared();
          subgroupBarrier();
          sh[TILE_AT + 2u * lane] = floatBitsToUint(uintBitsToFloat(sh[TILE_AT + 2u * lane]) * f);
          sh[TILE_AT + 2u * lane + 1u] = floatBitsToUint(uintBitsToFloat(sh[TILE_AT + 2u * lane + 1u]) * f);
          subgroupMemoryBarrierShared();
          subgroupBarrier();
          coopMatLoadNV(o[mt][d], sh, TILE_AT, 4u, false);
          subgroupBarrier();
        }
      }
    }

    // 3. O += P V.
    [[unroll]] for (uint k = 0u; k < BC / 16u; ++k) {
      OPD p[MT];
      [[unroll]] for (uint mt = 0u; mt < MT; ++mt) {
        coopMatLoadNV(p[mt], sh, PS_AT + warp * PREG + mt * 16u * PSTR + 2u * k, PSTR, false);
      }
      [[unroll]] for (uint d = 0u; d < DT; ++d) {
        OPD vt;
        coopMatLoadNV(vt, sh, VS_AT + k * 16u * SROW + 2u * d, SROW, false);
        [[unroll]] for (uint mt = 0u; mt < MT; ++mt) o[mt][d] = coopMatMulAddNV(p[mt], vt, o[mt][d]);
      }
    }
    subgroupBarrier();
  }

  // out = O / l, each tile through the scratch.
  if (part == 0u) row_factor[warp * WR + r] = 1.0 / l;
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  [[unroll]] for (uint mt = 0u; mt < MT; ++mt) {
    const uint token = w0 + mt * 16u + lane / 2u;
    const float inv = row_factor[warp * WR + mt * 16u + lane / 2u];
    [[unroll]] for (uint d = 0u; d < DT; ++d) {
      coopMatStoreNV(o[mt][d], sh, TILE_AT, 4u, false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      if (token < TOKENS) {
        const uint at = (token * HEADS + h) * HD + d * 16u + (lane % 2u) * 8u;
        [[unroll]] for (uint i = 0u; i < 2u; ++i) {
          const vec4 v = uintBitsToFloat(sh[TILE_AT + 2u * lane + i]) * inv;
          outs[at + 4u * i] = v.x, outs[at + 4u * i + 1u] = v.y, outs[at + 4u * i + 2u] = v.z, outs[at + 4u * i + 3u] = v.w;
        }
      }
      subgroupBarrier();
    }
  }
}
