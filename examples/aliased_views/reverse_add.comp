#version 450
// y[i] = x[i] + x[n - 1 - i]: a row added to itself reversed, reading one
// buffer through two views, as engines do where one tensor is read with two
// element types. Binding 0 sees x as vec4 (the forward read, four values a
// load where n is a multiple of 4); binding 1 is the same buffer as float
// (the reversed read, which runs backwards and is no whole vec4). The spec
// declares binding 1 with "alias_of": "x" (examples/aliased_views/reverse_add.json),
// so vktune and the runtime library bind x's buffer at both.
layout(local_size_x = WG_SIZE) in;

layout(std430, set = 0, binding = 0) readonly buffer XVec4 { vec4 x4[]; };
layout(std430, set = 0, binding = 1) readonly buffer XFloat { float x1[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuffer { float y[]; };
layout(push_constant) uniform Shape { uint n; };

void main() {
  // PER_INVOCATION consecutive values each: 4 (one vec4 load, n a multiple
  // of 4 then) or 1 (a float read of the vec4 view's lane).
  const uint first = gl_GlobalInvocationID.x * PER_INVOCATION;
  if (first >= n) return;
#if PER_INVOCATION == 4
  const vec4 forward = x4[first / 4];
  for (uint k = 0; k < 4; ++k) y[first + k] = forward[k] + x1[n - 1 - (first + k)];
#else
  // A lane of the vec4 view while a whole vec4 lies inside x (its array
  // holds n / 4 of them); the last n % 4 values through the float view.
  float forward;
  if (first / 4 < n / 4) {
    forward = x4[first / 4][first % 4];
  } else {
    forward = x1[first];
  }
  y[first] = forward + x1[n - 1 - first];
#endif
}
