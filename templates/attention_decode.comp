#version 450
// Decode attention, as reference/ops.hpp `attention` defines it: one query
// token of HEADS heads against a KV cache of KV_LEN tokens of KV_HEADS heads
// (HEADS a multiple of KV_HEADS; head h reads KV head h / (HEADS/KV_HEADS)),
// HEAD_DIM values per head:
//   s[t] = dot(q_h, k[t]) / sqrt(HEAD_DIM), p = softmax(s), out_h = sum_t p[t] v[t].
// The single query sees every cache entry (causal over the cache). K and V
// are fp16, [KV_LEN][KV_HEADS][HEAD_DIM], read as packed 32-bit words and
// widened with unpackHalf2x16 (no 16-bit storage feature needed); q and out
// are fp32.
//
// Workgroup (gl_WorkGroupID.x: split s, .y: head h) walks the KV tokens
// [s*KV_CHUNK, min((s+1)*KV_CHUNK, KV_LEN)); KV_CHUNK 0 = the whole cache (one
// workgroup per head). The split count is gl_NumWorkGroups.x =
// ceil(KV_LEN / KV_CHUNK), at most MAX_SPLITS.
// A team of TEAM lanes takes one token at a time (SLOTS = WG_SIZE/TEAM
// tokens in flight): lane l holds dims (c*TEAM + l)*VEC .. +VEC for
// c < HEAD_DIM/(TEAM*VEC) <= CMAX, of q in registers, and keeps an online
// softmax (running max m, sum l, accumulator) for its slot. The team's dot
// product is summed by REDUCTION: 0 = a subgroupShuffleXor butterfly (TEAM
// no larger than the subgroup), 1 = a shared-memory tree. At the end the slots are
// merged through shared memory.
//
// KV_CHUNK > 0: there is one dispatch, so the splits are merged in it: each
// workgroup writes (m, l, acc[HEAD_DIM]) to the scratch buffer, then bumps
// the head's counter; the workgroup that sees splits-1 (the last to
// finish) merges all the partials into out and resets the counter to 0 for
// the next dispatch. Partials are `coherent` and fenced with
// memoryBarrierBuffer() before the counter is bumped and after it is read.
//
// Parameters: WG_SIZE, TEAM, VEC, KV_CHUNK, REDUCTION. Buffers: q, k, v,
// scratch (MAX_HEADS counters, then MAX_SPLITS partials of HEAD_DIM+2 floats
// per head), out. Semantics: MAX_HEADS, MAX_SPLITS.
// Push constants: HEADS, KV_HEADS, HEAD_DIM, KV_LEN.
#extension GL_EXT_control_flow_attributes : require
#if REDUCTION == 0
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint HEADS; uint KV_HEADS; uint HEAD_DIM; uint KV_LEN; };

layout(std430, set = 0, binding = 0) readonly buffer Q { float qs[]; };
#if VEC == 2
#define KTYPE uint
#elif VEC == 4
#define KTYPE uvec2
#elif VEC == 8
#define KTYPE uvec4
#else
#error "VEC must be 2, 4 or 8"
#endif
layout(std430, set = 0, binding = 1) readonly buffer K { KTYPE ks[]; };
layout(std430, set = 0, binding = 2) readonly buffer V { KTYPE vs[]; };
layout(std430, set = 0, binding = 3) coherent buffer Scratch { uint counters[MAX_HEADS]; float partials[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { float outs[]; };

#define SLOTS (WG_SIZE / TEAM)
#define CMAX 4
#define LOWEST (-3.0e38)  // finite: empty slots merge to 0 without NaN

// VEC fp16 values widened, component i of KTYPE w as floats f[0..VEC).
void widen(KTYPE w, out float f[VEC]) {
#if VEC == 2
  const vec2 a = unpackHalf2x16(w);
  f[0] = a.x, f[1] = a.y;
#else
  [[unroll]] for (uint i = 0u; i < VEC / 2; ++i) {
    const vec2 a = unpackHalf2x16(w[i]);
    f[2u * i] = a.x, f[2u * i + 1u] = a.y;
  }
#endif
}

#if REDUCTION == 1
shared float red[WG_SIZE];
#endif

// The sum of v over the team, in every lane of it (called by all invocations).
float team_sum(float v, uint lane) {
#if REDUCTION == 0
  [[unroll]] for (uint o = TEAM / 2u; o > 0u; o >>= 1u) v += subgroupShuffleXor(v, o);
  return v;
#else
  const uint i = gl_LocalInvocationID.x;
  red[i] = v;
  barrier();
  [[unroll]] for (uint s = TEAM / 2u; s > 0u; s >>= 1u) {
    if (lane < s) red[i] += red[i + s];
    barrier();
  }
  const float r = red[i - lane];
  barrier();
  return r;
#endif
}

shared float slot_m[SLOTS], slot_l[SLOTS];
shared float merge[WG_SIZE * VEC];
shared bool last_split;

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint slot = lid / TEAM, lane = lid % TEAM;
  const uint h = gl_WorkGroupID.y, split = gl_WorkGroupID.x;
  const uint kvh = h / (HEADS / KV_HEADS);
  const uint nc = HEAD_DIM / (TEAM * VEC);
#if KV_CHUNK == 0
  const uint begin = 0u, end = KV_LEN;
#else
  const uint begin = min(split * KV_CHUNK, KV_LEN), end = min(begin + KV_CHUNK, KV_LEN);
#endif
  const float scale = inversesqrt(float(HEAD_DIM));

  float q[CMAX * VEC], acc[CMAX * VEC];
  [[unroll]] for (uint c = 0u; c < CMAX; ++c) {
    [[unroll]] for (uint i = 0u; i < VEC; ++i) {
      q[c * VEC + i] = c < nc ? qs[h * HEAD_DIM + (c * TEAM + lane) * VEC + i] * scale : 0.0;
      acc[c * VEC + i] = 0.0;
    }
  }
  float m = LOWEST, l = 0.0;

  // Every invocation runs the same number of steps (barriers in team_sum).
  for (uint base = begin; base < end; base += SLOTS) {
    const uint t = base + slot;
    const bool valid = t < end;
    const uint row = (min(t, KV_LEN - 1u) * KV_HEADS + kvh) * (HEAD_DIM / VEC);
    float dot = 0.0;
    [[unroll]] for (uint c = 0u; c < CMAX; ++c) {
      if (c < nc) {
        float k[VEC];
        widen(ks[row + c * TEAM + lane], k);
        [[unroll]] for (uint i = 0u; i < VEC; ++i) dot += q[c * VEC + i] * k[i];
      }
    }
    const float s = team_sum(dot, lane);
    if (valid) {
      const float m_new = max(m, s);
      const float corr = exp(m - m_new), p = exp(s - m_new);
      l = l * corr + p;
      m = m_new;
      [[unroll]] for (uint c = 0u; c < CMAX; ++c) {
        if (c < nc) {
          float v[VEC];
          widen(vs[row + c * TEAM + lane], v);
          [[unroll]] for (uint i = 0u; i < VEC; ++i) acc[c * VEC + i] = acc[c * VEC + i] * corr + p * v[i];
        }
      }
    }
  }

  // Merge the slots: M = max m, L = sum l e^(m - M), A = sum acc e^(m - M).
  if (lane == 0u) slot_m[slot] = m, slot_l[slot] = l;
  barrier();
  float big_m = LOWEST;
  for (uint j = 0u; j < SLOTS; ++j) big_m = max(big_m, slot_m[j]);
  float big_l = 0.0;
  for (uint j = 0u; j < SLOTS; ++j) big_l += slot_l[j] * exp(slot_m[j] - big_m);
  const float mine = exp(m - big_m);
  const uint span = TEAM * VEC;  // dims of one chunk c
  const uint part = (h * MAX_SPLITS + split) * (HEAD_DIM + 2u);
  [[unroll]] for (uint c = 0u; c < CMAX; ++c) {
    if (c >= nc) break;  // uniform: nc comes from the push constants
    [[unroll]] for (uint i = 0u; i < VEC; ++i) merge[slot * span + lane * VEC + i] = acc[c * VEC + i] * mine;
    barrier();
    for (uint d = lid; d < span; d += WG_SIZE) {
      float a = 0.0;
      for (uint j = 0u; j < SLOTS; ++j) a += merge[j * span + d];
#if KV_CHUNK == 0
      outs[h * HEAD_DIM + c * span + d] = a / big_l;
#else
      partials[part + 2u + c * span + d] = a;
#endif
    }
    barrier();
  }
#if KV_CHUNK > 0
  const uint splits = gl_NumWorkGroups.x;
  if (lid == 0u) partials[part] = big_m, partials[part + 1u] = big_l;
  memoryBarrierBuffer();
  barrier();
  if (lid == 0u) last_split = atomicAdd(counters[h], 1u) == splits - 1u;
  barrier();
  if (!last_split) return;
  memoryBarrierBuffer();
  // The last workgroup of head h merges the head's partials.
  const uint first = h * MAX_SPLITS * (HEAD_DIM + 2u);
  float gm = LOWEST;
  for (uint j = 0u; j < splits; ++j) gm = max(gm, partials[first + j * (HEAD_DIM + 2u)]);
  float gl = 0.0;
  for (uint j = 0u; j < splits; ++j) {
    const uint pj = first + j * (HEAD_DIM + 2u);
    gl += partials[pj + 1u] * exp(partials[pj] - gm);
  }
  for (uint d = lid; d < HEAD_DIM; d += WG_SIZE) {
    float a = 0.0;
    for (uint j = 0u; j < splits; ++j) {
      const uint pj = first + j * (HEAD_DIM + 2u);
      a += partials[pj + 2u + d] * exp(partials[pj] - gm);
    }
    outs[h * HEAD_DIM + d] = a / gl;
  }
  if (lid == 0u) counters[h] = 0u;
#endif
}
