#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
#include "conv_types.glsl"
// MobileNet V2's stem: a full 3×3 convolution with bias and ReLU6, NHWC,
// padding 1 (zeros), stride 2 (224×224×3 → 112×112×32). The spec's
// shape keeps S (its rules hold it to 2), so the extents read as in the
// other convolution examples.
//   y[n][oy][ox][co] = min(max(b[co] + sum over ky, kx, ci of
//       x[n][oy*S - 1 + ky][ox*S - 1 + kx][ci] * w[co][ky][kx][ci], 0), 6)
// Weights are OHWI, TFLite's CONV_2D filter layout.
//
// Storage and arithmetic (#defines from the spec, conv_types.glsl): F16
// (fp32 or fp16 buffers), MATH_F16 (fp32 or fp16 accumulators and staged
// tile). Halves are widened as they are loaded (or staged) and the output is
// rounded once, as it is stored.
//
// Parameters (#defines from the spec):
//   COV    output channels per invocation, strided by WG_X so that
//          neighbouring invocations write neighbouring channels
//   PIX    adjacent output pixels along W per invocation
//   WG_X   invocations per workgroup along output channel groups (x)
//   WG_Y   invocations per workgroup along output pixel groups (y)
//   STAGE  0: each invocation reads its input windows from the buffer,
//             one input row's columns at a time in registers;
//          1: the workgroup first stages its three input rows (the patch
//             its outputs read, 4 input channels at a time) in shared
//             memory, where its WG_X channel lanes and WG_Y pixel lanes
//             share them
// The workgroup grid is (CO / (WG_X*COV), Wo / (WG_Y*PIX), Ho), each
// rounded up; every workgroup walks the batch.
layout(local_size_x = WG_X, local_size_y = WG_Y, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer restrict XBuffer { SFLOAT x[]; };  // [N][H][W][CI]
layout(std430, set = 0, binding = 1) readonly buffer restrict WBuffer { SFLOAT w[]; };  // [CO][3][3][CI]
layout(std430, set = 0, binding = 2) readonly buffer restrict BBuffer { SFLOAT b[]; };
layout(std430, set = 0, binding = 3) writeonly buffer restrict YBuffer { SFLOAT y[]; };  // [N][Ho][Wo][CO]
// The shape, in the spec's order.
layout(push_constant) uniform restrict Shape { uint N, H, W, CI, CO, S, Ho, Wo; } p;

// x at (n, iy, ix, ci), or 0 in the padding.
AFLOAT input_at(uint n, int iy, int ix, uint ci) {
  AFLOAT v = AFLOAT(0.0);
  // A branch, not a select: a select could read past the buffer.
  if (iy >= 0 && iy < int(p.H) && ix >= 0 && ix < int(p.W)) v = AFLOAT(x[((n * p.H + uint(iy)) * p.W + uint(ix)) * p.CI + ci]);
  return v;
}

// The bias of each of the invocation's channels; past CO (never written) 0,
// by a branch, not a select, which could read past the buffer.
void start(uint co0, out AFLOAT acc[PIX][COV]) {
  [[unroll]] for (uint j = 0u; j < COV; ++j) {
    const uint co = co0 + j * WG_X;
    AFLOAT bias = AFLOAT(0.0);
    if (co < p.CO) bias = AFLOAT(b[co]);
    [[unroll]] for (uint i = 0u; i < PIX; ++i) acc[i][j] = bias;
  }
}

// Adds tap (ky, kx) of input channel ci, times the PIX windows' inputs
// under it, to each of the invocation's channels.
void accumulate(uint co0, uint ky, uint kx, uint ci, AFLOAT inputs[PIX], inout AFLOAT acc[PIX][COV]) {
  [[unroll]] for (uint j = 0u; j < COV; ++j) {
    const uint co = min(co0 + j * WG_X, p.CO - 1u);  // past CO: a real filter, its output not written
    const AFLOAT tap = AFLOAT(w[((co * 3u + ky) * 3u + kx) * p.CI + ci]);
    [[unroll]] for (uint i = 0u; i < PIX; ++i) acc[i][j] = fma(inputs[i], tap, acc[i][j]);
  }
}

void finish(uint n, uint oy, uint ox0, uint co0, AFLOAT acc[PIX][COV]) {
  [[unroll]] for (uint i = 0u; i < PIX; ++i) {
    if (ox0 + i >= p.Wo) break;
    [[unroll]] for (uint j = 0u; j < COV; ++j) {
      const uint co = co0 + j * WG_X;
      if (co < p.CO) y[((n * p.Ho + oy) * p.Wo + ox0 + i) * p.CO + co] = SFLOAT(clamp(acc[i][j], AFLOAT(0.0), AFLOAT(6.0)));
    }
  }
}

#if STAGE == 0

// `stride` is a literal at the call site: once inlined, the register
// window's indices are constants and it stays in registers.
void convolve(uint stride, uint n, uint co0, uint ox0, uint oy) {
  AFLOAT acc[PIX][COV];
  start(co0, acc);
  const int ix0 = int(ox0 * stride) - 1;
  [[unroll]] for (uint ky = 0u; ky < 3u; ++ky) {
    const int iy = int(oy * stride + ky) - 1;
    if (iy < 0 || iy >= int(p.H)) continue;
    for (uint ci = 0u; ci < p.CI; ++ci) {
      // The input columns the PIX windows cover: (PIX - 1) * stride + 3, sized for stride 2.
      AFLOAT cols[(PIX - 1) * 2 + 3];
      [[unroll]] for (uint c = 0u; c < (PIX - 1u) * stride + 3u; ++c) cols[c] = input_at(n, iy, ix0 + int(c), ci);
      [[unroll]] for (uint kx = 0u; kx < 3u; ++kx) {
        AFLOAT inputs[PIX];
        [[unroll]] for (uint i = 0u; i < PIX; ++i) inputs[i] = cols[i * stride + kx];
        accumulate(co0, ky, kx, ci, inputs, acc);
      }
    }
  }
  finish(n, oy, ox0, co0, acc);
}

void main() {
  const uint co0 = gl_WorkGroupID.x * (WG_X * COV) + gl_LocalInvocationID.x;
  const uint ox0 = gl_GlobalInvocationID.y * PIX;
  const uint oy = gl_WorkGroupID.z;
  if (co0 >= p.CO || ox0 >= p.Wo) return;
  for (uint n = 0u; n < p.N; ++n) convolve(2u, n, co0, ox0, oy);
}

#else  // STAGE == 1

#define TILE_W (WG_Y * PIX)               // output columns per workgroup
#define TILE_COLS ((TILE_W - 1) * 2 + 3)  // input columns they read at stride 2
// [row][column]: 4 input channels per entry, the chunk being staged, in the
// arithmetic's type (widened once as staged).
shared AVEC4 tile[3 * TILE_COLS];

void main() {
  const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
  const uint co0 = gl_WorkGroupID.x * (WG_X * COV) + lx;
  const uint ox_base = gl_WorkGroupID.y * TILE_W;
  const uint ox0 = ox_base + ly * PIX;
  const uint oy = gl_WorkGroupID.z;
  const uint stride = p.S;
  const int ix0 = int(ox_base * stride) - 1, iy0 = int(oy * stride) - 1;
  const uint cols = (TILE_W - 1u) * stride + 3u;
  const bool has_output = co0 < p.CO && ox0 < p.Wo;
  // No early return: every invocation reaches the barriers.
  for (uint n = 0u; n < p.N; ++n) {
    AFLOAT acc[PIX][COV];
    start(co0, acc);
    for (uint c0 = 0u; c0 < p.CI; c0 += 4u) {
      for (uint e = ly * WG_X + lx; e < 3u * cols; e += WG_X * WG_Y) {
        const uint r = e / cols, c = e % cols;
        AVEC4 v = AVEC4(0.0);
        [[unroll]] for (uint k = 0u; k < 4u; ++k) {
          if (c0 + k < p.CI) v[k] = input_at(n, iy0 + int(r), ix0 + int(c), c0 + k);
        }
        tile[r * TILE_COLS + c] = v;
      }
      barrier();
      if (has_output) {
        const uint chunk = min(p.CI - c0, 4u);
        [[unroll]] for (uint ky = 0u; ky < 3u; ++ky) {
          for (uint k = 0u; k < chunk; ++k) {
            [[unroll]] for (uint kx = 0u; kx < 3u; ++kx) {
              AFLOAT inputs[PIX];
              [[unroll]] for (uint i = 0u; i < PIX; ++i) {
                inputs[i] = tile[ky * TILE_COLS + (ly * PIX + i) * stride + kx][k];
              }
              accumulate(co0, ky, kx, c0 + k, inputs, acc);
            }
          }
        }
      }
      barrier();  // the next chunk overwrites the tile
    }
    if (has_output) finish(n, oy, ox0, co0, acc);
  }
}

#endif
