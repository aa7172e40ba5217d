#version 450
// A scaled row softmax, y = softmax(scale * x) along each row, in the style
// of a mobile engine's templated shaders: the output tensor at binding 0,
// the input at binding 1, and the tensors' sizes (WHCN, width first) and
// the scale in a std140 uniform block at binding 2, which the host writes
// for each shape, rather than in push constants.
// One workgroup per row (rows along x and y, past 65535 rows); each
// invocation walks the row ITEMS values at a time; a shared-memory tree
// finds the row's max, then its sum of exps.
//
// Parameters (#defines from the spec): WG_SIZE invocations per row (a
// power of two), ITEMS consecutive values per invocation per step.
layout(local_size_x = WG_SIZE) in;

layout(std430, set = 0, binding = 0) writeonly buffer restrict OutBuffer { float t_out[]; };
layout(std430, set = 0, binding = 1) readonly buffer restrict InBuffer { float t_in[]; };
layout(std140, set = 0, binding = 2) uniform restrict Meta {
  ivec4 out_sizes;  // (width = row length, height = rows, channels, batch)
  ivec4 in_sizes;
  float scale;      // the logits' scale, 1 / sqrt(width) in attention
  int in_row_stride;  // values from one input row to the next
} uMeta;

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
  const uint width = uint(uMeta.out_sizes.x);
  const uint row = gl_WorkGroupID.x;
  if (row >= uint(uMeta.out_sizes.y)) return;  // uniform across the workgroup: no barrier is skipped by some only
  const uint in_base = row * uint(uMeta.in_row_stride);
  const uint out_base = row * width;
  const uint first = gl_LocalInvocationID.x * ITEMS;
  const uint stride = WG_SIZE * ITEMS;
  const float scale = uMeta.scale;

  float row_max = uintBitsToFloat(0xff800000u);  // -inf
  for (uint i = first; i < width; i += stride) {
    for (uint j = 0u; j < ITEMS; ++j) {
      if (i + j < width) row_max = max(row_max, scale * t_in[in_base + i + j]);
    }
  }
  row_max = tree_max(row_max);

  float sum = 0.0;
  for (uint i = first; i < width; i += stride) {
    for (uint j = 0u; j < ITEMS; ++j) {
      if (i + j < width) sum += exp(scale * t_in[in_base + i + j] - row_max);
    }
  }
  const float inv = 1.0 / tree_sum(sum);

  for (uint i = first; i < width; i += stride) {
    for (uint j = 0u; j < ITEMS; ++j) {
      if (i + j < width) t_out[out_base + i + j] = exp(scale * t_in[in_base + i + j] - row_max) * inv;
    }
  }
}
