#version 450
// y = rmsnorm(x + r) * g over rows, fused: the residual add and the norm in
// one dispatch, written for this example in the convention of engines that
// describe every tensor to the shader by its four extents and four strides
// (in elements) plus an offset, all as push constants: 36 words (144
// bytes), past the 128 every device offers, so the spec holds it to the
// device's maxPushConstantsSize (legality rule push_constants.limit).
//
// One workgroup per row; its invocations walk the row, then reduce the sum
// of squares in shared memory. Parameter: WG_SIZE (a power of two).
layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer R { float r[]; };
layout(std430, set = 0, binding = 2) readonly buffer G { float g[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { float y[]; };

// Per tensor: extents ne (innermost first), strides nb in elements.
layout(push_constant) uniform Params {
  uint x_ne0, x_ne1, x_ne2, x_ne3, x_nb0, x_nb1, x_nb2, x_nb3;
  uint r_ne0, r_ne1, r_ne2, r_ne3, r_nb0, r_nb1, r_nb2, r_nb3;
  uint g_ne0, g_nb0;  // a vector: its extent and stride
  uint y_ne0, y_ne1, y_ne2, y_ne3, y_nb0, y_nb1, y_nb2, y_nb3;
  uint x_offset, r_offset, y_offset;
  float eps;
};

shared float partial[WG_SIZE];

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint row = gl_WorkGroupID.x;
  if (row >= x_ne1 * x_ne2 * x_ne3) return;  // whole workgroups leave together
  const uint i1 = row % x_ne1, i2 = (row / x_ne1) % x_ne2, i3 = row / (x_ne1 * x_ne2);
  const uint xb = x_offset + i1 * x_nb1 + i2 * x_nb2 + i3 * x_nb3;
  const uint rb = r_offset + (i1 % r_ne1) * r_nb1 + (i2 % r_ne2) * r_nb2 + (i3 % r_ne3) * r_nb3;
  const uint yb = y_offset + i1 * y_nb1 + i2 * y_nb2 + i3 * y_nb3;
  float squares = 0.0;
  for (uint i = tid; i < x_ne0; i += WG_SIZE) {
    const float s = x[xb + i * x_nb0] + r[rb + (i % r_ne0) * r_nb0];
    squares += s * s;
  }
  partial[tid] = squares;
  barrier();
  for (uint s = WG_SIZE / 2u; s > 0u; s >>= 1u) {
    if (tid < s) partial[tid] += partial[tid + s];
    barrier();
  }
  const float scale = inversesqrt(partial[0] / float(x_ne0) + eps);
  for (uint i = tid; i < y_ne0; i += WG_SIZE) {
    const float s = x[xb + i * x_nb0] + r[rb + (i % r_ne0) * r_nb0];
    y[yb + i * y_nb0] = s * scale * g[(i % g_ne0) * g_nb0];
  }
}
