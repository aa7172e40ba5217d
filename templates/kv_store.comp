#version 450
// KV-cache store: TOKENS rows of ROW fp32 values (the new tokens' k or v,
// kv_heads*head_dim values each) converted to fp16 and written into the
// cache's rows at their positions (one int32 per token); the cache is
// KV_LEN rows of ROW fp16 values, the layout attention_decode reads.
// Workgroups: x over a row in chunks of WG_SIZE*VEC*EPT values, y over the
// tokens. Every other cache row is left as it was.
// Parameters: WG_SIZE; VEC, fp16 values per store (2 = one uint, 4 = uvec2,
// 8 = uvec4; ROW % VEC == 0); EPT, stores per invocation, WG_SIZE apart.
// Buffers: src (fp32), positions (int32), cache (fp16).
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint TOKENS; uint ROW; uint KV_LEN; };

#if VEC == 2
layout(std430, set = 0, binding = 0) readonly buffer Src { vec2 src[]; };
#define STYPE uint
STYPE converted(uint i) { return packHalf2x16(src[i]); }
#elif VEC == 4
layout(std430, set = 0, binding = 0) readonly buffer Src { vec4 src[]; };
#define STYPE uvec2
STYPE converted(uint i) {
  const vec4 v = src[i];
  return uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw));
}
#elif VEC == 8
layout(std430, set = 0, binding = 0) readonly buffer Src { vec4 src[]; };
#define STYPE uvec4
STYPE converted(uint i) {
  const vec4 a = src[2u * i], b = src[2u * i + 1u];
  return uvec4(packHalf2x16(a.xy), packHalf2x16(a.zw), packHalf2x16(b.xy), packHalf2x16(b.zw));
}
#else
#error VEC must be 2, 4 or 8
#endif
layout(std430, set = 0, binding = 1) readonly buffer Positions { int positions[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Cache { STYPE cache[]; };

void main() {
  const uint token = gl_WorkGroupID.y;
  const uint per_row = ROW / VEC;
  const uint first = gl_WorkGroupID.x * (WG_SIZE * EPT) + gl_LocalInvocationID.x;
  const uint row = uint(positions[token]);
  [[unroll]] for (uint e = 0u; e < EPT; ++e) {
    const uint i = first + e * WG_SIZE;
    if (i < per_row) cache[row * per_row + i] = converted(token * per_row + i);
  }
}
