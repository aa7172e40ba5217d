#version 450
// y = silu(a) * b = a / (1 + exp(-a)) * b over ROWS*N halves (a the gate, b
// the up projection), fp16 in and out; the arithmetic, exp included, in fp32
// (MATH_F16 0) or fp16 (1). Layout and tail: vktune's include/elementwise.glsl.
// Parameters: WG_SIZE, VEC, EPT. Semantics: MATH_F16. Buffers: a, b, y (f16).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

#define INPUTS 2
#include "f16_elementwise.glsl"

VTYPE op(VTYPE a, VTYPE b) {
  const MVTYPE g = MVTYPE(a);
  return VTYPE(g / (MS(1.0) + exp(-g)) * MVTYPE(b));
}

#include "elementwise.glsl"
