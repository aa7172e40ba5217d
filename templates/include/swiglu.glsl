// SwiGLU of a feed-forward block's gate and up values: silu(gate)·up, with
// silu(v) = v / (1 + e^-v). exp(-gate) overflows to +inf for gate < -88:
// gate / inf = -0, the right limit.
#ifndef VKTUNE_SWIGLU_GLSL
#define VKTUNE_SWIGLU_GLSL

float swiglu(float gate, float up) { return gate / (1.0 + exp(-gate)) * up; }
vec2 swiglu(vec2 gate, vec2 up) { return gate / (1.0 + exp(-gate)) * up; }
vec4 swiglu(vec4 gate, vec4 up) { return gate / (1.0 + exp(-gate)) * up; }

#endif
