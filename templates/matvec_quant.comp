#version 450
// y[M×N] = x[M×K] · Wᵀ for small M (decode), W in GGUF rows of the block
// type QTYPE (include/quant_block.glsl: Q4_0, Q8_0, Q5_K or Q6_K); one
// template for all of them, written against the block interface of
// include/quant_words.glsl.
//
// A workgroup computes ROWS_PER_WG rows of W against COLS_PER_PASS rows of x
// (workgroup (i, j) owns y[j*COLS_PER_PASS + c][i*ROWS_PER_WG + r]). Its
// invocations are (row group, part), part fastest: the THREADS_PER_ROW parts
// of a row group walk the row's units (QB_UNITS per block, numbered along the
// row) in turn, so neighbouring invocations read neighbouring bytes; a row
// group owns rows g, g + G, ... (G = WG_SIZE/THREADS_PER_ROW groups,
// ROWS_PER_WG/G rows each), and every x value an invocation loads serves all
// its rows, every weight all COLS_PER_PASS rows of x. A run of 4 weights
// contributes a*dot(x, q) - b*sum(x). The loop takes UNROLL units per step
// (a remainder loop takes the rest). Partial sums are reduced over the parts
// (REDUCTION 0: butterfly of subgroup shuffles, the parts of a row group
// lying in one subgroup; 1: a shared-memory tree).
//
// Parameters (#defines): WG_SIZE, ROWS_PER_WG, THREADS_PER_ROW, UNROLL,
// REDUCTION, COLS_PER_PASS, SUBGROUP_SIZE (host only). Semantics: QTYPE.
// ACT_F16 (fp16 x and y): include/matmul_xy.glsl.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#if REDUCTION == 0
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif

#include "quant_block.glsl"

#define R ROWS_PER_WG
#define C COLS_PER_PASS
#define T THREADS_PER_ROW
#define U UNROLL
#define G (WG_SIZE / T)  // row groups
#define RT (R / G)       // rows per invocation

#if (WG_SIZE % T) != 0 || G < 1 || (R % G) != 0
#error "THREADS_PER_ROW must divide WG_SIZE and the row groups must divide ROWS_PER_WG"
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

#include "matmul_xy.glsl"

#if REDUCTION == 1
shared float tree[RT * C * WG_SIZE];
#endif

uint row_byte[RT];  // first byte of each row of this invocation
uint col_base[C];   // first vec4 of each row of x
float acc[RT][C];

// Adds unit `unit` (counted along the row) for every row and x row.
void unit_step(uint unit) {
  const uint blk = unit / QB_UNITS;
  const uint u = unit % QB_UNITS;
  [[unroll]] for (uint i = 0; i < QB_UNIT_RUNS; ++i) {
    const uint run = qb_unit_run(u, i);
    vec4 xr[C];
#if QB_HAS_OFFSET
    float sx[C];
#endif
    [[unroll]] for (uint c = 0; c < C; ++c) {
      xr[c] = x4(col_base[c] + blk * (QB_WEIGHTS / 4u) + run);
#if QB_HAS_OFFSET
      sx[c] = (xr[c].x + xr[c].y) + (xr[c].z + xr[c].w);
#endif
    }
    [[unroll]] for (uint r = 0; r < RT; ++r) {
      vec4 q;
      float a, b;
      qb_run(row_byte[r] + blk * QB_BYTES, run, q, a, b);
      [[unroll]] for (uint c = 0; c < C; ++c) {
#if QB_HAS_OFFSET
        acc[r][c] += a * dot(xr[c], q) - b * sx[c];
#else
        acc[r][c] = fma(a, dot(xr[c], q), acc[r][c]);
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
  const uint units = (K / QB_WEIGHTS) * QB_UNITS;

  // Rows and x rows past the end are clamped for loading; only stores check.
  [[unroll]] for (uint r = 0; r < RT; ++r) {
    row_byte[r] = min(row0 + group + G * r, N - 1u) * ((K / QB_WEIGHTS) * QB_BYTES);
  }
  [[unroll]] for (uint c = 0; c < C; ++c) col_base[c] = min(col0 + c, M - 1u) * (K / 4u);
  [[unroll]] for (uint r = 0; r < RT; ++r) {
    [[unroll]] for (uint c = 0; c < C; ++c) acc[r][c] = 0.0;
  }

  uint unit = part;
#if U > 1
  for (; unit + T * (U - 1) < units; unit += T * U) {
    [[unroll]] for (uint s = 0; s < U; ++s) unit_step(unit + T * s);
  }
#endif
  for (; unit < units; unit += T) unit_step(unit);

#if REDUCTION == 0
  [[unroll]] for (uint r = 0; r < RT; ++r) {
    [[unroll]] for (uint c = 0; c < C; ++c) {
      float s = acc[r][c];
      [[unroll]] for (uint off = T / 2u; off > 0u; off /= 2u) s += subgroupShuffleXor(s, off);
      const uint row = row0 + group + G * r;
      const uint col = col0 + c;
      if (part == 0u && row < N && col < M) store_y(col * N + row, s);
    }
  }
#else
  // One tree for all RT*C sums at once, over the part bits of tid.
  [[unroll]] for (uint j = 0; j < RT * C; ++j) tree[j * WG_SIZE + tid] = acc[j / C][j % C];
  barrier();
  [[unroll]] for (uint stride = T / 2u; stride > 0u; stride /= 2u) {
    if (part < stride) {
      [[unroll]] for (uint j = 0; j < RT * C; ++j) tree[j * WG_SIZE + tid] += tree[j * WG_SIZE + tid + stride];
    }
    barrier();
  }
  if (part == 0u) {
    [[unroll]] for (uint j = 0; j < RT * C; ++j) {
      const uint row = row0 + group + G * (j / C);
      const uint col = col0 + j % C;
      if (row < N && col < M) store_y(col * N + row, tree[j * WG_SIZE + tid]);
    }
  }
#endif
}
