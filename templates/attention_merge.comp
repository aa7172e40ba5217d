#version 450
// attention_decode's split merge as a stage of its own (STREAM=1,
// MERGE_STAGE=1): the streaming dispatch before it wrote every split's
// records to the scratch buffer (include/attention_split_merge.glsl's
// layout) and a barrier separates the two dispatches, so no counter elects a
// last workgroup: workgroup h merges head h's ceil(KV_LEN/KV_CHUNK) splits
// into out. With one split the streaming pass wrote out itself.
//
// Parameters: MERGE_WG (invocations), KV_CHUNK (the streaming pass's).
// Semantics: HD (head_dim), MAX_HEADS, MAX_SPLITS (the scratch layout).
// Buffers as attention_decode.comp (q, k, v unused). Push constants: HEADS,
// KV_HEADS, HEAD_DIM (= HD), KV_LEN.
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = MERGE_WG, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint HEADS; uint KV_HEADS; uint HEAD_DIM; uint KV_LEN; };

layout(std430, set = 0, binding = 4) writeonly buffer Out { float outs[]; };

#define LOWEST (-3.0e38)
shared vec4 sh[2 * MERGE_WG];
#define SPLIT_MERGE_MB 8u
#define SPLIT_MERGE_PUT(i, v) sh[i] = (v)
#define SPLIT_MERGE_GET(i) sh[i]
#include "attention_split_merge.glsl"

void main() {
  const uint splits = (KV_LEN + KV_CHUNK - 1u) / KV_CHUNK;
  if (splits < 2u) return;
  split_merge(gl_LocalInvocationID.x, gl_WorkGroupID.x, 1u, splits, MERGE_WG);
}
