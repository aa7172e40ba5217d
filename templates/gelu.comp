#version 450
// GELU, elementwise over ROWS*N floats, in one of two forms (FORM, set by the
// kernel, not tuned):
//   FORM 0 (gelu_tanh): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
//     computed as x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3): the
//     same function, and no inf/inf where tanh's exponentials overflow;
//   FORM 1 (gelu_erf): 0.5 x (1 + erf(x / sqrt(2))), erf by Abramowitz and
//     Stegun 7.1.26 (|error| <= 1.5e-7).
// See include/elementwise.glsl for the layout.
// Parameters: WG_SIZE, VEC, EPT, SUBGROUP_SIZE (host only). Buffers: x, y.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint ROWS; uint N; };

#include "vec.glsl"
layout(std430, set = 0, binding = 0) readonly buffer AS { float as_s[]; };
layout(std430, set = 0, binding = 0) readonly buffer AV { VTYPE as_v[]; };
layout(std430, set = 0, binding = 1) writeonly buffer YS { float ys_s[]; };
layout(std430, set = 0, binding = 1) writeonly buffer YV { VTYPE ys_v[]; };

#if FORM == 0
VTYPE op(VTYPE x) {
  const float k = 0.7978845608028654;  // sqrt(2/pi)
  const VTYPE u = k * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}
#elif FORM == 1
VTYPE op(VTYPE x) {
  const VTYPE z = abs(x) * 0.7071067811865476;  // |x| / sqrt(2)
  const VTYPE t = 1.0 / (1.0 + 0.3275911 * z);
  const VTYPE poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const VTYPE erf_abs = 1.0 - poly * exp(-z * z);
  return 0.5 * x * (1.0 + sign(x) * erf_abs);
}
#else
#error "FORM must be 0 (tanh) or 1 (erf)"
#endif

#define INPUTS 1
#include "elementwise.glsl"
