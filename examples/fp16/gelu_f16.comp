#version 450
// GELU, tanh form, over ROWS*N halves, fp16 in and out:
//   y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
// computed as x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3) (the same
// function, with no inf/inf where tanh's exponentials overflow), in fp32
// (MATH_F16 0) or fp16 (1). Layout and tail: vktune's include/elementwise.glsl.
// Parameters: WG_SIZE, VEC, EPT. Semantics: MATH_F16. Buffers: x, y (f16).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

#define INPUTS 1
#include "f16_elementwise.glsl"

VTYPE op(VTYPE a) {
  const MVTYPE x = MVTYPE(a);
  const MVTYPE u = MS(0.7978845608028654) * (x + MS(0.044715) * x * x * x);  // sqrt(2/pi) (x + 0.044715 x^3)
  return VTYPE(x / (MS(1.0) + exp(MS(-2.0) * u)));
}

#include "elementwise.glsl"
