#version 450
// y[M×N] = x[M×K] · Wᵀ for small M (decode), W in GGUF Q4_K rows (QTYPE 5),
// with the activations quantized to 8 bits inside the workgroup
// (include/x_q8.glsl) so that the weights enter integer dot products (four
// multiply-adds per instruction) instead of being converted to floats one by
// one (matmul_q4k's SUPER_BLOCK=1).
//
// Activations: the workgroup walks K in segments of SEG = X_SEGMENT values
// (4096, or 16384 so that a 14336-long row is quantized at once). For each it
// quantizes its COLS_PER_PASS rows of x into shared memory: every 32 values
// (one Q4_K sub-block) get a scale dx = max|x|/127 and signed bytes
// round(x/dx), plus dx times the sum of those codes for the sub-block's min
// term. So, for sub-block j of a row with scale a_j = d*scale(j) and min
// b_j = dmin*min(j), with xq = dx * round(x/dx),
//   sum(x*w) ~ a_j * dx * idot(q, round(x/dx)) - b_j * sum(xq) = sum(xq*w),
// exact for x rounded to 8 bits (relative error about 0.5%, see the
// kernel's tolerance; include/x_q8.glsl says why the min takes the
// quantized sum).
//
// Weights (q4k.glsl): a 144-byte super-block is 9 uvec4, 16-byte aligned
// wherever the buffer is: uvec4 0 holds d|dmin and the 12 bytes of 6-bit
// scales and mins, uvec4 1..8 the 128 bytes of nibbles, two per 64-weight
// chunk. Four invocations share a super-block, invocation `part` taking
// chunk c = part (sub-blocks 2c and 2c+1): three 16-byte loads (the header
// and its chunk's two qs uvec4s). The low nibbles of a qs word are the four
// bytes of `w & 0x0F0F0F0F` and dot directly with four x bytes; the high
// nibbles the same after `>> 4`. The scales are decoded once per chunk.
//
// The walk over rows, units and segments is include/matvec_q8_walk.glsl's
// (PARTS = 4).
//
// Parameters (#defines): WG_SIZE, ROWS_PER_WG, THREADS_PER_ROW (4 * slots),
// UNROLL, COLS_PER_PASS, X_SEGMENT, SUBGROUP_SIZE (host only); REDUCTION,
// X_QUANT, W_STAGE and SUPER_BLOCK are defined but fixed.
// Needs shaderIntegerDotProduct and subgroup shuffles among 4 invocations.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_spirv_intrinsics : require

#include "int_dot.glsl"
#include "q4k.glsl"

#define PARTS 4
#define S (THREADS_PER_ROW / 4)  // slots: super-blocks walked side by side
#define U UNROLL

#if QTYPE != 5
#error "matvec_q4k_q8.comp takes QTYPE 5 (Q4_K)"
#endif
#if (THREADS_PER_ROW % 4) != 0
#error "THREADS_PER_ROW must be a multiple of 4"
#endif

#include "matvec_q8_walk.glsl"

layout(std430, set = 0, binding = 1) readonly buffer WBuf4 { uvec4 w4[]; };

uint chunk;  // 64-weight chunk (0..3) of every super-block this invocation takes

void init_part(uint part, uint slot) { chunk = part; }

uint row_start(uint row, uint nu) { return row * (nu * Q4K_BLOCK_VEC4S); }

// The header and this invocation's chunk of qs words of a super-block, per row.
struct Unit {
  uvec4 hd[RT];
  uint q[RT][8];
};

void load_unit(uint b, out Unit v) {
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uint block4 = row_base[i] + b * Q4K_BLOCK_VEC4S;
    v.hd[i] = w4[block4];
    [[unroll]] for (uint l = 0; l < 2u; ++l) {
      const uvec4 q = w4[block4 + Q4K_QS_WORD / 4u + 2u * chunk + l];
      v.q[i][4 * l + 0] = q.x;
      v.q[i][4 * l + 1] = q.y;
      v.q[i][4 * l + 2] = q.z;
      v.q[i][4 * l + 3] = q.w;
    }
  }
}

// Adds super-block b (lb-th of the segment) for every row and column.
void math_unit(uint lb, Unit v) {
  vec2 a[RT], m[RT];  // per row: d*scale and dmin*min of the low and high sub-block
  [[unroll]] for (uint i = 0; i < RT; ++i) q4k_chunk_scale_min(v.hd[i], chunk, a[i], m[i]);
  [[unroll]] for (uint c = 0; c < C; ++c) {
    const uint xw = c * (SEG / 4u) + lb * 64u + chunk * 16u;  // low-nibble x words
    const uint xg = c * (SEG / 32u) + lb * 8u + chunk * 2u;   // their 32-value group
    uint xlo[8], xhi[8];
    [[unroll]] for (uint w = 0; w < 8u; ++w) {
      xlo[w] = xq[xw + w];
      xhi[w] = xq[xw + 8u + w];
    }
    const vec2 glo = xds[xg], ghi = xds[xg + 1u];
    [[unroll]] for (uint i = 0; i < RT; ++i) {
      int dlo = 0, dhi = 0;
      [[unroll]] for (uint w = 0; w < 8u; ++w) {
        dlo += dot4_i8(v.q[i][w] & 0x0F0F0F0Fu, xlo[w]);
        dhi += dot4_i8((v.q[i][w] >> 4) & 0x0F0F0F0Fu, xhi[w]);
      }
      acc[i][c] += (a[i].x * glo.x) * float(dlo) + (a[i].y * ghi.x) * float(dhi) -
                   (m[i].x * glo.y + m[i].y * ghi.y);
    }
  }
}

#include "matvec_q8_walk_main.glsl"
