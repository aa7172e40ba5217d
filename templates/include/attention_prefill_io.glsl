// What the prefill attention templates share (attention_prefill.comp, the
// CUDA-core walk, and attention_prefill_mma.comp, tensor cores): the shape's
// push constants, the buffers, where a query sits in the cache, which query
// tile a workgroup takes, and the 16-byte cache loads they stage K and V
// with.
//
// The problem: TOKENS query tokens of HEADS heads (q fp32
// [TOKENS][HEADS][HD]) are the last TOKENS entries of an fp16 cache
// [KV_LEN][KV_HEADS][HD] (K and V); query t sits at cache position
// KV_LEN - TOKENS + t and attends to entries 0..that position (causal),
// query head h reading KV head h / (HEADS / KV_HEADS); scale 1/sqrt(HD);
// out fp32 [TOKENS][HEADS][HD].
//
// Includers define HD (head_dim, from the shape) and the local size.
layout(push_constant) uniform Shape { uint TOKENS; uint HEADS; uint KV_HEADS; uint head_dim; uint KV_LEN; };

layout(std430, set = 0, binding = 0) readonly buffer Q { float qs[]; };
layout(std430, set = 0, binding = 1) readonly buffer K { uvec4 ks[]; };
layout(std430, set = 0, binding = 2) readonly buffer V { uvec4 vs[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { float outs[]; };

#define ROW4 (HD / 8u)  // uvec4s (8 halves) of one head's cache row
// q is scaled by 1/sqrt(HD) and by log2(e) as it is loaded, so that the
// softmax's exponentials are exp2 (one instruction) of the scores.
#define LOG2E 1.4426950408889634

// The query tile of this workgroup: the last tiles first. Under the causal
// mask a tile's work grows with its position, so the longest ones start
// while the GPU is full and the short ones fill the tail.
uint query_tile() { return gl_NumWorkGroups.x - 1u - gl_WorkGroupID.x; }

// Cache position of query token t.
uint query_position(uint t) { return KV_LEN - TOKENS + t; }

// uvec4 `col` of cache entry `entry` (clamped to the cache: rows past it
// reread the last, masked by their positions) of KV head kvh, of K or V.
uvec4 cache_load(bool is_v, uint entry, uint kvh, uint col) {
  const uint at = min(entry, KV_LEN - 1u) * (KV_HEADS * ROW4) + kvh * ROW4 + col;
  return is_v ? vs[at] : ks[at];
}
