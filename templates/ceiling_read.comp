#version 450
#extension GL_EXT_control_flow_attributes : require
// Streaming-read ceiling: every invocation reads ITEMS 16-byte vectors,
// coalesced across the workgroup, and folds them into one word that is
// written only when it equals an impossible value (so reads are not
// eliminated and writes cost nothing).
layout(local_size_x = WG_SIZE) in;
layout(std430, set = 0, binding = 0) readonly buffer Data { uvec4 data[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Sink { uint sink[]; };
layout(push_constant) uniform Params { uint vec4_count; };

void main() {
  const uint base = gl_WorkGroupID.x * (WG_SIZE * ITEMS) + gl_LocalInvocationID.x;
  uvec4 acc = uvec4(0);
  [[unroll]] for (uint i = 0; i < ITEMS; ++i) {
    const uint index = base + i * WG_SIZE;
    if (index < vec4_count) acc ^= data[index];
  }
  const uint folded = acc.x ^ acc.y ^ acc.z ^ acc.w;
  if (folded == 0x9e3779b9u) sink[0] = folded;
}
