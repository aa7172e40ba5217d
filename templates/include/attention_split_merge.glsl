// attention_decode's split merge, shared by its streaming and tensor-core
// templates and by the separate merge stage (attention_merge.comp).
//
// A split of the cache (KV_CHUNK entries) leaves per head a record of
// SPLIT_RECORD vec4s in the scratch buffer (binding 3): (m, l, -, -), then
// the unnormalised accumulator of HD/4 vec4s; the records of head h are
// MAX_SPLITS apart, at (h*MAX_SPLITS + split)*SPLIT_RECORD. Ahead of them,
// MAX_HEADS counters: merged in the same dispatch, each workgroup bumps its
// head group's counter after writing its records, and the last one to finish
// (is_last_workgroup, include/last_workgroup.glsl) merges them and resets
// the counter; merged in a stage of its own, the counters are not used.
//
// The includer defines HD, MAX_HEADS, MAX_SPLITS, LOWEST (a finite -inf),
// SPLIT_MERGE_MB (splits a round of the merge, their loads in flight
// together), optionally SPLIT_MERGE_REREAD (1: a round's loads past the last
// split reread it, weighted 0, with no branch; 0, the default: they are
// skipped. attention_decode's LEAN=0 walk rereads: on an H100 it merged
// 4-45% slower with the branch at 32,8,128,4096 and 8192, the more splits
// the more; LEAN=1 and the other templates have always branched) and
// SPLIT_MERGE_PUT(i, v) / SPLIT_MERGE_GET(i): vec4 i of at
// least 2*threads vec4s of shared memory (the merge's R groups, see below);
// it declares `outs` (binding 4, fp32 [heads][HD]).
// Needs GL_EXT_control_flow_attributes.

#ifndef SPLIT_MERGE_REREAD
#define SPLIT_MERGE_REREAD 0
#endif

layout(std430, set = 0, binding = 3) coherent buffer Scratch { uint counters[MAX_HEADS]; vec4 partials[]; };

#define SPLIT_D4 (HD / 4u)          // vec4s of a head's row
#define SPLIT_RECORD (1u + SPLIT_D4)  // vec4s of a split's record per head

uint split_record_at(uint head, uint split) { return (head * MAX_SPLITS + split) * SPLIT_RECORD; }

#define LAST_WORKGROUP_COUNTERS counters
#include "last_workgroup.glsl"

// Merges the `splits` records of heads h0 .. h0+nheads-1 into outs with
// `threads` invocations (lid < threads): an invocation takes an output vec4
// (head i, vec4 d) over the splits j = r, r+R, ... (R groups of invocations
// share the splits), SPLIT_MERGE_MB splits a round with their loads in
// flight, merged online; the R groups' results are combined through shared
// memory (vec4 sums, then (m, l) records). Call in uniform control flow.
void split_merge(uint lid, uint h0, uint nheads, uint splits, uint threads) {
  const uint P = nheads * SPLIT_D4;
  const uint R = P >= threads ? 1u : threads / P;
  const uint r = lid / P;
  if (r < R) {
    for (uint x = lid - r * P; x < P; x += threads) {
      const uint i = x / SPLIT_D4, d = x - i * SPLIT_D4;
      const uint first = split_record_at(h0 + i, 0u);
      float bm = LOWEST, bl = 0.0;
      vec4 a = vec4(0.0);
      for (uint j0 = r; j0 < splits; j0 += SPLIT_MERGE_MB * R) {
        vec4 ml[SPLIT_MERGE_MB], pa[SPLIT_MERGE_MB];
        [[unroll]] for (uint k = 0u; k < SPLIT_MERGE_MB; ++k) {
#if SPLIT_MERGE_REREAD
          // Past the last split: reread it (no branch), weighted 0 below.
          const uint j = min(j0 + k * R, splits - 1u);
          ml[k] = partials[first + j * SPLIT_RECORD];
          pa[k] = partials[first + j * SPLIT_RECORD + 1u + d];
#else
          ml[k] = vec4(LOWEST, 0.0, 0.0, 0.0), pa[k] = vec4(0.0);
          const uint j = j0 + k * R;
          if (j < splits) {
            ml[k] = partials[first + j * SPLIT_RECORD];
            pa[k] = partials[first + j * SPLIT_RECORD + 1u + d];
          }
#endif
        }
        float nm = bm;  // a reread repeats a real split's m
        [[unroll]] for (uint k = 0u; k < SPLIT_MERGE_MB; ++k) nm = max(nm, ml[k].x);
        const float corr = exp(bm - nm);
        bl *= corr, a *= corr;
        [[unroll]] for (uint k = 0u; k < SPLIT_MERGE_MB; ++k) {
#if SPLIT_MERGE_REREAD
          const float w = j0 + k * R < splits ? exp(ml[k].x - nm) : 0.0;
#else
          const float w = exp(ml[k].x - nm);  // a split not loaded: (LOWEST, 0) and acc 0
#endif
          bl += ml[k].y * w;
          a += pa[k] * w;
        }
        bm = nm;
      }
      if (R == 1u) {
        a /= bl;
        const uint o = (h0 + i) * HD + 4u * d;
        outs[o] = a.x, outs[o + 1u] = a.y, outs[o + 2u] = a.z, outs[o + 3u] = a.w;
      } else {
        SPLIT_MERGE_PUT(r * P + x, a);  // R*P <= threads
        SPLIT_MERGE_PUT(threads + r * P + x, vec4(bm, bl, 0.0, 0.0));
      }
    }
  }
  if (R > 1u) {
    barrier();
    for (uint x = lid; x < P; x += threads) {
      float big_m = LOWEST;
      for (uint k = 0u; k < R; ++k) big_m = max(big_m, SPLIT_MERGE_GET(threads + k * P + x).x);
      float big_l = 0.0;
      vec4 a = vec4(0.0);
      for (uint k = 0u; k < R; ++k) {
        const vec4 ml = SPLIT_MERGE_GET(threads + k * P + x);
        const float w = exp(ml.x - big_m);
        big_l += ml.y * w;
        a += SPLIT_MERGE_GET(k * P + x) * w;
      }
      a /= big_l;
      const uint i = x / SPLIT_D4, d = x - i * SPLIT_D4;
      const uint o = (h0 + i) * HD + 4u * d;
      outs[o] = a.x, outs[o + 1u] = a.y, outs[o + 2u] = a.z, outs[o + 3u] = a.w;
    }
  }
}
