#version 450
// y = a + b over ROWS*N halves, fp16 in and out; the add in fp32 (MATH_F16
// 0) or fp16 (1). Layout and tail: vktune's include/elementwise.glsl.
// Parameters: WG_SIZE, VEC, EPT. Semantics: MATH_F16. Buffers: a, b, y (f16).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

#define INPUTS 2
#include "f16_elementwise.glsl"

VTYPE op(VTYPE a, VTYPE b) { return VTYPE(MVTYPE(a) + MVTYPE(b)); }

#include "elementwise.glsl"
