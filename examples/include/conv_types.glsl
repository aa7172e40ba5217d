// Shared by MobileNet V2's convolution templates (mobilenet_pointwise/,
// mobilenet_stem/, mobilenet_depthwise/; the spec loader finds an include in
// the include/ folder beside the spec's folder when it is not beside the
// template): the element types of their buffers and of their arithmetic, so
// that one template serves the fp32 specs and the fp16 ones.
//   F16       storage: 0 fp32 buffers (the default, so a spec that does not
//             name it compiles as before), 1 fp16 buffers
//   MATH_F16  arithmetic (the accumulators, and the shared-memory tiles the
//             inner loops read): 0 fp32 (the default), 1 fp16 (needs F16 1)
// It gives SFLOAT and SVEC4 (storage), AFLOAT and AVEC4 (arithmetic), and,
// where the template defines VEC (1 or 4), SVTYPE and AVTYPE: VEC of each.
// A template converts explicitly where the two meet (AFLOAT(x[i]) on a load,
// SFLOAT(acc) on the store): no-ops at fp32, so its SPIR-V is the same.
// Include it after #version and before any declaration: it may declare
// extensions.
#ifndef CONV_TYPES_GLSL
#define CONV_TYPES_GLSL
#ifndef F16
#define F16 0
#endif
#ifndef MATH_F16
#define MATH_F16 0
#endif

#if F16
// Loads, stores and conversions of halves only: the fp32-arithmetic path
// then needs storageBuffer16BitAccess and not shaderFloat16.
#extension GL_EXT_shader_16bit_storage : require
#define SFLOAT float16_t
#define SVEC4 f16vec4
#else
#define SFLOAT float
#define SVEC4 vec4
#endif

#if MATH_F16
#if !F16
#error "MATH_F16 1 needs F16 1: fp16 arithmetic over fp32 buffers is not a path of these templates"
#endif
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define AFLOAT float16_t
#define AVEC4 f16vec4
#else
#define AFLOAT float
#define AVEC4 vec4
#endif

#ifdef VEC
#if VEC == 4
#define SVTYPE SVEC4
#define AVTYPE AVEC4
#elif VEC == 1
#define SVTYPE SFLOAT
#define AVTYPE AFLOAT
#else
#error "VEC must be 1 or 4"
#endif
#endif
#endif
