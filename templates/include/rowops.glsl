// Shared by the row-op templates (rmsnorm, layernorm, softmax, argmax): a
// workgroup of WG_SIZE invocations handles ROWS_PER_WG rows, one team of
// TEAM = WG_SIZE / ROWS_PER_WG consecutive invocations per row.
//
// A row of n floats starting at float index `start` is split into VTYPE
// vectors [vb, ve) (aligned to VEC floats, whatever the row's alignment) and at
// most 2*(VEC-1) edge floats before and after them, which the first lanes
// of the team take one each. The team walks the vectors in steps of
// CHUNK = TEAM * EPT: lane l holds vectors base + e*TEAM + l, e < EPT, in
// cache[] (coalesced, all EPT loads issued before use). When a row fits in one
// step (ve - vb <= CHUNK) the cache still holds it after the first pass and
// later passes read no memory.
//
// Reductions over a team (REDUCTION): 0 = subgroup operation, then one value
// per subgroup through shared memory (TEAM must be a multiple of the subgroup
// size; subgroups are assumed to be consecutive invocations, as on every
// driver we know); 1 = a shared-memory tree over the team.
//
// Before including: WG_SIZE, ROWS_PER_WG, VEC, EPT, REDUCTION; the input row
// buffer at binding 0 declared as `float xs[]` and `VTYPE xv[]`; for
// argmax, ROWOPS_ARGMAX; for a row that is the sum of two inputs (a residual
// add fused into the op), ROWOPS_ADD_INPUT with the second input declared as
// `float bs[]` and `VTYPE bv[]`: load_step and row_float load x + b.
#include "vec.glsl"

#define TEAM (WG_SIZE / ROWS_PER_WG)
#define CHUNK (TEAM * EPT)

#if (WG_SIZE % ROWS_PER_WG) != 0 || (TEAM & (TEAM - 1)) != 0 || TEAM < 8
#error "WG_SIZE / ROWS_PER_WG must be a power of two of at least 8"
#endif

uint team_id;  // the team's row within the workgroup
uint lane;     // invocation within the team
VTYPE cache[EPT];

void rowops_setup() {
  team_id = gl_LocalInvocationID.x / TEAM;
  lane = gl_LocalInvocationID.x % TEAM;
}

struct Span {
  uint start, end;         // floats [start, end)
  uint vb, ve;             // whole vectors [vb, ve)
  uint head_end, tail_begin;  // edge floats [start, head_end) and [tail_begin, end)
};

Span make_span(uint start, uint len) {
  Span s;
  s.start = start;
  s.end = start + len;
  s.vb = (start + (VEC - 1u)) / VEC;
  s.ve = max(s.end / VEC, s.vb);
  s.head_end = min(s.vb * VEC, s.end);
  s.tail_begin = max(s.ve * VEC, s.head_end);
  return s;
}

uint span_vectors(Span s) { return s.ve - s.vb; }

// The edge float lane `l` takes, or NONE.
uint edge_index(Span s, uint l) {
  const uint heads = s.head_end - s.start;
  const uint tails = s.end > s.tail_begin ? s.end - s.tail_begin : 0u;
  if (l < heads) return s.start + l;
  if (l < heads + tails) return s.tail_begin + (l - heads);
  return NONE;
}

// Vector index (relative to s.vb) of cache slot e for the step at `base`.
uint slot_index(uint base, uint e) { return base + e * TEAM + lane; }

// Fills cache[] with the step at `base` of span s; `pad` past the end.
void load_step(Span s, uint base, VTYPE pad) {
  const uint nv = span_vectors(s);
  [[unroll]] for (uint e = 0u; e < EPT; ++e) {
    const uint i = slot_index(base, e);
#ifdef ROWOPS_ADD_INPUT
    cache[e] = i < nv ? xv[s.vb + i] + bv[s.vb + i] : pad;
#else
    cache[e] = i < nv ? xv[s.vb + i] : pad;
#endif
  }
}

// The row's float at index i (an edge float).
float row_float(uint i) {
#ifdef ROWOPS_ADD_INPUT
  return xs[i] + bs[i];
#else
  return xs[i];
#endif
}

// team_sum(v), team_max(v): the reduction over the team, the same value in
// every lane. Every invocation of the workgroup must call them (barriers).
#if REDUCTION == 0
shared float team_f[WG_SIZE];
#define ROWOPS_REDUCE(NAME, SUBGROUP_OP, COMBINE, INIT)                   \
  float NAME(float v) {                                                   \
    v = SUBGROUP_OP(v);                                                   \
    if (subgroupElect()) team_f[gl_SubgroupID] = v;                       \
    barrier();                                                            \
    const uint k = TEAM / gl_SubgroupSize;                                \
    float r = INIT;                                                       \
    for (uint j = 0u; j < k; ++j) r = COMBINE(r, team_f[team_id * k + j]); \
    barrier();                                                            \
    return r;                                                             \
  }
#elif REDUCTION == 1
shared float team_f[WG_SIZE];
#define ROWOPS_REDUCE(NAME, SUBGROUP_OP, COMBINE, INIT)                                  \
  float NAME(float v) {                                                                  \
    const uint t = gl_LocalInvocationID.x;                                               \
    team_f[t] = v;                                                                       \
    barrier();                                                                           \
    [[unroll]] for (uint s = TEAM / 2u; s > 0u; s >>= 1u) {                              \
      if (lane < s) team_f[t] = COMBINE(team_f[t], team_f[t + s]);                       \
      barrier();                                                                         \
    }                                                                                    \
    const float r = team_f[team_id * TEAM];                                              \
    barrier();                                                                           \
    return r;                                                                            \
  }
#else
#error "REDUCTION must be 0 (subgroup) or 1 (shared-memory tree)"
#endif

#define ROWOPS_ADD(a, b) ((a) + (b))
ROWOPS_REDUCE(team_sum, subgroupAdd, ROWOPS_ADD, 0.0)
ROWOPS_REDUCE(team_max, subgroupMax, max, uintBitsToFloat(0xFF800000u))

#ifdef ROWOPS_ARGMAX
// The best (value, index) pair: larger value, then lower index; NaNs never
// win (a pair with index NONE is empty).
bool better(float v, uint i, float bv, uint bi) {
  return !isnan(v) && i != NONE && (bi == NONE || v > bv || (v == bv && i < bi));
}

shared uint team_u[WG_SIZE];
void team_argmax(inout float v, inout uint i) {
#if REDUCTION == 0
  const float m = subgroupMax(i == NONE ? uintBitsToFloat(0xFF800000u) : v);
  const uint c = subgroupMin(i != NONE && v == m ? i : NONE);
  if (subgroupElect()) {
    team_f[gl_SubgroupID] = m;
    team_u[gl_SubgroupID] = c;
  }
  barrier();
  const uint k = TEAM / gl_SubgroupSize;
  float bv = 0.0;
  uint bi = NONE;
  for (uint j = 0u; j < k; ++j) {
    const float ov = team_f[team_id * k + j];
    const uint oi = team_u[team_id * k + j];
    if (better(ov, oi, bv, bi)) {
      bv = ov;
      bi = oi;
    }
  }
  barrier();
#else
  const uint t = gl_LocalInvocationID.x;
  team_f[t] = v;
  team_u[t] = i;
  barrier();
  [[unroll]] for (uint s = TEAM / 2u; s > 0u; s >>= 1u) {
    if (lane < s && better(team_f[t + s], team_u[t + s], team_f[t], team_u[t])) {
      team_f[t] = team_f[t + s];
      team_u[t] = team_u[t + s];
    }
    barrier();
  }
  const float bv = team_f[team_id * TEAM];
  const uint bi = team_u[team_id * TEAM];
  barrier();
#endif
  v = bv;
  i = bi;
}
#endif
