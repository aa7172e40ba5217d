#version 450
// Decode attention, the streaming path (STREAM=1) of attention_decode: the
// same problem, buffers and push constants as attention_decode.comp (see
// there for the definition), laid out so that the loads of a whole chunk of
// the cache are in flight at once rather than walked step by step.
//
// Workgroup (gl_WorkGroupID.x: split s, .y: head group g) takes the QH query
// heads of one KV head over the KV_CHUNK cache entries of split s. A team of
// T = HD/(8*LOADS) lanes takes an entry: lane l holds the 16-byte words
// c*T + l (c < LOADS) of the entry's K and V rows, and the matching dims of
// the QH queries (pre-scaled) and accumulators. A round is ENTRIES entries
// per team (TEAMS*ENTRIES per workgroup, consecutive entries on consecutive
// teams, so a subgroup's load reads whole rows): every K and V load of a
// round is issued before any arithmetic (2*ENTRIES*LOADS loads per lane in
// flight), then the QH*ENTRIES dot products are summed over the team by a
// subgroup butterfly (every lane ends with every score), then each head's
// online softmax takes the round's entries at once (one rescale a round)
// and the V words are accumulated. PREFETCH=1 issues the next round's loads
// before this round's arithmetic (twice the load registers). No barrier and
// no shared memory until the end: each team is an independent walker with
// its own (m, l, acc) per head.
//
// The end: the teams' (m, l, acc) are merged through shared memory, HP
// heads a pass; with one split that is the output. With several, the
// workgroup writes per head its partial (m, l, acc[HD]) to scratch; then
// (MERGE_STAGE=0) the last workgroup of its head group to finish merges the
// splits and resets the counter (include/attention_split_merge.glsl), or
// (MERGE_STAGE=1) a second dispatch, attention_merge.comp, merges them.
//
// Parameters: WG_SIZE, LOADS, QH, ENTRIES, KV_CHUNK (> 0, a whole number of
// rounds), PREFETCH (0 or 1), MERGE_STAGE (0 when not defined, or 1).
// Semantics: HD (the shape's head_dim, so the team is a constant),
// MAX_HEADS, MAX_SPLITS (the scratch layout of attention_split_merge.glsl), HP
// (heads per pass of the team merge, dividing QH, chosen by the host).
// Push constants: HEADS, KV_HEADS, HEAD_DIM (= HD), KV_LEN.
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint HEADS; uint KV_HEADS; uint HEAD_DIM; uint KV_LEN; };

layout(std430, set = 0, binding = 0) readonly buffer Q { float qs[]; };
layout(std430, set = 0, binding = 1) readonly buffer K { uvec4 ks[]; };
layout(std430, set = 0, binding = 2) readonly buffer V { uvec4 vs[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { float outs[]; };

#define ROW (HD / 8)                 // 16-byte words of a K or V row
#define T (ROW / LOADS)              // lanes of a team
#define TEAMS (WG_SIZE / T)
#define ROUND (TEAMS * ENTRIES)      // entries per workgroup round
#define ROUNDS (KV_CHUNK / ROUND)
#define D4 (HD / 4)                  // vec4s of a head's row
#define LOWEST (-3.0e38)             // finite: an empty team merges with weight 0, no NaN
#ifndef MERGE_STAGE
#define MERGE_STAGE 0                // 1: the splits are merged by a stage of their own
#endif

#if ROUNDS * ROUND != KV_CHUNK || ROUNDS < 1
#error "KV_CHUNK must be a whole number of rounds of TEAMS*ENTRIES entries"
#endif
#if T * LOADS * 8 != HD
#error "HD must be a multiple of 8*LOADS"
#endif
#if PREFETCH != 0 && PREFETCH != 1
#error "PREFETCH must be 0 or 1"
#endif

// The team merge: per team and head (m, l), then HP heads of accumulators.
shared float team_m[TEAMS * QH], team_l[TEAMS * QH];
shared vec4 sh[TEAMS * HP * D4 > 2 * WG_SIZE ? TEAMS * HP * D4 : 2 * WG_SIZE];

// The scratch layout, the last-split election and the split merge.
#define SPLIT_MERGE_MB 8u
#define SPLIT_MERGE_PUT(i, v) sh[i] = (v)
#define SPLIT_MERGE_GET(i) sh[i]
#include "attention_split_merge.glsl"

struct Round {
  uvec4 k[ENTRIES * LOADS], v[ENTRIES * LOADS];
};

// The lane's K and V words of round r (zeros past the cache: their scores
// are dropped by `valid`).
void load_round(out Round w, uint first, uint kvh, uint team, uint lane, uint r) {
  [[unroll]] for (uint e = 0u; e < ENTRIES; ++e) {
    const uint t = first + r * ROUND + e * TEAMS + team;
    const uint row = (t * KV_HEADS + kvh) * ROW + lane;
    [[unroll]] for (uint c = 0u; c < LOADS; ++c) {
      w.k[e * LOADS + c] = t < KV_LEN ? ks[row + c * T] : uvec4(0u);
      w.v[e * LOADS + c] = t < KV_LEN ? vs[row + c * T] : uvec4(0u);
    }
  }
}

void widen(uvec4 w, out vec4 lo, out vec4 hi) {
  lo = vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y));
  hi = vec4(unpackHalf2x16(w.z), unpackHalf2x16(w.w));
}

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint team = lid / T, lane = lid % T;
  const uint split = gl_WorkGroupID.x, g = gl_WorkGroupID.y, splits = gl_NumWorkGroups.x;
  const uint h0 = g * QH;
  const uint kvh = h0 / (HEADS / KV_HEADS);
  const uint first = split * KV_CHUNK;

  // The first round's loads go out before q's, so they do not queue behind it.
  Round cur;
  load_round(cur, first, kvh, team, lane, 0u);

  const float scale = inversesqrt(float(HD));
  vec4 q[QH * LOADS * 2], acc[QH * LOADS * 2];
  float m[QH], l[QH];
  [[unroll]] for (uint i = 0u; i < QH; ++i) {
    m[i] = LOWEST, l[i] = 0.0;
    [[unroll]] for (uint c = 0u; c < LOADS; ++c) {
      const uint at = (h0 + i) * HD + (c * T + lane) * 8u;
      [[unroll]] for (uint hh = 0u; hh < 2u; ++hh) {
        const uint x = at + 4u * hh;
        q[(i * LOADS + c) * 2u + hh] = vec4(qs[x], qs[x + 1u], qs[x + 2u], qs[x + 3u]) * scale;
        acc[(i * LOADS + c) * 2u + hh] = vec4(0.0);
      }
    }
  }

  [[unroll]] for (uint r = 0u; r < ROUNDS; ++r) {
#if PREFETCH == 1
    Round next;
    if (r + 1u < ROUNDS) load_round(next, first, kvh, team, lane, r + 1u);
#else
    if (r > 0u) load_round(cur, first, kvh, team, lane, r);
#endif
    // Partial dot products of the lane's dims, then summed over the team.
    float s[ENTRIES * QH];
    [[unroll]] for (uint e = 0u; e < ENTRIES; ++e) {
      vec4 kf[LOADS * 2];
      [[unroll]] for (uint c = 0u; c < LOADS; ++c) widen(cur.k[e * LOADS + c], kf[2u * c], kf[2u * c + 1u]);
      [[unroll]] for (uint i = 0u; i < QH; ++i) {
        float d = 0.0;
        [[unroll]] for (uint x = 0u; x < LOADS * 2u; ++x) d += dot(kf[x], q[i * LOADS * 2u + x]);
        s[e * QH + i] = d;
      }
    }
    [[unroll]] for (uint o = T / 2u; o > 0u; o >>= 1u) {
      [[unroll]] for (uint x = 0u; x < ENTRIES * QH; ++x) s[x] += subgroupShuffleXor(s[x], o);
    }
    // The round's entries past the cache take no weight.
    bool valid[ENTRIES];
    [[unroll]] for (uint e = 0u; e < ENTRIES; ++e) valid[e] = first + r * ROUND + e * TEAMS + team < KV_LEN;
    float p[ENTRIES * QH];
    [[unroll]] for (uint i = 0u; i < QH; ++i) {
      float mx = m[i];
      [[unroll]] for (uint e = 0u; e < ENTRIES; ++e) mx = valid[e] ? max(mx, s[e * QH + i]) : mx;
      const float corr = exp(m[i] - mx);
      m[i] = mx;
      float sum = 0.0;
      [[unroll]] for (uint e = 0u; e < ENTRIES; ++e) {
        p[e * QH + i] = valid[e] ? exp(s[e * QH + i] - mx) : 0.0;
        sum += p[e * QH + i];
      }
      l[i] = l[i] * corr + sum;
      [[unroll]] for (uint x = 0u; x < LOADS * 2u; ++x) acc[i * LOADS * 2u + x] *= corr;
    }
    [[unroll]] for (uint e = 0u; e < ENTRIES; ++e) {
      [[unroll]] for (uint c = 0u; c < LOADS; ++c) {
        vec4 lo, hi;
        widen(cur.v[e * LOADS + c], lo, hi);
        [[unroll]] for (uint i = 0u; i < QH; ++i) {
          acc[(i * LOADS + c) * 2u] += p[e * QH + i] * lo;
          acc[(i * LOADS + c) * 2u + 1u] += p[e * QH + i] * hi;
        }
      }
    }
#if PREFETCH == 1
    if (r + 1u < ROUNDS) cur = next;
#endif
  }

  // The team merge, HP heads a pass. A team's (m, l) is the same in each
  // of its lanes; lane 0 writes it.
  if (lane == 0u) {
    [[unroll]] for (uint i = 0u; i < QH; ++i) team_m[team * QH + i] = m[i], team_l[team * QH + i] = l[i];
  }
  const uint record_of_head0 = split_record_at(h0, split);
  [[unroll]] for (uint i0 = 0u; i0 < QH; i0 += HP) {
    if (i0 > 0u) barrier();  // the previous pass has read sh
    [[unroll]] for (uint hh = 0u; hh < HP; ++hh) {
      [[unroll]] for (uint c = 0u; c < LOADS; ++c) {
        const uint at = (team * HP + hh) * D4 + (c * T + lane) * 2u;
        sh[at] = acc[((i0 + hh) * LOADS + c) * 2u];
        sh[at + 1u] = acc[((i0 + hh) * LOADS + c) * 2u + 1u];
      }
    }
    barrier();
    for (uint x = lid; x < HP * D4; x += WG_SIZE) {
      const uint hh = x / D4, d = x - hh * D4, i = i0 + hh;
      float big_m = LOWEST;
      for (uint j = 0u; j < TEAMS; ++j) big_m = max(big_m, team_m[j * QH + i]);
      float big_l = 0.0;
      vec4 a = vec4(0.0);
      for (uint j = 0u; j < TEAMS; ++j) {
        const float w = exp(team_m[j * QH + i] - big_m);  // an empty team: l = 0, acc = 0
        big_l += team_l[j * QH + i] * w;
        a += sh[(j * HP + hh) * D4 + d] * w;
      }
      if (splits == 1u) {
        a /= big_l;
        const uint o = (h0 + i) * HD + 4u * d;
        outs[o] = a.x, outs[o + 1u] = a.y, outs[o + 2u] = a.z, outs[o + 3u] = a.w;
      } else {
        const uint at = record_of_head0 + i * MAX_SPLITS * SPLIT_RECORD;
        partials[at + 1u + d] = a;
        if (d == 0u) partials[at] = vec4(big_m, big_l, 0.0, 0.0);
      }
    }
  }
  if (splits == 1u) return;
#if MERGE_STAGE == 0
  // The split merge, by the last workgroup of the head group to finish.
  if (!is_last_workgroup(lid, g, splits)) return;
  split_merge(lid, h0, QH, splits, WG_SIZE);
  if (lid == 0u) counters[g] = 0u;
#endif
}
