#version 450
// y = W · x for one token (a decode step): W is n rows of k weights stored
// as GGUF Q4_K super-blocks, x holds k floats, y n floats. Written for this
// example from the format's definition (llama.cpp's GGUF), independent of
// vktune's own Q4_K kernels.
//
// A Q4_K super-block holds 256 weights in 144 bytes: d and dmin (fp16),
// 12 bytes of packed 6-bit scales and mins for 8 sub-blocks of 32, then 128
// bytes of 4-bit codes. Weight 64*j + l (l < 32) is the low nibble of code
// byte 32*j + l in sub-block 2*j; weight 64*j + 32 + l its high nibble, in
// sub-block 2*j + 1; its value is d*scale*q - dmin*min.
//
// Each workgroup computes ROWS rows; its invocations share each row's
// super-blocks and sum with a shared-memory tree.
// Parameters: WG_SIZE (a power of two), ROWS.
layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer Weights { uint w[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Sizes { uint n; uint k; };

const uint kBlockWords = 36u;  // 144 bytes

shared float partial[WG_SIZE];

uint block_byte(uint block_word, uint index) {
  return (w[block_word + index / 4u] >> (8u * (index % 4u))) & 0xFFu;
}

// The 6-bit scale and min of sub-block j (0..7) from the 12 packed bytes at byte 4.
void scale_min(uint block_word, uint j, out float scale, out float minimum) {
  if (j < 4u) {
    scale = float(block_byte(block_word, 4u + j) & 63u);
    minimum = float(block_byte(block_word, 8u + j) & 63u);
  } else {
    const uint low = block_byte(block_word, 8u + j);
    scale = float((low & 0x0Fu) | ((block_byte(block_word, 4u + j - 4u) >> 6u) << 4u));
    minimum = float((low >> 4u) | ((block_byte(block_word, 4u + j) >> 6u) << 4u));
  }
}

float block_dot(uint block_word, uint x_base) {
  const vec2 dm = unpackHalf2x16(w[block_word]);
  float sum = 0.0;
  for (uint j = 0u; j < 4u; ++j) {
    float sc_lo, mn_lo, sc_hi, mn_hi;
    scale_min(block_word, 2u * j, sc_lo, mn_lo);
    scale_min(block_word, 2u * j + 1u, sc_hi, mn_hi);
    // Two roundings each, as the reference dequantizes: (d*scale)*q - dmin*min.
    precise const float d_lo = dm.x * sc_lo, m_lo = dm.y * mn_lo;
    precise const float d_hi = dm.x * sc_hi, m_hi = dm.y * mn_hi;
    for (uint l = 0u; l < 32u; ++l) {
      const uint code = block_byte(block_word, 16u + 32u * j + l);
      precise const float lo = d_lo * float(code & 0x0Fu) - m_lo;
      precise const float hi = d_hi * float(code >> 4u) - m_hi;
      sum += lo * x[x_base + 64u * j + l] + hi * x[x_base + 64u * j + 32u + l];
    }
  }
  return sum;
}

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint blocks = k / 256u;
  for (uint r = 0u; r < ROWS; ++r) {
    const uint row = gl_WorkGroupID.x * ROWS + r;
    float sum = 0.0;
    if (row < n) {
      for (uint b = tid; b < blocks; b += WG_SIZE) sum += block_dot((row * blocks + b) * kBlockWords, 256u * b);
    }
    partial[tid] = sum;
    barrier();
    for (uint s = WG_SIZE / 2u; s > 0u; s >>= 1u) {
      if (tid < s) partial[tid] += partial[tid + s];
      barrier();
    }
    if (tid == 0u && row < n) y[row] = partial[0];
    barrier();
  }
}
