#version 450
// Rotary position embedding over TOKENS tokens of HEADS heads of HEAD_DIM
// halves, fp16 in and out, the angles and rotations in fp32. Token t turns by
// p = pos[t]; pair i = (x[2i], x[2i+1]) (the "normal" layout) turns by
// theta = p * FREQ_BASE^(-2i/HEAD_DIM):
//   (a, b) -> (a cos(theta) - b sin(theta), a sin(theta) + b cos(theta)).
// theta (up to ~8000 radians) is reduced to [-pi, pi] first, with 2*pi split
// into a part exact in fp32 and the rest, so the result does not rest on how
// a driver's sin and cos treat large arguments.
//
// A workgroup takes HEADS_PER_WG heads of one token (gl_WorkGroupID.x: head
// group, .y: token); its items are (pair vector j, head h), VEC consecutive
// pairs each (one f16vec2 or f16vec4), j fastest so that consecutive lanes
// read consecutive memory; invocations walk them in steps of WG_SIZE. Each
// item evaluates its VEC angles itself (no sharing across heads).
//
// Parameters: WG_SIZE, HEADS_PER_WG, VEC (pairs per item: 1 or 2).
// Semantics: FREQ_BASE. Buffers: x (f16), pos (i32), y (f16). Push constants:
// TOKENS, HEADS, HEAD_DIM.
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint TOKENS; uint HEADS; uint HEAD_DIM; };

#if VEC == 1
#define PTYPE f16vec2
#define FTYPE vec2
#elif VEC == 2
#define PTYPE f16vec4
#define FTYPE vec4
#else
#error "VEC must be 1 or 2"
#endif

layout(std430, set = 0, binding = 0) readonly buffer X { PTYPE x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Pos { int pos[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { PTYPE y[]; };

// (cos, sin) of p * FREQ_BASE^(-2i/HEAD_DIM), through theta - 2*pi*round(theta / (2*pi)).
vec2 rotation(float p, uint i) {
  const float theta = p * exp2(float(i) * (-2.0 * log2(float(FREQ_BASE)) / float(HEAD_DIM)));
  const float n = round(theta * 0.15915494309189535);
  const float r = (theta - n * 6.28125) - n * 1.9353071795864769e-3;
  return vec2(cos(r), sin(r));
}

void main() {
  const uint t = gl_WorkGroupID.y;
  const uint pv = HEAD_DIM / 2u / VEC;  // pair vectors per head
  const uint first_head = gl_WorkGroupID.x * HEADS_PER_WG;
  const float p = float(pos[t]);
  for (uint k = gl_LocalInvocationID.x; k < pv * HEADS_PER_WG; k += WG_SIZE) {
    const uint j = k % pv;
    const uint h = first_head + k / pv;
    if (h >= HEADS) break;  // later items only have higher heads
    const uint at = (t * HEADS + h) * pv + j;
    const FTYPE v = FTYPE(x[at]);
    FTYPE out_v;
    [[unroll]] for (uint q = 0u; q < VEC; ++q) {
      const vec2 cs = rotation(p, j * VEC + q);
      const float a = v[2u * q], b = v[2u * q + 1u];
      out_v[2u * q] = a * cs.x - b * cs.y;
      out_v[2u * q + 1u] = a * cs.y + b * cs.x;
    }
    y[at] = PTYPE(out_v);
  }
}
