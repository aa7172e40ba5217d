#version 450
// y[M×N] = x[M×K] · Wᵀ for small M (decode), W in GGUF rows of the block
// type QTYPE (include/quant_block.glsl), with the activations quantized to 8
// bits inside the workgroup (include/x_q8.glsl) so that the weights enter
// integer dot products as signed-byte codes (qb_unit_i8 of
// include/quant_words.glsl) instead of being converted to floats one by one.
//
// Thread layout as in matvec_quant.comp: a workgroup computes ROWS_PER_WG
// rows of W against COLS_PER_PASS rows of x; its invocations are (row group,
// part), part fastest; the THREADS_PER_ROW parts of a row group walk the
// row's units in turn; a row group owns rows g, g + G, ... (G =
// WG_SIZE/THREADS_PER_ROW), and every x word an invocation loads from shared
// memory serves all its rows. The row is walked in segments of X_SEGMENT
// values, each quantized first. A run of 4 weights a*code - m contributes
//   a * dx * idot(code, round(x/dx))
// and, for types with an offset (Q5_K), the unit that owns a 32-weight group
// subtracts m * sum(xq) over the group once, with the sum of the quantized
// x (include/x_q8.glsl), so the product is exactly sum(xq * w). Partial
// sums are reduced with subgroup shuffles over the parts.
//
// Parameters (#defines): WG_SIZE, ROWS_PER_WG, THREADS_PER_ROW, UNROLL,
// COLS_PER_PASS, X_SEGMENT, SUBGROUP_SIZE (host only); REDUCTION and X_QUANT
// are defined but fixed. Semantics: QTYPE.
// ACT_F16 (fp16 x and y): include/matmul_xy.glsl. Needs shaderIntegerDotProduct and
// subgroup shuffles.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_spirv_intrinsics : require

#include "int_dot.glsl"
#include "quant_block.glsl"

#define R ROWS_PER_WG
#define C COLS_PER_PASS
#define T THREADS_PER_ROW
#define U UNROLL
#define G (WG_SIZE / T)  // row groups
#define RT (R / G)       // rows per invocation
#define SEG X_SEGMENT    // x values quantized per segment
#define XW (QB_WEIGHTS / 4u)  // x words (and runs) per block

#if (WG_SIZE % T) != 0 || G < 1 || (R % G) != 0 || (SEG % 256) != 0
#error "THREADS_PER_ROW must divide WG_SIZE, the row groups must divide ROWS_PER_WG, X_SEGMENT must be a multiple of 256"
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

#include "matmul_xy.glsl"

uint row_byte[RT];  // first byte of each row of this invocation
uint col_row[C];    // row of x of each column (clamped)
float acc[RT][C];

#include "x_q8.glsl"

// Adds unit `unit` (counted along the row) for every row and x row; b0 is the
// segment's first block.
void unit_step(uint unit, uint b0) {
  const uint blk = unit / QB_UNITS;
  const uint u = unit % QB_UNITS;
  uint xw[C][QB_UNIT_RUNS];
  vec2 g[C][QB_UNIT_RUNS];
  [[unroll]] for (uint c = 0; c < C; ++c) {
    [[unroll]] for (uint i = 0; i < QB_UNIT_RUNS; ++i) {
      const uint w = c * (SEG / 4u) + (blk - b0) * XW + qb_unit_run(u, i);
      xw[c][i] = xq[w];
      g[c][i] = xds[w / 8u];
    }
  }
#if QB_HAS_OFFSET
  const float owns = qb_owns_min(u) ? 1.0 : 0.0;
#endif
  [[unroll]] for (uint r = 0; r < RT; ++r) {
    uint q[QB_UNIT_RUNS];
    float a[QB_UNIT_RUNS], m[QB_UNIT_RUNS];
    qb_unit_i8(row_byte[r] + blk * QB_BYTES, u, q, a, m);
    [[unroll]] for (uint c = 0; c < C; ++c) {
      [[unroll]] for (uint i = 0; i < QB_UNIT_RUNS; ++i) {
        acc[r][c] = fma(a[i] * g[c][i].x, float(dot4_i8(q[i], xw[c][i])), acc[r][c]);
#if QB_HAS_OFFSET
        acc[r][c] -= (owns * m[i]) * g[c][i].y;
#endif
      }
    }
  }
}

void main() {
  x_prologue();  // include/matmul_xy.glsl: before any x4()
  const uint tid = gl_LocalInvocationID.x;
  const uint part = tid % T;
  const uint group = tid / T;
  const uint row0 = gl_WorkGroupID.x * R;
  const uint col0 = gl_WorkGroupID.y * C;
  const uint nb = K / QB_WEIGHTS;

  // Rows and x rows past the end are clamped for loading; only stores check.
  [[unroll]] for (uint r = 0; r < RT; ++r) {
    row_byte[r] = min(row0 + group + G * r, N - 1u) * (nb * QB_BYTES);
  }
  [[unroll]] for (uint c = 0; c < C; ++c) col_row[c] = min(col0 + c, M - 1u);
  [[unroll]] for (uint r = 0; r < RT; ++r) {
    [[unroll]] for (uint c = 0; c < C; ++c) acc[r][c] = 0.0;
  }

  for (uint k0 = 0u; k0 < K; k0 += SEG) {
    barrier();  // the previous segment's x is no longer read
    quantize_segment(k0, min(SEG, K - k0));
    barrier();
    const uint b0 = k0 / QB_WEIGHTS;
    const uint units_end = min(nb, b0 + SEG / QB_WEIGHTS) * QB_UNITS;
    uint unit = b0 * QB_UNITS + part;
#if U > 1
    for (; unit + T * (U - 1) < units_end; unit += T * U) {
      [[unroll]] for (uint s = 0; s < U; ++s) unit_step(unit + T * s, b0);
    }
#endif
    for (; unit < units_end; unit += T) unit_step(unit, b0);
  }
  x_epilogue();  // include/matmul_xy.glsl: after the last x4()

  [[unroll]] for (uint r = 0; r < RT; ++r) {
    [[unroll]] for (uint c = 0; c < C; ++c) {
      float s = acc[r][c];
      [[unroll]] for (uint off = T / 2u; off > 0u; off /= 2u) s += subgroupShuffleXor(s, off);
      const uint row = row0 + group + G * r;
      const uint col = col0 + c;
      if (part == 0u && row < N && col < M) store_y(col * N + row, s);
    }
  }
}
