// Shared by the fp16 elementwise templates (add, swiglu, gelu): the
// workgroup size, the push constants ROWS and N, and the f16 buffers that
// vktune's include/elementwise.glsl reads, each as halves and as VEC-wide
// vectors: a [, b], y at bindings 0 [, 1], INPUTS. The includer then defines
// `VTYPE op(VTYPE a[, VTYPE b])` and includes elementwise.glsl.
// Before including: the extensions (see f16_types.glsl), INPUTS, WG_SIZE, VEC,
// MATH_F16.
#include "f16_types.glsl"

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Shape { uint ROWS; uint N; };

#define VTYPE HVTYPE
layout(std430, set = 0, binding = 0) readonly buffer AS { float16_t as_s[]; };
layout(std430, set = 0, binding = 0) readonly buffer AV { VTYPE as_v[]; };
#if INPUTS == 2
layout(std430, set = 0, binding = 1) readonly buffer BS { float16_t bs_s[]; };
layout(std430, set = 0, binding = 1) readonly buffer BV { VTYPE bs_v[]; };
#endif
layout(std430, set = 0, binding = INPUTS) writeonly buffer YS { float16_t ys_s[]; };
layout(std430, set = 0, binding = INPUTS) writeonly buffer YV { VTYPE ys_v[]; };
