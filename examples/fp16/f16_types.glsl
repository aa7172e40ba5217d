// Shared by the fp16 example templates: HVTYPE, VEC (1, 2 or 4) halves as
// one load or store, and for the elementwise ones the type their arithmetic
// runs in, MVTYPE (MS a scalar of it): fp16 with MATH_F16 1, else fp32.
// The including template declares the extensions first:
// GL_EXT_shader_16bit_storage and GL_EXT_shader_explicit_arithmetic_types_float16
// (the implicit widening of f16 loads into fp32 arithmetic, and fp16 math).
#ifndef F16_TYPES_GLSL
#define F16_TYPES_GLSL
#if VEC == 4
#define HVTYPE f16vec4
#define FVTYPE vec4
#elif VEC == 2
#define HVTYPE f16vec2
#define FVTYPE vec2
#elif VEC == 1
#define HVTYPE float16_t
#define FVTYPE float
#else
#error "VEC must be 1, 2 or 4"
#endif

#ifdef MATH_F16
#if MATH_F16
#define MVTYPE HVTYPE
#define MS float16_t
#else
#define MVTYPE FVTYPE
#define MS float
#endif
#endif
#endif
