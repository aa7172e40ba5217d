#version 450
// Row softmax written from scratch in the conventions of a PyTorch Vulkan
// backend shader: the output tensor at binding 0, the input at binding 1,
// and a push-constant block of sizes in WHCN order (width first).
// One workgroup per row; each invocation walks the row ITEMS values at a
// time; a shared-memory tree finds the row's max, then its sum of exps.
//
// Parameters: the workgroup size as a specialization constant, as the
// backend's shaders take it (local_size_x_id = 0; vktune sets constant 0 to
// the spec's WG_SIZE, a power of two), and ITEMS as a #define.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
#define WG_SIZE gl_WorkGroupSize.x

layout(std430, set = 0, binding = 0) writeonly buffer restrict OutBuffer { float t_out[]; };
layout(std430, set = 0, binding = 1) readonly buffer restrict InBuffer { float t_in[]; };
layout(push_constant) uniform restrict Block {
  uvec4 sizes;  // (width = row length, height = rows, channels, batch)
} uBlock;

shared float partial[WG_SIZE];

float tree_max(float value) {
  const uint tid = gl_LocalInvocationID.x;
  partial[tid] = value;
  barrier();
  for (uint s = WG_SIZE / 2u; s > 0u; s >>= 1u) {
    if (tid < s) partial[tid] = max(partial[tid], partial[tid + s]);
    barrier();
  }
  const float result = partial[0];
  barrier();  // partial[] is reused by the next reduction
  return result;
}

float tree_sum(float value) {
  const uint tid = gl_LocalInvocationID.x;
  partial[tid] = value;
  barrier();
  for (uint s = WG_SIZE / 2u; s > 0u; s >>= 1u) {
    if (tid < s) partial[tid] += partial[tid + s];
    barrier();
  }
  const float result = partial[0];
  barrier();
  return result;
}

void main() {
  const uint width = uBlock.sizes.x;
  const uint row = gl_WorkGroupID.x;
  const uint base = row * width;
  const uint first = gl_LocalInvocationID.x * ITEMS;
  const uint stride = WG_SIZE * ITEMS;

  float row_max = uintBitsToFloat(0xff800000u);  // -inf
  for (uint i = first; i < width; i += stride) {
    for (uint j = 0u; j < ITEMS; ++j) {
      if (i + j < width) row_max = max(row_max, t_in[base + i + j]);
    }
  }
  row_max = tree_max(row_max);

  float sum = 0.0;
  for (uint i = first; i < width; i += stride) {
    for (uint j = 0u; j < ITEMS; ++j) {
      if (i + j < width) sum += exp(t_in[base + i + j] - row_max);
    }
  }
  const float inv = 1.0 / tree_sum(sum);

  for (uint i = first; i < width; i += stride) {
    for (uint j = 0u; j < ITEMS; ++j) {
      if (i + j < width) t_out[base + i + j] = exp(t_in[base + i + j] - row_max) * inv;
    }
  }
}
