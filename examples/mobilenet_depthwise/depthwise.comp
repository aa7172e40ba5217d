#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "conv_types.glsl"
// Depthwise 3×3 convolution with bias and ReLU6, as MobileNet V2 runs it:
// NHWC, padding 1 (zeros), stride 1 or 2.
//   y[n][oy][ox][c] = min(max(b[c] + sum over ky, kx of
//                       x[n][oy*S - 1 + ky][ox*S - 1 + kx][c] * w[ky][kx][c], 0), 6)
//
// Storage and arithmetic (#defines from the spec, conv_types.glsl): F16
// (fp32 or fp16 buffers), MATH_F16 (fp32 or fp16 accumulators and staged
// tile). Halves are widened as they are loaded (or staged) and the output is
// rounded once, as it is stored.
//
// Parameters (#defines from the spec):
//   VEC    channels per invocation: 1, or 4 as one vec4 (needs C % 4 == 0)
//   PIX    adjacent output pixels along W per invocation
//   WG_X   invocations per workgroup along channel groups (x)
//   WG_Y   invocations per workgroup along output pixel groups (y)
//   NB     images per workgroup side by side (z): lane z takes images z,
//          z + NB, ...; the batch is not an axis of the grid (a workgroup
//          count is one shape dimension over a divisor), so with NB = 1 a
//          batch is a serial walk of the same workgroups
//   ROWS   output rows per workgroup (halo path only)
//   HALO   0: each invocation reads the input from the buffer, keeping one
//             input row's columns in registers for its PIX outputs;
//          1: the workgroup first stages its input tile with the halo in
//             shared memory, where neighbouring pixels (and rows) share it
// The workgroup grid is (C / (WG_X*VEC), Wo / (WG_Y*PIX), Ho / ROWS), each
// rounded up; every workgroup walks the batch, NB images at a time.
layout(local_size_x = WG_X, local_size_y = WG_Y, local_size_z = NB) in;

layout(std430, set = 0, binding = 0) readonly buffer restrict XBuffer { SVTYPE x[]; };
layout(std430, set = 0, binding = 1) readonly buffer restrict WBuffer { SVTYPE w[]; };  // [3][3][C]
layout(std430, set = 0, binding = 2) readonly buffer restrict BBuffer { SVTYPE b[]; };
layout(std430, set = 0, binding = 3) writeonly buffer restrict YBuffer { SVTYPE y[]; };
// The shape, in the spec's order.
layout(push_constant) uniform restrict Shape { uint N, H, W, C, S, Ho, Wo; } p;

AVTYPE relu6(AVTYPE v) { return clamp(v, AVTYPE(0.0), AVTYPE(6.0)); }

// x at (n, iy, ix) for channel group g, or 0 in the padding.
AVTYPE input_at(uint n, int iy, int ix, uint g, uint groups) {
  AVTYPE v = AVTYPE(0.0);
  // A branch, not a select: a select could read past the buffer.
  if (iy >= 0 && iy < int(p.H) && ix >= 0 && ix < int(p.W)) v = AVTYPE(x[((n * p.H + uint(iy)) * p.W + uint(ix)) * groups + g]);
  return v;
}

#if HALO == 0

// One image's PIX outputs from output column ox0 of row oy. `stride` is a
// literal at both call sites: once inlined, the register window's indices
// are constants and it stays in registers.
void convolve(uint stride, uint n, uint g, uint groups, uint ox0, uint oy) {
  AVTYPE acc[PIX];
  const AVTYPE bias = AVTYPE(b[g]);
  [[unroll]] for (uint i = 0u; i < PIX; ++i) acc[i] = bias;
  const int ix0 = int(ox0 * stride) - 1;
  [[unroll]] for (uint ky = 0u; ky < 3u; ++ky) {
    const int iy = int(oy * stride + ky) - 1;
    if (iy < 0 || iy >= int(p.H)) continue;
    // The input columns the PIX windows cover: (PIX - 1) * stride + 3, sized for stride 2.
    AVTYPE cols[(PIX - 1) * 2 + 3];
    [[unroll]] for (uint j = 0u; j < (PIX - 1u) * stride + 3u; ++j) cols[j] = input_at(n, iy, ix0 + int(j), g, groups);
    [[unroll]] for (uint kx = 0u; kx < 3u; ++kx) {
      const AVTYPE tap = AVTYPE(w[(ky * 3u + kx) * groups + g]);
      [[unroll]] for (uint i = 0u; i < PIX; ++i) acc[i] = fma(cols[i * stride + kx], tap, acc[i]);
    }
  }
  [[unroll]] for (uint i = 0u; i < PIX; ++i) {
    if (ox0 + i < p.Wo) y[((n * p.Ho + oy) * p.Wo + ox0 + i) * groups + g] = SVTYPE(relu6(acc[i]));
  }
}

void main() {
  const uint groups = p.C / VEC;
  const uint g = gl_GlobalInvocationID.x;
  const uint ox0 = gl_GlobalInvocationID.y * PIX;
  const uint oy = gl_WorkGroupID.z;
  if (g >= groups || ox0 >= p.Wo) return;
  for (uint n = gl_LocalInvocationID.z; n < p.N; n += NB) {
    if (p.S == 1u) {
      convolve(1u, n, g, groups, ox0, oy);
    } else {
      convolve(2u, n, g, groups, ox0, oy);
    }
  }
}

#else  // HALO == 1

#define TILE_W (WG_Y * PIX)                  // output columns per workgroup
#define TILE_COLS ((TILE_W - 1) * 2 + 3)     // input columns they read at stride 2 (fewer at 1)
#define TILE_ROWS ((ROWS - 1) * 2 + 3)       // input rows likewise
#define TILE_SIZE (TILE_ROWS * TILE_COLS * WG_X)
// [image lane][row][column][channel group]: the WG_X invocations of one
// pixel read consecutive words, one bank each; in the arithmetic's type
// (widened once as staged).
shared AVTYPE tile[NB * TILE_SIZE];

void main() {
  const uint groups = p.C / VEC;
  const uint stride = p.S;
  const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y, lz = gl_LocalInvocationID.z;
  const uint g = gl_WorkGroupID.x * WG_X + lx;
  const bool has_channel = g < groups;
  const uint ox_base = gl_WorkGroupID.y * TILE_W;
  const uint oy_base = gl_WorkGroupID.z * ROWS;
  const int ix0 = int(ox_base * stride) - 1, iy0 = int(oy_base * stride) - 1;
  const uint rows = (ROWS - 1u) * stride + 3u, cols = (TILE_W - 1u) * stride + 3u;

  AVTYPE taps[9];
  AVTYPE bias = AVTYPE(0.0);
  if (has_channel) {
    bias = AVTYPE(b[g]);
    [[unroll]] for (uint t = 0u; t < 9u; ++t) taps[t] = AVTYPE(w[t * groups + g]);
  }
  // No early return: every invocation reaches the barriers, an image lane
  // past the batch's end included.
  for (uint n0 = 0u; n0 < p.N; n0 += NB) {
    const uint n = n0 + lz;
    const bool has_image = n < p.N;
    for (uint j = ly; j < rows * cols; j += WG_Y) {
      const uint r = j / cols, c = j % cols;
      AVTYPE v = AVTYPE(0.0);
      if (has_channel && has_image) v = input_at(n, iy0 + int(r), ix0 + int(c), g, groups);
      tile[lz * TILE_SIZE + (r * TILE_COLS + c) * WG_X + lx] = v;
    }
    barrier();
    if (has_channel && has_image) {
      for (uint r = 0u; r < ROWS; ++r) {
        const uint oy = oy_base + r;
        if (oy >= p.Ho) break;
        for (uint i = 0u; i < PIX; ++i) {
          const uint column = ly * PIX + i;
          const uint ox = ox_base + column;
          if (ox >= p.Wo) break;
          AVTYPE acc = bias;
          [[unroll]] for (uint ky = 0u; ky < 3u; ++ky) {
            [[unroll]] for (uint kx = 0u; kx < 3u; ++kx) {
              acc = fma(tile[lz * TILE_SIZE + ((r * stride + ky) * TILE_COLS + column * stride + kx) * WG_X + lx],
                        taps[ky * 3u + kx], acc);
            }
          }
          y[((n * p.Ho + oy) * p.Wo + ox) * groups + g] = SVTYPE(relu6(acc));
        }
      }
    }
    barrier();  // the next images overwrite the tile
  }
}

#endif
