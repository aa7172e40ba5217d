#version 450
// Prefill attention on CUDA cores: the MMA=0 path of attention_prefill (the
// problem is in include/attention_prefill_io.glsl), and the one every
// Vulkan device with subgroup shuffles runs.
//
// A workgroup takes ROWS = WG_SIZE/TEAM consecutive query tokens of one
// head (gl_WorkGroupID.y); a team of TEAM lanes takes a query, each lane
// HD/TEAM of its dims, with q (pre-scaled) and the accumulator in
// registers. The cache is walked in blocks of BC entries up to the tile's
// last position, each block staged in shared memory as fp16, so that the
// tile's queries read K and V from there: the cache is read from memory
// once per tile, not once per query. A team takes EB entries at a time: EB
// partial dot products summed across the team by a shuffle butterfly, then
// one online-softmax update (new max, rescale) for the EB of them. Entries
// past a query's position are masked rather than skipped: the walk is the
// same for the whole tile, so every lane of a subgroup shuffles together.
//
// Parameters: WG_SIZE, TEAM, BC (the others of the space are pinned and
// unused here). Semantics: HD (head_dim, from the shape).
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
#include "attention_prefill_io.glsl"

#define ROWS (WG_SIZE / TEAM)  // queries per workgroup
#define DPL (HD / TEAM)        // dims per lane
#define HW (HD / 2u)           // 32-bit words (two halves) of a staged row
#define EB 4u                  // entries per softmax update
#define LOWEST (-3.0e38)

#if HD % (2 * TEAM) != 0 || BC % 4 != 0 || WG_SIZE % TEAM != 0
#error "HD must be a multiple of 2*TEAM, BC of 4, WG_SIZE of TEAM"
#endif

shared uint ksh[BC * HW], vsh[BC * HW];

void main() {
  const uint lid = gl_LocalInvocationID.x, team = lid / TEAM, tl = lid % TEAM;
  const uint h = gl_WorkGroupID.y, kvh = h / (HEADS / KV_HEADS);
  const uint t0 = query_tile() * ROWS;
  const uint t = t0 + team, tq = min(t, TOKENS - 1u);
  const uint pos = query_position(tq);
  const uint last = query_position(min(t0 + ROWS - 1u, TOKENS - 1u));
  const uint blocks = last / BC + 1u;

  const float scale = inversesqrt(float(HD)) * LOG2E;
  float q[DPL], o[DPL];
  [[unroll]] for (uint d = 0u; d < DPL; ++d) {
    q[d] = qs[(tq * HEADS + h) * HD + tl * DPL + d] * scale;
    o[d] = 0.0;
  }
  // The running max starts at a finite lowest value: a block's first
  // update always meets entry 0 (every query sees it), so m is a score
  // from then on, and masked scores give exp2(LOWEST - m) = 0.
  float m = LOWEST, l = 0.0;
  for (uint b = 0u; b < blocks; ++b) {
    const uint e0 = b * BC;
    barrier();
    for (uint u = lid; u < BC * ROW4; u += WG_SIZE) {
      const uint row = u / ROW4, col = u - row * ROW4;
      const uvec4 kw = cache_load(false, e0 + row, kvh, col), vw = cache_load(true, e0 + row, kvh, col);
      [[unroll]] for (uint w = 0u; w < 4u; ++w) {
        ksh[row * HW + col * 4u + w] = kw[w];
        vsh[row * HW + col * 4u + w] = vw[w];
      }
    }
    barrier();
    const uint n = min(BC, last + 1u - e0);  // the tile's entries in this block
    for (uint e = 0u; e < n; e += EB) {
      float s[EB];
      [[unroll]] for (uint j = 0u; j < EB; ++j) {
        const uint at = (e + j) * HW + tl * (DPL / 2u);
        float acc = 0.0;
        [[unroll]] for (uint w = 0u; w < DPL / 2u; ++w) {
          const vec2 kv = unpackHalf2x16(ksh[at + w]);
          acc += q[2u * w] * kv.x + q[2u * w + 1u] * kv.y;
        }
        s[j] = acc;
      }
      [[unroll]] for (uint lanes = 1u; lanes < TEAM; lanes *= 2u) {
        [[unroll]] for (uint j = 0u; j < EB; ++j) s[j] += subgroupShuffleXor(s[j], lanes);
      }
      // Entries past the query (also those past n and past the cache,
      // whose positions are beyond every query's) are masked.
      float mx = m;
      [[unroll]] for (uint j = 0u; j < EB; ++j) {
        if (e0 + e + j > pos) s[j] = LOWEST;
        mx = max(mx, s[j]);
      }
      const float alpha = exp2(m - mx);
      m = mx;
      l *= alpha;
      [[unroll]] for (uint d = 0u; d < DPL; ++d) o[d] *= alpha;
      [[unroll]] for (uint j = 0u; j < EB; ++j) {
        const float p = exp2(s[j] - m);
        l += p;
        const uint at = (e + j) * HW + tl * (DPL / 2u);
        [[unroll]] for (uint w = 0u; w < DPL / 2u; ++w) {
          const vec2 vv = unpackHalf2x16(vsh[at + w]);
          o[2u * w] += p * vv.x;
          o[2u * w + 1u] += p * vv.y;
        }
      }
    }
  }
  if (t < TOKENS) {
    const float inv = 1.0 / l;
    [[unroll]] for (uint d = 0u; d < DPL; ++d) outs[(t * HEADS + h) * HD + tl * DPL + d] = o[d] * inv;
  }
}
