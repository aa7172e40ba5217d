#version 450
// A read-only probe for issue 41: how fast can a grid that walks rows of W
// read them, by row length and row count? n rows of v 16-byte vectors; a
// workgroup takes ROWS_PER_WG rows with THREADS_PER_ROW invocations each,
// every invocation reading every THREADS_PER_ROW-th vector of its row,
// UNROLL loads in flight; y[row] is the XOR of the row's words (low 16
// bits, exact as a float), so every config computes the same output.
// A product with few long rows (ffn_down: 4096 rows of 14336 weights) is
// split along K by reading it as more, shorter rows: (4096, 735) is Q6_K's
// 11,760-byte rows, (28672, 105) the same bytes split seven ways.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer W { uvec4 w[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; uint v; };

shared uint partial[ROWS_PER_WG * THREADS_PER_ROW];

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint group = tid / THREADS_PER_ROW, lane = tid % THREADS_PER_ROW;
  const uint row = gl_WorkGroupID.x * ROWS_PER_WG + group;
  uvec4 acc = uvec4(0u);
  if (row < n) {
    const uint base = row * v;
    for (uint i = lane; i < v; i += THREADS_PER_ROW * UNROLL) {
      uvec4 got[UNROLL];
      for (uint u = 0u; u < UNROLL; ++u) {
        const uint at = i + u * THREADS_PER_ROW;
        got[u] = at < v ? w[base + at] : uvec4(0u);
      }
      for (uint u = 0u; u < UNROLL; ++u) acc ^= got[u];
    }
  }
  partial[tid] = acc.x ^ acc.y ^ acc.z ^ acc.w;
  barrier();
  for (uint s = THREADS_PER_ROW / 2u; s > 0u; s >>= 1u) {
    if (lane < s) partial[tid] ^= partial[tid + s];
    barrier();
  }
  if (lane == 0u && row < n) y[row] = float(partial[tid] & 0xFFFFu);
}
