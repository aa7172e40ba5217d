#version 450
// y = scale · (W · x) for one token, W stored as GGUF IQ4_NL blocks: written
// for this example in the conventions quantized-inference engines use for
// their own shaders (a reduction chosen by an #ifdef switch, a float push
// constant, the dequantization table in the shader), from the format's
// definition; independent of vktune's own kernels.
//
// An IQ4_NL block holds 32 weights in 18 bytes: d (fp16), then 16 bytes of
// 4-bit codes. Weight j (j < 16) is the low nibble of code byte j, weight
// j + 16 its high nibble; its value is d times the code's entry in a fixed
// non-linear table of 16 int8 levels. Blocks are 2-byte aligned only, so
// the shader reads bytes out of 32-bit words.
//
// Each workgroup computes ROWS rows; its invocations share a row's blocks.
// Parameters: WG_SIZE (a power of two), ROWS, USE_SUBGROUP_ADD (an #ifdef:
// subgroupAdd, then shared memory across subgroups; else a shared tree).
#ifdef USE_SUBGROUP_ADD
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer Weights { uint w[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { float y[]; };
// n rows of k weights; y is scaled by `scale` (a float the spec pushes as
// an expression of the shape).
layout(push_constant) uniform Params { uint n; uint k; float scale; };

// The format's 16 levels.
const float kLevels[16] = float[16](-127.0, -104.0, -83.0, -65.0, -49.0, -35.0, -22.0, -10.0,
                                    1.0, 13.0, 25.0, 38.0, 53.0, 69.0, 89.0, 113.0);

shared float partial[WG_SIZE];

uint weight_byte(uint byte_index) { return (w[byte_index / 4u] >> (8u * (byte_index % 4u))) & 0xFFu; }

float block_dot(uint block, uint x_base) {
  const uint first = 18u * block;
  const float d = unpackHalf2x16(weight_byte(first) | (weight_byte(first + 1u) << 8u)).x;
  float sum = 0.0;
  for (uint j = 0u; j < 16u; ++j) {
    const uint code = weight_byte(first + 2u + j);
    // d * level rounds once, as the reference dequantizes.
    precise const float lo = d * kLevels[code & 0x0Fu];
    precise const float hi = d * kLevels[code >> 4u];
    sum += lo * x[x_base + j] + hi * x[x_base + 16u + j];
  }
  return sum;
}

float workgroup_sum(float v) {
  const uint tid = gl_LocalInvocationID.x;
#ifdef USE_SUBGROUP_ADD
  v = subgroupAdd(v);
  if (gl_SubgroupInvocationID == 0u) partial[gl_SubgroupID] = v;
  barrier();
  float total = 0.0;
  if (tid == 0u) {
    for (uint s = 0u; s < gl_NumSubgroups; ++s) total += partial[s];
  }
  barrier();
  return total;
#else
  partial[tid] = v;
  barrier();
  for (uint s = WG_SIZE / 2u; s > 0u; s >>= 1u) {
    if (tid < s) partial[tid] += partial[tid + s];
    barrier();
  }
  const float total = partial[0];
  barrier();
  return total;
#endif
}

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint blocks = k / 32u;
  for (uint r = 0u; r < ROWS; ++r) {
    const uint row = gl_WorkGroupID.x * ROWS + r;
    float sum = 0.0;
    if (row < n) {
      for (uint b = tid; b < blocks; b += WG_SIZE) sum += block_dot(row * blocks + b, 32u * b);
    }
    const float total = workgroup_sum(sum);
    if (tid == 0u && row < n) y[row] = scale * total;
  }
}
