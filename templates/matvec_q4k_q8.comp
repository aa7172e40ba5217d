#version 450
// y[M×N] = x[M×K] · Wᵀ for small M (decode), W in GGUF Q4_K rows, with the
// activations quantized to 8 bits inside the workgroup so that the weights
// enter integer dot products (four multiply-adds per instruction) instead of
// being converted to floats one by one.
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
// Weights: as in matvec_q4k.comp. The walk over rows, super-blocks and
// segments is include/matvec_q8_walk.glsl's, with PARTS = THREADS_PER_BLOCK
// invocations sharing one 256-weight super-block (32/T qs words each, inside
// one 64-weight chunk, so two sub-blocks per invocation), S = BLOCK_SLOTS
// and U = BLOCK_UNROLL. The low nibbles of a qs word are the four bytes of
// `w & 0x0F0F0F0F` and dot directly with four x bytes; the high nibbles the
// same after `>> 4`.
//
// Parameters (#defines): WG_SIZE, ROWS_PER_WG, THREADS_PER_BLOCK (4, 8 or 16),
// BLOCK_SLOTS, BLOCK_UNROLL, COLS_PER_PASS, X_SEGMENT, SUBGROUP_SIZE (host
// only).
// Needs shaderIntegerDotProduct and subgroup shuffles.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_spirv_intrinsics : require

#include "int_dot.glsl"
#include "q4k.glsl"

#define PARTS THREADS_PER_BLOCK
#define S BLOCK_SLOTS
#define U BLOCK_UNROLL
#define WPT (32 / PARTS)  // qs words per invocation per block

#if PARTS != 4 && PARTS != 8 && PARTS != 16
#error "THREADS_PER_BLOCK must be 4, 8 or 16"
#endif

#include "matvec_q8_walk.glsl"

layout(std430, set = 0, binding = 1) readonly buffer WBuf4 { uvec4 w4[]; };
#if WPT == 2
layout(std430, set = 0, binding = 1) readonly buffer WBuf2 { uvec2 w2[]; };
#endif

uint chunk, wl0;
float own_min;  // 1 for the invocation that adds its chunk's min terms

void init_part(uint part, uint slot) {
  const uint first_word = part * WPT;  // within the 32 qs words
  chunk = first_word / 8u;             // 64-weight chunk: sub-blocks 2c, 2c+1
  wl0 = first_word % 8u;
  own_min = wl0 == 0u ? 1.0 : 0.0;
}

uint row_start(uint row, uint nu) { return row * (nu * Q4K_BLOCK_VEC4S); }

// The header and this invocation's qs words of a super-block, per row.
struct Unit {
  uvec4 hd[RT];
  uint q[RT][WPT];
};

void load_unit(uint b, out Unit v) {
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uint block4 = row_base[i] + b * Q4K_BLOCK_VEC4S;
    v.hd[i] = w4[block4];
    const uint qs_word = block4 * 4u + Q4K_QS_WORD + chunk * 8u + wl0;
#if WPT == 2
    const uvec2 q = w2[qs_word / 2u];
    v.q[i][0] = q.x;
    v.q[i][1] = q.y;
#else
    [[unroll]] for (uint l = 0; l < WPT / 4u; ++l) {
      const uvec4 q = w4[qs_word / 4u + l];
      v.q[i][4 * l + 0] = q.x;
      v.q[i][4 * l + 1] = q.y;
      v.q[i][4 * l + 2] = q.z;
      v.q[i][4 * l + 3] = q.w;
    }
#endif
  }
}

// Adds super-block b (lb-th of the segment) for every row and column.
void math_unit(uint lb, Unit v) {
  const uint scale_shift = 16u * (chunk & 1u);
  vec2 a[RT], m[RT];  // per row: d*scale and dmin*min of the low and high sub-block
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uvec4 h = v.hd[i];
    const vec2 dm = unpackHalf2x16(h.x);
    const uint sw = (chunk < 2u ? q4k_scales_lo(h.y) : q4k_scales_hi(h.y, h.w)) >> scale_shift;
    const uint mw = (chunk < 2u ? q4k_mins_lo(h.z) : q4k_mins_hi(h.z, h.w)) >> scale_shift;
    a[i] = dm.x * vec2(float(sw & 0xFFu), float((sw >> 8) & 0xFFu));
    m[i] = (own_min * dm.y) * vec2(float(mw & 0xFFu), float((mw >> 8) & 0xFFu));
  }
  [[unroll]] for (uint c = 0; c < C; ++c) {
    const uint xw = c * (SEG / 4u) + lb * 64u + chunk * 16u + wl0;  // low-nibble x words
    const uint xg = c * (SEG / 32u) + lb * 8u + chunk * 2u;         // their 32-value group
    uint xlo[WPT], xhi[WPT];
    [[unroll]] for (uint w = 0; w < WPT; ++w) {
      xlo[w] = xq[xw + w];
      xhi[w] = xq[xw + 8u + w];
    }
    const vec2 glo = xds[xg], ghi = xds[xg + 1u];
    [[unroll]] for (uint i = 0; i < RT; ++i) {
      int dlo = 0, dhi = 0;
      [[unroll]] for (uint w = 0; w < WPT; ++w) {
        dlo += dot4_i8(v.q[i][w] & 0x0F0F0F0Fu, xlo[w]);
        dhi += dot4_i8((v.q[i][w] >> 4) & 0x0F0F0F0Fu, xhi[w]);
      }
      acc[i][c] += (a[i].x * glo.x) * float(dlo) + (a[i].y * ghi.x) * float(dhi) -
                   (m[i].x * glo.y + m[i].y * ghi.y);
    }
  }
}

#include "matvec_q8_walk_main.glsl"
