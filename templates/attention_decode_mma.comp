#version 450
// Decode attention on tensor cores: the MMA=1 path of attention_decode (the
// same problem as attention_decode.comp: one query token of HEADS heads
// against an fp16 KV cache [KV_LEN][KV_HEADS][HD], scale 1/sqrt(HD), fp32
// q and out; the query sees every cache entry).
//
// Why: with grouped-query heads a K value meets QH queries and a V value
// QH weights, so the CUDA-core walk spends about 2*QH FMAs, a widening and
// its share of a team's shuffle sums on every 2 bytes it reads. At QH = 4
// that is about the H200's issue rate at its read ceiling, and the walk
// ran at 36% of it. Here the products are matrix products
// (GL_NV_cooperative_matrix, fp16 inputs, fp32 accumulators): the QH query
// rows (padded to the matrix's 16 rows) times a staged tile of K, and the
// softmax weights times a staged tile of V. An invocation's work per 16
// bytes read is a load, a shared-memory store and a share of a few matrix
// operations.
//
// Numerics: K and V are fp16 already, so they enter exactly. q (pre-scaled
// by 1/sqrt(HD)) and the softmax weights p are fp32; each is split into
// two fp16 terms, hi = fp16(x) and lo = fp16(x - hi), and multiplied twice
// (hi and lo) into the fp32 accumulator, which carries about 22 bits of x
// instead of 11. The weights are scaled by 2^14 before splitting (p <= 1
// after the max is subtracted), so lo stays clear of fp16's subnormals for
// every weight that matters; l carries the same factor.
//
// Workgroup (gl_WorkGroupID.x: split s, .y: head group g) takes the QH query
// heads of one KV head and the cache entries [s*KV_CHUNK, min((s+1)*KV_CHUNK,
// KV_LEN)) in two passes over STEP-entry stages: K stages, whose scores go to
// shared memory; one softmax over the chunk (no online rescaling: the chunk's
// scores all fit); V stages, accumulating p·V. Each stage is loaded into
// registers with 16-byte loads (rows past the chunk reread its last), stored to
// shared memory, and multiplied from there; the loads of the next PREFETCH
// stages are in flight during a stage's products (the first V stages during
// the softmax). Warp w takes the 16-entry tiles w, w+WARPS, ... of a K stage
// and the 16-dim tiles w, w+WARPS, ... of the output.
//
// Splits (gl_NumWorkGroups.x > 1) are merged in the same dispatch, with
// include/attention_split_merge.glsl's scratch layout and protocol: each
// workgroup writes per head a record (m, l) and its accumulator, bumps its
// group's counter, and the last one to finish merges all records in one pass
// and resets the counter. A single split writes out directly.
//
// Parameters: WG_SIZE, STEP, KV_CHUNK, PREFETCH, QH (the others of the
// space are pinned and unused here). Semantics: HD (head_dim, from the
// shape), MAX_HEADS, MAX_SPLITS. Push constants: HEADS, KV_HEADS, head_dim
// (= HD), KV_LEN. Buffers as attention_decode.comp.
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint HEADS; uint KV_HEADS; uint head_dim; uint KV_LEN; };

layout(std430, set = 0, binding = 0) readonly buffer Q { float qs[]; };
layout(std430, set = 0, binding = 1) readonly buffer K { uvec4 ks[]; };
layout(std430, set = 0, binding = 2) readonly buffer V { uvec4 vs[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { float outs[]; };

#define WARPS (WG_SIZE / 32u)
#define ROW4 (HD / 8u)                   // uvec4s (8 halves) per cache row of one head
#define SROW ((HD + 8u) / 8u)            // staged row stride in uvec4s (16 bytes of padding: rows in other banks)
#define PROW ((KV_CHUNK + 8u) / 8u)      // weight row stride in uvec4s
#define PER_LANE (STEP * ROW4 / WG_SIZE) // uvec4s of a stage per invocation
#define KTILES (STEP / 16u)              // 16-entry tiles per stage
#define DTILES (HD / 16u / WARPS)        // 16-dim output tiles per warp
#define DIM4 (HD / 4u)
#define LOWEST (-3.0e38)
#define PSCALE 16384.0                   // 2^14: see Numerics
#define MB 16u                           // splits per round of the merge, their loads in flight together

#if (STEP * (HD / 8)) % WG_SIZE != 0 || (HD / 16) % (WG_SIZE / 32) != 0 || KV_CHUNK % STEP != 0 || HD % 16 != 0
#error "STEP*HD/8 must be a multiple of WG_SIZE, HD/16 of the warps, KV_CHUNK of STEP"
#endif

// One array for everything the matrix loads and stores touch, of uvec4s:
// they need 16-byte aligned addresses, and only a 16-byte element type
// makes the driver place an array so (on the H200 the first version's fp32
// tiles, a float array, sat 4 bytes off: every stored matrix came back
// shifted by one element).
// Offsets and strides are in uvec4s (8 halves, 4 floats). Regions: OPND
// holds q's hi and lo rows during the K stages, then the weights' hi and lo
// rows; STAGE a stage of K or V; TILE a 16×16 fp32 tile per warp (scores,
// outputs), then the merge's vec4s.
#define QHI_AT 0u
#define QLO_AT (16u * SROW)
#define PHI_AT 0u
#define PLO_AT (16u * PROW)
#define OPND_U4 (SROW > PROW ? 32u * SROW : 32u * PROW)
#define STAGE_AT OPND_U4
#define TILE_AT (OPND_U4 + STEP * SROW)
shared uvec4 sh[OPND_U4 + STEP * SROW + WARPS * 64u];
#define TILEF(x) uintBitsToFloat(sh[TILE_AT + (x) / 4u][(x) % 4u])  // float x of TILE
shared float scores[QH * KV_CHUNK];     // the chunk's scores, then nothing
shared float head_m[QH], head_l[QH];

// The scratch layout, the last-split election and the split merge.
#define SPLIT_MERGE_MB MB
#define SPLIT_MERGE_PUT(i, v) sh[TILE_AT + (i)] = floatBitsToUint(v)
#define SPLIT_MERGE_GET(i) uintBitsToFloat(sh[TILE_AT + (i)])
#include "attention_split_merge.glsl"

// hi = fp16(x), lo = fp16(x - hi) for two values, packed. The residual
// reads hi back through `zero`, a run-time 0 (HEADS >> 16): seeing
// unpackHalf2x16(packHalf2x16(x)) the compiler folds it to x, which made
// every lo 0 (a relative error of 2.4e-4, fp16's, measured on the H200).
uvec2 split_half(vec2 x, uint zero) {
  const uint hi = packHalf2x16(x);
  return uvec2(hi, packHalf2x16(x - unpackHalf2x16(hi + zero)));
}

#define ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define OPD fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>

// Stage j of the split: K entries j*STEP.. for j < steps, V entries
// (j-steps)*STEP.. after, of the n entries from c0.
void load_stage(uint j, uint steps, uint c0, uint n, uint kvh, out uvec4 r[PER_LANE]) {
  const bool is_v = j >= steps;
  const uint t0 = (is_v ? j - steps : j) * STEP;
  [[unroll]] for (uint e = 0u; e < PER_LANE; ++e) {
    const uint u = gl_LocalInvocationID.x + e * WG_SIZE;
    const uint row = u / ROW4, col = u - row * ROW4;
    // Rows past the chunk reread its last entry: their scores are masked and
    // their weights 0, and the loads need no branch (measured 1.5 us faster
    // at 32,8,128,8192 than zero-filled rows behind a bounds test).
    const uint at = (c0 + min(t0 + row, n - 1u)) * (KV_HEADS * ROW4) + kvh * ROW4 + col;
    if (is_v) {
      r[e] = vs[at];
    } else {
      r[e] = ks[at];
    }
  }
}

void store_stage(uvec4 r[PER_LANE]) {
  [[unroll]] for (uint e = 0u; e < PER_LANE; ++e) {
    const uint u = gl_LocalInvocationID.x + e * WG_SIZE;
    const uint row = u / ROW4, col = u - row * ROW4;
    sh[STAGE_AT + row * SROW + col] = r[e];
  }
}

// Scores of K stage j: (q hi + q lo) · K tileᵀ per 16-entry tile, rows < QH
// copied to scores[i][j*STEP + entry].
void score_stage(uint j) {
  const uint warp = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  for (uint kt = warp; kt < KTILES; kt += WARPS) {
    ACC acc = ACC(0.0);
    [[unroll]] for (uint k = 0u; k < HD / 16u; ++k) {
      OPD a_hi, a_lo, b;
      coopMatLoadNV(a_hi, sh, QHI_AT + 2u * k, SROW, false);
      coopMatLoadNV(a_lo, sh, QLO_AT + 2u * k, SROW, false);
      // Kᵀ: column n (an entry) is a staged row.
      coopMatLoadNV(b, sh, STAGE_AT + kt * 16u * SROW + 2u * k, SROW, true);
      acc = coopMatMulAddNV(a_hi, b, acc);
      acc = coopMatMulAddNV(a_lo, b, acc);
    }
    coopMatStoreNV(acc, sh, TILE_AT + warp * 64u, 4u, false);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    for (uint e = lane; e < QH * 16u; e += 32u) {
      const uint i = e / 16u, c = e % 16u;
      scores[i * KV_CHUNK + j * STEP + kt * 16u + c] = TILEF(warp * 256u + i * 16u + c);
    }
    subgroupBarrier();
  }
}

// The chunk's softmax: per head (a warp each) the max m over its n scores,
// the weights p = 2^14 e^(s - m) (0 past n) as hi and lo fp16 rows, l = sum p.
void softmax_chunk(uint n) {
  const uint warp = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  for (uint i = warp; i < QH; i += WARPS) {
    float mx = LOWEST;
    for (uint t = lane; t < n; t += 32u) mx = max(mx, scores[i * KV_CHUNK + t]);
    mx = subgroupMax(mx);
    float sum = 0.0;
    for (uint t = 2u * lane; t < KV_CHUNK; t += 64u) {
      vec2 p = vec2(0.0);
      if (t < n) p.x = exp(scores[i * KV_CHUNK + t] - mx) * PSCALE;
      if (t + 1u < n) p.y = exp(scores[i * KV_CHUNK + t + 1u] - mx) * PSCALE;
      sum += p.x + p.y;
      const uvec2 hl = split_half(p, HEADS >> 16u);
      const uint at = i * PROW + t / 8u, word = (t % 8u) / 2u;
      sh[PHI_AT + at][word] = hl.x;
      sh[PLO_AT + at][word] = hl.y;
    }
    sum = subgroupAdd(sum);
    if (lane == 0u) head_m[i] = mx, head_l[i] = sum;
  }
}

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint warp = gl_SubgroupID;
  const uint split = gl_WorkGroupID.x, g = gl_WorkGroupID.y;
  const uint splits = gl_NumWorkGroups.x;
  const uint h0 = g * QH;
  const uint kvh = h0 / (HEADS / KV_HEADS);
  const uint c0 = split * KV_CHUNK;
  const uint n = min(KV_CHUNK, KV_LEN - c0);
  const uint steps = (n + STEP - 1u) / STEP;
  const uint stages = 2u * steps;

  // The first stages' loads go out before q's (the walk's first DRAM round
  // trip does not wait behind them).
  uvec4 ra[PER_LANE];
  load_stage(0u, steps, c0, n, kvh, ra);
#if PREFETCH == 2
  uvec4 rb[PER_LANE];
  if (1u < stages) load_stage(1u, steps, c0, n, kvh, rb);
#endif

  // q's rows (pre-scaled) as hi and lo fp16; rows QH..15 zero.
  const float scale = inversesqrt(float(HD));
  for (uint x = lid; x < 16u * ROW4; x += WG_SIZE) {
    const uint i = x / ROW4, c = x - i * ROW4;
    uvec4 hi = uvec4(0u), lo = uvec4(0u);
    if (i < QH) {
      const uint at = (h0 + i) * HD + 8u * c;
      [[unroll]] for (uint w = 0u; w < 4u; ++w) {
        const uvec2 hl = split_half(vec2(qs[at + 2u * w], qs[at + 2u * w + 1u]) * scale, HEADS >> 16u);
        hi[w] = hl.x;
        lo[w] = hl.y;
      }
    }
    sh[QHI_AT + i * SROW + c] = hi;
    sh[QLO_AT + i * SROW + c] = lo;
  }

  ACC o[DTILES];
  [[unroll]] for (uint d = 0u; d < DTILES; ++d) o[d] = ACC(0.0);

  // One stage: store its registers to shared memory, refill them PREFETCH
  // stages ahead, multiply. The softmax runs before the first V stage (its
  // loads and the next ones are in flight); it overwrites q's rows, which
  // the barrier before it retires.
#define RUN_STAGE(j, r)                                                                 \
  barrier();                                                                            \
  store_stage(r);                                                                       \
  if ((j) + PREFETCH < stages) load_stage((j) + PREFETCH, steps, c0, n, kvh, r);        \
  if ((j) == steps) {                                                                   \
    softmax_chunk(n);                                                                   \
  }                                                                                     \
  barrier();                                                                            \
  if ((j) < steps) {                                                                    \
    score_stage(j);                                                                     \
  } else {                                                                              \
    const uint t0 = ((j) - steps) * STEP;                                               \
    [[unroll]] for (uint k = 0u; k < KTILES; ++k) {                                     \
      OPD p_hi, p_lo;                                                                   \
      coopMatLoadNV(p_hi, sh, PHI_AT + (t0 + 16u * k) / 8u, PROW, false);               \
      coopMatLoadNV(p_lo, sh, PLO_AT + (t0 + 16u * k) / 8u, PROW, false);               \
      [[unroll]] for (uint d = 0u; d < DTILES; ++d) {                                   \
        OPD b;                                                                          \
        coopMatLoadNV(b, sh, STAGE_AT + 16u * k * SROW + 2u * (warp + d * WARPS), SROW, false); \
        o[d] = coopMatMulAddNV(p_hi, b, o[d]);                                          \
        o[d] = coopMatMulAddNV(p_lo, b, o[d]);                                          \
      }                                                                                 \
    }                                                                                   \
  }

#if PREFETCH == 2
  // Unrolled by two so that each register set keeps its role (a copy
  // between them would wait for the loads in flight).
  for (uint j = 0u; j < stages; j += 2u) {
    RUN_STAGE(j, ra)
    RUN_STAGE(j + 1u, rb)
  }
#else
  for (uint j = 0u; j < stages; ++j) {
    RUN_STAGE(j, ra)
  }
#endif

  // Each output tile through the warp's fp32 tile: rows < QH are the heads',
  // written out (one split) or as the split's partial accumulators.
  const uint lane = gl_SubgroupInvocationID;
  [[unroll]] for (uint d = 0u; d < DTILES; ++d) {
    const uint dt = warp + d * WARPS;
    coopMatStoreNV(o[d], sh, TILE_AT + warp * 64u, 4u, false);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    for (uint e = lane; e < QH * 4u; e += 32u) {
      const uint i = e / 4u, c = e % 4u;
      vec4 a = uintBitsToFloat(sh[TILE_AT + warp * 64u + i * 4u + c]);
      if (splits == 1u) {
        a /= head_l[i];
        const uint o4 = (h0 + i) * HD + 16u * dt + 4u * c;
        outs[o4] = a.x, outs[o4 + 1u] = a.y, outs[o4 + 2u] = a.z, outs[o4 + 3u] = a.w;
      } else {
        partials[split_record_at(h0 + i, split) + 1u + 4u * dt + c] = a;
      }
    }
    subgroupBarrier();
  }
  if (splits > 1u && lid < QH) partials[split_record_at(h0 + lid, split)] = vec4(head_m[lid], head_l[lid], 0.0, 0.0);
  if (splits == 1u) return;
  // The merge, by the last workgroup of the head group to finish, through TILE.
  if (!is_last_workgroup(lid, g, splits)) return;
  split_merge(lid, h0, QH, splits, WG_SIZE);
  if (lid == 0u) counters[g] = 0u;
}
