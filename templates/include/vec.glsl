// VTYPE: VEC (1, 2 or 4) consecutive floats as one load or store, and the
// horizontal sum and max of one. Shared by the row-op and elementwise
// templates.
#ifndef VKTUNE_VEC_GLSL
#define VKTUNE_VEC_GLSL
#if VEC == 4
#define VTYPE vec4
#elif VEC == 2
#define VTYPE vec2
#elif VEC == 1
#define VTYPE float
#else
#error "VEC must be 1, 2 or 4"
#endif

const uint NONE = 0xFFFFFFFFu;

float hsum(VTYPE v) { return dot(v, VTYPE(1.0)); }

float hmax(VTYPE v) {
#if VEC == 4
  return max(max(v.x, v.y), max(v.z, v.w));
#elif VEC == 2
  return max(v.x, v.y);
#else
  return v;
#endif
}

// Component k of v (k < VEC).
float comp(VTYPE v, uint k) {
#if VEC == 1
  return v;
#else
  return v[k];
#endif
}

// VEC consecutive floats from float index `at` of a buffer declared twice, as
// floats (S) and as VTYPE (V): one vector load when `at` is aligned, else
// VEC scalar loads. (Only the chosen branch of ?: is evaluated.)
#if VEC == 4
#define LOAD_ANY(S, V, at) (((at) % 4u) == 0u ? V[(at) / 4u] : vec4(S[at], S[(at) + 1u], S[(at) + 2u], S[(at) + 3u]))
#elif VEC == 2
#define LOAD_ANY(S, V, at) (((at) % 2u) == 0u ? V[(at) / 2u] : vec2(S[at], S[(at) + 1u]))
#else
#define LOAD_ANY(S, V, at) S[at]
#endif
#endif
