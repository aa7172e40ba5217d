#version 450
#extension GL_EXT_control_flow_attributes : require
// fp32 FMA ceiling: CHAINS independent multiply-add chains per invocation,
// ITERATIONS deep, so the pipelines stay full; the result is written only
// when it equals an impossible value.
layout(local_size_x = WG_SIZE) in;
layout(std430, set = 0, binding = 0) writeonly buffer Sink { float sink[]; };
layout(push_constant) uniform Params { float seed; };

void main() {
  float a[CHAINS];
  [[unroll]] for (int c = 0; c < CHAINS; ++c) a[c] = seed + float(gl_GlobalInvocationID.x + c);
  const float m = 0.999f, k = 0.0001f;
  for (int i = 0; i < ITERATIONS; ++i) {
    [[unroll]] for (int c = 0; c < CHAINS; ++c) a[c] = fma(a[c], m, k);
  }
  float total = 0.0f;
  [[unroll]] for (int c = 0; c < CHAINS; ++c) total += a[c];
  if (total == -1234.5f) sink[0] = total;
}
