#version 450
// Decode attention, as reference/ops.hpp `attention` defines it: one query
// token of HEADS heads against a KV cache of KV_LEN tokens of KV_HEADS heads
// (HEADS a multiple of KV_HEADS; head h reads KV head h / (HEADS/KV_HEADS)),
// HEAD_DIM values per head:
//   s[t] = dot(q_h, k[t]) / sqrt(HEAD_DIM), p = softmax(s), out_h = sum_t p[t] v[t].
// The single query sees every cache entry (causal over the cache). K and V
// are fp16, [KV_LEN][KV_HEADS][HEAD_DIM], read as packed 32-bit words
// (VEC fp16 values per load: uvec2 or uvec4) and widened (no 16-bit storage
// feature needed) by WIDEN: 0 = unpackHalf2x16 (a conversion instruction per
// value), 1 = integer bit moves (see widen); q and out are fp32.
//
// Workgroup (gl_WorkGroupID.x: split s, .y: head group g) computes the QH
// query heads g*QH .. g*QH+QH-1, which share one KV head (QH divides
// HEADS/KV_HEADS), so each K and V byte is read once per split rather than
// once per query head. It walks the KV tokens [s*KV_CHUNK,
// min((s+1)*KV_CHUNK, KV_LEN)); KV_CHUNK 0 = the whole cache (one workgroup
// per head group). The split count is gl_NumWorkGroups.x =
// ceil(KV_LEN / KV_CHUNK), at most MAX_SPLITS.
//
// A team of T lanes takes a token (T = the smallest power of two with
// T*LOADS*VEC >= HEAD_DIM, from the push constants; SLOTS = WG_SIZE/T teams):
// lane l holds dims (c*T + l)*VEC .. +VEC for c < LOADS of the QH queries
// (pre-scaled) and of its QH accumulators in registers. A step of a team is
// TOKENS tokens (t = base + u*SLOTS + slot, u < TOKENS): all their K and V
// loads are issued first (2*TOKENS*LOADS loads in flight per lane), then the
// QH*TOKENS partial dot products are summed over the team by REDUCTION (0: a
// subgroupShuffleXor butterfly, the team inside a subgroup; 1: a
// shared-memory sum, three barriers per step; 2: a reduce-scatter inside
// the subgroup, QH*TOKENS <= T: each lane ends with one score, takes its
// exp, and the weights go to the team by shuffles: at QH=4, TOKENS=4, T=16
// 37 shuffles and 5 exps a lane per step instead of 64 and 20), then an
// online softmax over the step's tokens per head (one rescale of the
// accumulators per step), then the V accumulation. Each team keeps its own
// (max m, sum l, accumulator) per head; at the end the teams are merged
// through shared memory, TEAM_HEADS heads a pass (all QH in one pass, one
// barrier, where they fit the host's budget).
//
// KV_CHUNK > 0: there is one dispatch, so the splits are merged in it: each
// workgroup writes per head (m, l, acc[HEAD_DIM]) to the scratch buffer,
// then bumps the head group's counter; the workgroup that sees splits-1
// (the last to finish) merges all the partials into out (vec4 loads, the
// splits shared among the invocations) and resets the counter to 0 for the
// next dispatch. Partials are `coherent` and fenced with
// memoryBarrierBuffer() before the counter is bumped and after it is read.
//
// MERGE selects how the last workgroup merges the splits: 0 = in phases:
// every split's (m, l) to shared memory (one load round trip), the global
// max and sum and the weights e^(m - M)/L there (three barriers), then the
// accumulators eight splits a round; 1 = in one pass: each invocation loads
// the (m, l) record together with its accumulator vec4, SPLIT_MERGE_MB
// splits a round, and merges them online (at 32 splits: two load round trips instead of
// five, no barriers where the outputs cover the workgroup). The tail after
// the last walk is serial (the whole dispatch waits for it), so round trips
// there cost the dispatch directly.
//
// PREFETCH=1 software-pipelines the walk: a step's loads are issued a step
// ahead, before the previous step's arithmetic (twice the load registers).
// PREFETCH=2 issues them two steps ahead (three times the load registers):
// twice the bytes in flight per lane, for where the workgroups per SM are
// few (a split count near the SM count) and one step of loads does not
// cover the memory latency. PREFETCH=3 issues them three steps ahead and
// pays for the fourth step of load registers with q's: the queries live in
// shared memory (qsh, Q_SH vec4s from the host, pre-scaled) and are read
// at each use (the read's index carries a run-time zero that depends on the
// step and the token, so the compiler neither hoists the reads out of the
// loop nor merges them back into registers). At TOKENS*LOADS*VEC = 32 it
// holds 3 steps of loads in flight during the arithmetic in the registers
// that PREFETCH=2 holds 2 in (the walk at 8192 is short of bytes in flight
// at two workgroups of 128 per SM).
//
// LEAN=1 trims the fixed cost (the serial part of a short walk): the first
// K and V loads are issued before q's where they are prefetched (PREFETCH
// 1 to 3: the walk's first DRAM round trip does not wait behind q's); the
// prefetches past the chunk's end are skipped (they reread its last entry,
// and the tail would wait on them where it reuses their registers); the
// team merge takes one barrier a pass instead of three (the accumulators go
// to shared memory unscaled with (m, l); each summing invocation computes
// the weights e^(m - M) itself and writes the split's (m, l) record). LEAN=0
// is the previous order. Either way the split merge (MERGE=1,
// include/attention_split_merge.glsl) loads no records past the last split.
//
// Tried on the H200 and not kept (each measured with the parameters
// re-tuned): integer fp16 widening instead of unpackHalf2x16 (F2F runs at a
// quarter of the FMA rate), scores in log2 units with exp2, team and split
// maxima through shared atomicMax on order-preserving keys, constant-offset
// shuffle levels. Together they measured 42 us at 32,8,128,8192 against
// 24 us for this version; the widening alone took 59 -> 42 us on that
// reworked version, so it is offered here as WIDEN=1 (a different
// widening: no rebias, the factor folded into q and the weights).
//
// Parameters: WG_SIZE, LOADS, VEC, QH, TOKENS, PREFETCH, KV_CHUNK, REDUCTION, MERGE, WIDEN, LEAN.
// Buffers: q, k, v, scratch (MAX_HEADS counters, then per head MAX_SPLITS
// partials of 1 + HEAD_DIM/4 vec4s: (m, l, -, -) and the accumulator), out.
// Semantics: MAX_HEADS, MAX_SPLITS, Q_SH (vec4s of qsh: PREFETCH=3),
// SH_FLOATS (the shared scratch array, sized by the host for the phases
// below), TEAM_HEADS (heads per pass of the team merge, a power of two
// dividing QH, chosen by the host).
// Push constants: HEADS, KV_HEADS, HEAD_DIM, KV_LEN.
#extension GL_EXT_control_flow_attributes : require
#if REDUCTION == 0 || REDUCTION == 2
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint HEADS; uint KV_HEADS; uint HEAD_DIM; uint KV_LEN; };

layout(std430, set = 0, binding = 0) readonly buffer Q { float qs[]; };
#if VEC == 4
#define KTYPE uvec2
#elif VEC == 8
#define KTYPE uvec4
#else
#error "VEC must be 4 or 8"
#endif
layout(std430, set = 0, binding = 1) readonly buffer K { KTYPE ks[]; };
layout(std430, set = 0, binding = 2) readonly buffer V { KTYPE vs[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { float outs[]; };

#define LD (LOADS * VEC)   // dims of a lane per head
#define LD4 (LD / 4)         // ... in vec4s
#define V4 (VEC / 4)         // vec4s per load
#define NV (QH * TOKENS)   // scores of a lane per step
#define LOWEST (-3.0e38)   // finite: empty teams merge to 0 without NaN
#if NV == 1
#define NV_LOG 0u
#elif NV == 2
#define NV_LOG 1u
#elif NV == 4
#define NV_LOG 2u
#elif NV == 8
#define NV_LOG 3u
#elif NV == 16
#define NV_LOG 4u
#elif NV == 32
#define NV_LOG 5u
#else
#error "QH*TOKENS must be a power of two up to 32"
#endif

#if WIDEN == 0
// The VEC fp16 values of a load widened, as V4 vec4s.
#define WSCALE 1.0
void widen(KTYPE w, out vec4 f[V4]) {
  [[unroll]] for (uint i = 0u; i < V4; ++i) f[i] = vec4(unpackHalf2x16(w[2u * i]), unpackHalf2x16(w[2u * i + 1u]));
}
#elif WIDEN == 1
// The VEC fp16 values of a load times 2^-112, as V4 vec4s: an fp16's sign,
// exponent and mantissa moved into an fp32's fields without rebiasing the
// exponent (15 -> 127), two or three integer operations a value instead of
// a conversion. Exact for zero and normal fp16 values; fp16 subnormals
// (below 6.1e-5) become fp32 subnormals, 0 where the device flushes them
// (an error below 6.1e-5 of that value); inf and NaN, not expected in a KV
// cache, become 65536-ish finite values. The factor 2^112 (WSCALE) is folded
// into the pre-scaled queries (K) and the softmax weights (V), so the
// scores and accumulators keep their magnitudes; a pre-scaled query value
// q*2^112/sqrt(HEAD_DIM) stays finite for |q| below 65536*sqrt(HEAD_DIM)
// (7.4e5 at 128), far above real queries.
#define WSCALE uintBitsToFloat(0x77800000u)  // 2^112
vec2 widen_word(uint w) {
  return uintBitsToFloat(uvec2(((w << 13u) & 0x0fffe000u) | ((w << 16u) & 0x80000000u),
                               ((w >> 3u) & 0x0fffe000u) | (w & 0x80000000u)));
}
void widen(KTYPE w, out vec4 f[V4]) {
  [[unroll]] for (uint i = 0u; i < V4; ++i) f[i] = vec4(widen_word(w[2u * i]), widen_word(w[2u * i + 1u]));
}
#else
#error "WIDEN must be 0 or 1"
#endif
#if LEAN != 0 && LEAN != 1
#error "LEAN must be 0 or 1"
#endif
#if PREFETCH < 0 || PREFETCH > 3
#error "PREFETCH must be 0 to 3"
#endif
#if PREFETCH == 3
shared vec4 qsh[Q_SH];  // the QH heads' queries, pre-scaled (see PREFETCH)
#endif

// One array for the phases that do not overlap: the REDUCTION=1 sums
// (WG_SIZE*NV), the team merge (WG_SIZE*LD) and the split merge (weights,
// then WG_SIZE vec4 partial sums).
shared vec4 sh[SH_FLOATS / 4];
#define SHF(x) sh[(x) >> 2u][(x) & 3u]  // float x of sh
shared float team_m[(WG_SIZE / 4) * QH], team_l[(WG_SIZE / 4) * QH];  // teams of at least 4
shared float head_m[QH], head_l[QH];

// The scratch buffer (binding 3), the last split's election and the
// one-pass merge (MERGE=1) are the streaming and tensor-core templates'.
#define HD HEAD_DIM
#define SPLIT_MERGE_MB 16u  // MERGE=1: splits per round of the merge (their loads in flight together)
#define SPLIT_MERGE_REREAD (LEAN == 0)  // LEAN=0 merges as it did before LEAN
#define SPLIT_MERGE_PUT(i, v) sh[i] = (v)
#define SPLIT_MERGE_GET(i) sh[i]
#include "attention_split_merge.glsl"

#if REDUCTION != 2
// The sums of s[v] over the team, in every lane of it (called by all
// invocations; team a power of two).
void team_sum(inout float s[NV], uint lid, uint slot, uint lane, uint team) {
#if REDUCTION == 0
  for (uint o = team >> 1u; o > 0u; o >>= 1u) {
    [[unroll]] for (uint v = 0u; v < NV; ++v) s[v] += subgroupShuffleXor(s[v], o);
  }
#else
  [[unroll]] for (uint v = 0u; v < NV; ++v) SHF(lid * NV + v) = s[v];
  barrier();
  // Lane l sums values l, l+team, ... over the team into the team's first row.
  const uint first = slot * team * NV;
  for (uint v = lane; v < NV; v += team) {
    float t = 0.0;
    for (uint k = 0u; k < team; ++k) t += SHF(first + k * NV + v);
    SHF(first + v) = t;
  }
  barrier();
  [[unroll]] for (uint v = 0u; v < NV; ++v) s[v] = SHF(first + v);
  barrier();
#endif
}
#endif

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint need = (HEAD_DIM + LD - 1u) / LD;
  const uint team = need <= 1u ? 1u : 1u << uint(findMSB(need - 1u) + 1);
  const uint slots = WG_SIZE / team;
  const uint slot = lid / team, lane = lid % team;
  const uint g = gl_WorkGroupID.y, split = gl_WorkGroupID.x;
  const uint h0 = g * QH;
  const uint kvh = h0 / (HEADS / KV_HEADS);
#if KV_CHUNK == 0
  const uint begin = 0u, end = KV_LEN;
#else
  const uint begin = min(split * KV_CHUNK, KV_LEN), end = min(begin + KV_CHUNK, KV_LEN);
#endif
  const float scale = inversesqrt(float(HEAD_DIM)) * WSCALE;  // WSCALE: see widen

  // Lane dims of chunk c start at (c*team + lane)*VEC; past HEAD_DIM (a
  // head_dim that is no power of two) the lane holds zeros.
  bool has[LOADS];
  [[unroll]] for (uint c = 0u; c < LOADS; ++c) has[c] = (c * team + lane) * VEC < HEAD_DIM;
  vec4 q[QH * LD4], acc[QH * LD4];
  // The lane's query values (pre-scaled); LEAN=1 loads them after the first
  // K and V words, so the walk's first loads do not queue behind them.
#define LOAD_Q                                                                                                 \
  [[unroll]] for (uint i = 0u; i < QH; ++i) {                                                                  \
    [[unroll]] for (uint c = 0u; c < LOADS; ++c) {                                                             \
      const uint at = (h0 + i) * HEAD_DIM + (c * team + lane) * VEC;                                           \
      [[unroll]] for (uint e = 0u; e < V4; ++e) {                                                              \
        const uint x = at + 4u * e;                                                                            \
        q[i * LD4 + c * V4 + e] = has[c] ? vec4(qs[x], qs[x + 1u], qs[x + 2u], qs[x + 3u]) * scale : vec4(0.0); \
      }                                                                                                        \
    }                                                                                                          \
  }
#if PREFETCH == 3
  // Lane dims of chunk c in qsh (clamped like the K and V columns; a lane
  // past HEAD_DIM reads zeros through has[c]).
  uint qat[LOADS];
  [[unroll]] for (uint c = 0u; c < LOADS; ++c) qat[c] = min(c * team + lane, HEAD_DIM / VEC - 1u) * V4;
#undef LOAD_Q
#define LOAD_Q                                                         \
  for (uint x = lid; x < QH * (HEAD_DIM / 4u); x += WG_SIZE) {         \
    const uint y = h0 * HEAD_DIM + 4u * x;                             \
    qsh[x] = vec4(qs[y], qs[y + 1u], qs[y + 2u], qs[y + 3u]) * scale; \
  }                                                                    \
  barrier();
// q's vec4 e of load c, head i, read for token u of the step (qz: 0).
#define QV(i, c, e, u) (has[c] ? qsh[(i) * (HEAD_DIM / 4u) + qat[c] + (e) + ((u) + 1u) * qz] : vec4(0.0))
#else
#define QV(i, c, e, u) q[(i) * LD4 + (c) * V4 + (e)]
#endif
#if LEAN == 0
  LOAD_Q
#endif
  [[unroll]] for (uint i = 0u; i < QH * LD4; ++i) acc[i] = vec4(0.0);
  float m[QH], l[QH];
  [[unroll]] for (uint i = 0u; i < QH; ++i) m[i] = LOWEST, l[i] = 0.0;

  const uint row_words = KV_HEADS * (HEAD_DIM / VEC);  // KTYPE per token
  // Load c of the lane; a lane past HEAD_DIM rereads the row's last load
  // (its q is zero, its accumulator is dropped), so loads need no branch.
  uint col[LOADS];
  [[unroll]] for (uint c = 0u; c < LOADS; ++c) col[c] = kvh * (HEAD_DIM / VEC) + min(c * team + lane, HEAD_DIM / VEC - 1u);
  // The K and V words of the step at `base` (entries past the end reread
  // the last one).
#define LOAD_STEP(base, kw, vw)                                           \
  [[unroll]] for (uint u = 0u; u < TOKENS; ++u) {                         \
    const uint row = min((base) + u * slots + slot, end - 1u) * row_words; \
    [[unroll]] for (uint c = 0u; c < LOADS; ++c) {                        \
      kw[u * LOADS + c] = ks[row + col[c]];                               \
      vw[u * LOADS + c] = vs[row + col[c]];                               \
    }                                                                     \
  }
#if PREFETCH >= 1
  KTYPE kn[TOKENS * LOADS], vn[TOKENS * LOADS];
  LOAD_STEP(begin, kn, vn)
#endif
#if PREFETCH >= 2
  KTYPE kn2[TOKENS * LOADS], vn2[TOKENS * LOADS];
  LOAD_STEP(begin + slots * TOKENS, kn2, vn2)
#endif
#if PREFETCH == 3
  KTYPE kn3[TOKENS * LOADS], vn3[TOKENS * LOADS];
  LOAD_STEP(begin + 2u * slots * TOKENS, kn3, vn3)
#endif
#if LEAN == 1
  LOAD_Q
  // The prefetches of the last steps would reread the chunk's last entry
  // (never used); skipped, so that the tail does not wait on them (a register
  // the merge reuses waits for its load). The branch is uniform.
#define PAST(b) if ((b) < end)
#else
#define PAST(b)
#endif
  // Every invocation runs the same number of steps (barriers in team_sum).
  for (uint base = begin; base < end; base += slots * TOKENS) {
#if PREFETCH == 3
    // Loaded three steps ago; the next two are in flight; load the third.
    const KTYPE kw[TOKENS * LOADS] = kn, vw[TOKENS * LOADS] = vn;
    kn = kn2, vn = vn2;
    kn2 = kn3, vn2 = vn3;
    PAST(base + 3u * slots * TOKENS) { LOAD_STEP(base + 3u * slots * TOKENS, kn3, vn3) }
    const uint qz = base >> 31u;  // 0: base < KV_LEN < 2^31, which the compiler cannot see
#elif PREFETCH == 2
    // This step's words were loaded two steps ago, the next step's one step
    // ago; load the one after now (two steps of loads in flight during the
    // arithmetic).
    const KTYPE kw[TOKENS * LOADS] = kn, vw[TOKENS * LOADS] = vn;
    kn = kn2, vn = vn2;
    PAST(base + 2u * slots * TOKENS) { LOAD_STEP(base + 2u * slots * TOKENS, kn2, vn2) }
#elif PREFETCH == 1
    // This step's words were loaded a step ago; load the next step's now.
    const KTYPE kw[TOKENS * LOADS] = kn, vw[TOKENS * LOADS] = vn;
    PAST(base + slots * TOKENS) { LOAD_STEP(base + slots * TOKENS, kn, vn) }
#else
    KTYPE kw[TOKENS * LOADS], vw[TOKENS * LOADS];
    LOAD_STEP(base, kw, vw)
#endif
    float s[NV];
    [[unroll]] for (uint u = 0u; u < TOKENS; ++u) {
      [[unroll]] for (uint i = 0u; i < QH; ++i) s[u * QH + i] = 0.0;
      [[unroll]] for (uint c = 0u; c < LOADS; ++c) {
        vec4 k[V4];
        widen(kw[u * LOADS + c], k);
        [[unroll]] for (uint i = 0u; i < QH; ++i) {
          [[unroll]] for (uint e = 0u; e < V4; ++e) s[u * QH + i] += dot(QV(i, c, e, u), k[e]);
        }
      }
    }
    float p[NV];
#if REDUCTION == 2
    // Reduce-scatter: at level k the lanes of a pair (offset team >> (k+1))
    // swap halves of their NV >> k sums, each keeping the half its offset
    // bit selects, so NV - 1 shuffles (15 at 16) leave every lane one full
    // score (against 4*16 = 64 for the butterfly at a team of 16); teams
    // wider than NV add plain levels on it. The lane then holds score
    // idx = lane >> shift (shift = log2(team / NV)): token u = idx / QH of
    // head i = idx % QH.
    [[unroll]] for (uint k = 0u; k < NV_LOG; ++k) {
      const uint h = NV >> (k + 1u), o = team >> (k + 1u);
      const bool upper = (lane & o) != 0u;
      [[unroll]] for (uint v = 0u; v < h; ++v) {
        const float send = upper ? s[v] : s[v + h], keep = upper ? s[v + h] : s[v];
        s[v] = keep + subgroupShuffleXor(send, o);
      }
    }
    for (uint o = team >> (NV_LOG + 1u); o > 0u; o >>= 1u) s[0] += subgroupShuffleXor(s[0], o);
    const uint shift = uint(findMSB(team)) - NV_LOG;
    const uint idx = lane >> shift, mine_u = idx / QH, mine_i = idx - mine_u * QH;
    const bool valid = base + mine_u * slots + slot < end;
    // The step's maximum of head mine_i over its tokens (log2(TOKENS)
    // shuffles), then every head's new maximum from the lane holding it.
    float mx = valid ? s[0] : LOWEST;
    for (uint o = QH << shift; o < team; o <<= 1u) mx = max(mx, subgroupShuffleXor(mx, o));
    const uint first = gl_SubgroupInvocationID - lane;  // the team's first lane in its subgroup
    float mine_m = LOWEST;
    [[unroll]] for (uint i = 0u; i < QH; ++i) {
      const float mi = max(m[i], subgroupShuffle(mx, first + (i << shift)));
      if (i == mine_i) mine_m = mi;
      const float corr = exp(m[i] - mi);
      m[i] = mi;
      l[i] *= corr;
      [[unroll]] for (uint d = 0u; d < LD4; ++d) acc[i * LD4 + d] *= corr;
    }
    // One exp per lane; the weights to every lane of the team (NV shuffles).
    const float mine_p = valid ? exp(s[0] - mine_m) : 0.0;
    [[unroll]] for (uint v = 0u; v < NV; ++v) {
      p[v] = subgroupShuffle(mine_p, first + (v << shift));
      l[v % QH] += p[v];
    }
#else
    team_sum(s, lid, slot, lane, team);
    // Online softmax over the step's tokens: one rescale per head.
    [[unroll]] for (uint i = 0u; i < QH; ++i) {
      float mx = m[i];
      [[unroll]] for (uint u = 0u; u < TOKENS; ++u) {
        if (base + u * slots + slot < end) mx = max(mx, s[u * QH + i]);
      }
      const float corr = exp(m[i] - mx);
      m[i] = mx;
      l[i] *= corr;
      [[unroll]] for (uint d = 0u; d < LD4; ++d) acc[i * LD4 + d] *= corr;
      [[unroll]] for (uint u = 0u; u < TOKENS; ++u) {
        p[u * QH + i] = base + u * slots + slot < end ? exp(s[u * QH + i] - mx) : 0.0;
        l[i] += p[u * QH + i];
      }
    }
#endif
#if WIDEN == 1
    [[unroll]] for (uint v = 0u; v < NV; ++v) p[v] *= WSCALE;  // the V words are 2^-112 of their values
#endif
    [[unroll]] for (uint u = 0u; u < TOKENS; ++u) {
      [[unroll]] for (uint c = 0u; c < LOADS; ++c) {
        vec4 x[V4];
        widen(vw[u * LOADS + c], x);
        [[unroll]] for (uint i = 0u; i < QH; ++i) {
          [[unroll]] for (uint e = 0u; e < V4; ++e) acc[i * LD4 + c * V4 + e] += p[u * QH + i] * x[e];
        }
      }
    }
  }

  // Merge the teams, per head: M = max m, L = sum l e^(m - M), A = sum acc e^(m - M).
  // LEAN=0: the head maxima and sums first (two barriers and a serial loop
  // of QH invocations), then the accumulators scaled by their lanes; LEAN=1:
  // the accumulators unscaled, and each summing invocation weighs the teams
  // itself (slots exps each, no extra barrier or serial phase).
  if (lane == 0u) {
    [[unroll]] for (uint i = 0u; i < QH; ++i) team_m[slot * QH + i] = m[i], team_l[slot * QH + i] = l[i];
  }
#if LEAN == 0
  barrier();
  if (lid < QH) {
    float big_m = LOWEST;
    for (uint j = 0u; j < slots; ++j) big_m = max(big_m, team_m[j * QH + lid]);
    float big_l = 0.0;
    for (uint j = 0u; j < slots; ++j) big_l += team_l[j * QH + lid] * exp(team_m[j * QH + lid] - big_m);
    head_m[lid] = big_m, head_l[lid] = big_l;
  }
  barrier();
#endif
  const uint dim4 = HEAD_DIM / 4u;
#if KV_CHUNK > 0
  const uint record = SPLIT_RECORD;  // vec4s per partial
#endif
  // TEAM_HEADS heads a pass (from the host: as many as a shared budget
  // holds), pass k through half k%2 of sh where there are several: one
  // barrier per pass, and the pass's sums spread over the workgroup.
  const uint region = WG_SIZE * LD4;  // vec4s of sh per head
  [[unroll]] for (uint i0 = 0u; i0 < QH; i0 += TEAM_HEADS) {
    const uint half_at = ((i0 / TEAM_HEADS) & 1u) * (TEAM_HEADS * region);
    [[unroll]] for (uint hh = 0u; hh < TEAM_HEADS; ++hh) {
      const uint i = i0 + hh;
#if LEAN == 0
      const float mine = exp(m[i] - head_m[i]);
#else
      const float mine = 1.0;
#endif
      [[unroll]] for (uint c = 0u; c < LOADS; ++c) {
        if (has[c]) {
          const uint at = half_at + hh * region + (slot * HEAD_DIM + (c * team + lane) * VEC) / 4u;
          [[unroll]] for (uint e = 0u; e < V4; ++e) sh[at + e] = acc[i * LD4 + c * V4 + e] * mine;
        }
      }
    }
    barrier();
    for (uint x = lid; x < TEAM_HEADS * dim4; x += WG_SIZE) {
      const uint hh = x / dim4, d = x - hh * dim4, i = i0 + hh;
      vec4 a = vec4(0.0);
#if LEAN == 0
      for (uint j = 0u; j < slots; ++j) a += sh[half_at + hh * region + j * dim4 + d];
      const float big_l = head_l[i];
#else
      float big_m = LOWEST;
      for (uint j = 0u; j < slots; ++j) big_m = max(big_m, team_m[j * QH + i]);
      float big_l = 0.0;
      for (uint j = 0u; j < slots; ++j) {
        const float w = exp(team_m[j * QH + i] - big_m);  // an empty team: l = 0, acc = 0
        big_l += team_l[j * QH + i] * w;
        a += sh[half_at + hh * region + j * dim4 + d] * w;
      }
#endif
#if KV_CHUNK == 0
      a /= big_l;
      const uint o = (h0 + i) * HEAD_DIM + 4u * d;
      outs[o] = a.x, outs[o + 1u] = a.y, outs[o + 2u] = a.z, outs[o + 3u] = a.w;
#else
      const uint at = split_record_at(h0 + i, split);
      partials[at + 1u + d] = a;
#if LEAN == 1
      if (d == 0u) partials[at] = vec4(big_m, big_l, 0.0, 0.0);  // the head's (m, l) record
#endif
#endif
    }
  }
#if KV_CHUNK > 0
  const uint splits = gl_NumWorkGroups.x;
#if LEAN == 0
  if (lid < QH) partials[split_record_at(h0 + lid, split)] = vec4(head_m[lid], head_l[lid], 0.0, 0.0);
#endif
  if (!is_last_workgroup(lid, g, splits)) return;

#if MERGE == 1
  split_merge(lid, h0, QH, splits, WG_SIZE);
#else
  // The last workgroup of the group merges its partials. sh: m then the
  // weights e^(m - M)/L at [i*splits + j], l at QH*MAX_SPLITS + ..., then the
  // vec4 sums of the split groups at 2*QH*MAX_SPLITS.
  for (uint x = lid; x < QH * splits; x += WG_SIZE) {
    const uint i = x / splits, j = x - i * splits;
    const vec4 ml = partials[split_record_at(h0 + i, j)];
    SHF(x) = ml.x, SHF(QH * MAX_SPLITS + x) = ml.y;
  }
  barrier();
  if (lid < QH) {
    float big_m = LOWEST;
    for (uint j = 0u; j < splits; ++j) big_m = max(big_m, SHF(lid * splits + j));
    float big_l = 0.0;
    for (uint j = 0u; j < splits; ++j) big_l += SHF(QH * MAX_SPLITS + lid * splits + j) * exp(SHF(lid * splits + j) - big_m);
    head_m[lid] = big_m, head_l[lid] = big_l;
  }
  barrier();
  for (uint x = lid; x < QH * splits; x += WG_SIZE) {
    const uint i = x / splits;
    SHF(x) = exp(SHF(x) - head_m[i]) / head_l[i];
  }
  barrier();
  // outs: P vec4s; R groups of invocations share the splits (j = r, r+R, ...).
  const uint P = QH * dim4;
  const uint R = P >= WG_SIZE ? 1u : WG_SIZE / P;
  const uint r = lid / P;
  const uint sums = QH * MAX_SPLITS / 2u;  // in vec4s
  if (r < R) {
    for (uint x = lid - r * P; x < P; x += WG_SIZE) {
      const uint i = x / dim4, d = x - i * dim4;
      const uint first = split_record_at(h0 + i, 0u) + 1u + d;
      // Eight splits per round: their loads in flight together.
      vec4 a0 = vec4(0.0), a1 = vec4(0.0);
      for (uint j0 = r; j0 < splits; j0 += 8u * R) {
        [[unroll]] for (uint k = 0u; k < 8u; k += 2u) {
          // Past the last split: reread it, weighted 0 (no branch).
          const uint j = min(j0 + k * R, splits - 1u), j1 = min(j0 + (k + 1u) * R, splits - 1u);
          a0 += partials[first + j * record] * (j0 + k * R < splits ? SHF(i * splits + j) : 0.0);
          a1 += partials[first + j1 * record] * (j0 + (k + 1u) * R < splits ? SHF(i * splits + j1) : 0.0);
        }
      }
      a0 += a1;
      if (R == 1u) {
        const uint o = (h0 + i) * HEAD_DIM + 4u * d;
        outs[o] = a0.x, outs[o + 1u] = a0.y, outs[o + 2u] = a0.z, outs[o + 3u] = a0.w;
      } else {
        sh[sums + r * P + x] = a0;
      }
    }
  }
  if (R > 1u) {
    barrier();
    for (uint x = lid; x < P; x += WG_SIZE) {
      vec4 a = vec4(0.0);
      for (uint k = 0u; k < R; ++k) a += sh[sums + k * P + x];
      const uint i = x / dim4, d = x - i * dim4;
      const uint o = (h0 + i) * HEAD_DIM + 4u * d;
      outs[o] = a.x, outs[o + 1u] = a.y, outs[o + 2u] = a.z, outs[o + 3u] = a.w;
    }
  }
#endif
  if (lid == 0u) counters[g] = 0u;
#endif
}
