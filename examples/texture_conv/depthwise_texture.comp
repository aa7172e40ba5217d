#version 450
// A 3x3 depthwise convolution (stride 1, zero padding 1) with a bias and
// ReLU6, over tensors kept in images the way a mobile engine keeps them:
// channels packed four to a texel. A C x H x W tensor is a 3-D image of
// W x H x ceil(C / 4) texels; texel (x, y, s) holds channels 4s .. 4s + 3
// at row y, column x, in RGBA, the channels past C zero.
//
// The input is read through a sampler (a combined image sampler: nearest,
// clamped), the output written as a storage image; weights and bias are
// storage buffers of C * 9 and C floats. One invocation computes one
// output texel: four channels at one pixel.
//
// Tuned: the workgroup's footprint (WG_X x WG_Y pixels), and how texels are
// read: texelFetch at integer coordinates, or (SAMPLE_CENTERS) texture() at
// each texel's centre in normalized coordinates, which with nearest
// filtering reads the same texel.

layout(local_size_x = WG_X, local_size_y = WG_Y, local_size_z = 1) in;

layout(set = 0, binding = 0) uniform sampler3D uInput;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image3D uOutput;
layout(set = 0, binding = 2) readonly buffer Weights { float kernel3x3[]; };  // [c][ky][kx]
layout(set = 0, binding = 3) readonly buffer Bias { float bias[]; };          // [c]

// The shape: channels, height, width.
layout(push_constant) uniform Shape { uint C; uint H; uint W; } shape;

vec4 read_texel(ivec3 at) {
#ifdef SAMPLE_CENTERS
  const vec3 size = vec3(shape.W, shape.H, (shape.C + 3u) / 4u);
  return textureLod(uInput, (vec3(at) + 0.5) / size, 0.0);
#else
  return texelFetch(uInput, at, 0);
#endif
}

// Channel `c`'s tap (ky, kx), or 0 past the last channel (so that padding stays 0).
float tap(uint c, int ky, int kx) {
  return c < shape.C ? kernel3x3[c * 9u + uint(ky * 3 + kx)] : 0.0;
}

void main() {
  const ivec3 at = ivec3(gl_GlobalInvocationID.xy, gl_WorkGroupID.z);
  if (at.x >= int(shape.W) || at.y >= int(shape.H)) return;
  const uint c0 = uint(at.z) * 4u;

  vec4 sum = vec4(c0 < shape.C ? bias[c0] : 0.0, c0 + 1u < shape.C ? bias[c0 + 1u] : 0.0,
                  c0 + 2u < shape.C ? bias[c0 + 2u] : 0.0, c0 + 3u < shape.C ? bias[c0 + 3u] : 0.0);
  for (int ky = 0; ky < 3; ++ky) {
    const int y = at.y + ky - 1;
    if (y < 0 || y >= int(shape.H)) continue;  // zero padding
    for (int kx = 0; kx < 3; ++kx) {
      const int x = at.x + kx - 1;
      if (x < 0 || x >= int(shape.W)) continue;
      const vec4 k = vec4(tap(c0, ky, kx), tap(c0 + 1u, ky, kx), tap(c0 + 2u, ky, kx), tap(c0 + 3u, ky, kx));
      sum += k * read_texel(ivec3(x, y, at.z));
    }
  }
  imageStore(uOutput, at, clamp(sum, 0.0, 6.0));
}
