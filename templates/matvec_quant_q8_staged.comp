#version 450
// y[M×N] = x[M×K] · Wᵀ for small M (decode), W in GGUF rows of the block
// type QTYPE (include/quant_block.glsl), x quantized to 8 bits in shared
// memory (include/x_q8.glsl) as in matvec_quant_q8.comp, but with the weights
// read as wide, coalesced 16-byte loads and staged in shared memory.
//
// Why: Q4_0 (18 B), Q8_0 (34 B) and Q6_K (210 B) blocks are only 2-byte
// aligned, so matvec_quant_q8.comp reads every field as one or two 32-bit
// words and shifts; per byte of weights that is many small global loads. Here
// the THREADS_PER_ROW invocations of a row group (all in one subgroup) read a
// contiguous run of STAGE_BLOCKS blocks of each of their rows as uvec4s, the
// lanes taking consecutive 16 bytes (one fully used 512-byte request per
// load for 32 lanes), and write them to the row group's own slice of shared
// memory; the block fields are then picked out of shared memory (QW_WORD
// reads the staged copy), where unaligned words cost no extra memory
// transactions. A run of STAGE_BLOCKS blocks is a whole number of the
// smallest 16-byte-aligned groups of blocks, and rows start 16-byte aligned
// (the host rejects shapes where they do not), so every run starts and ends
// on a 16-byte boundary.
//
// The run after the one being worked on is loaded into registers before the
// work on it starts (two runs in flight per row group: the staged one being
// read from shared memory, the next one coming from memory), and the first
// run of every x segment is requested before x is quantized, so that its
// latency overlaps the quantization (as matvec_q4k_q8.comp does). Only the
// row group shares a slice, so subgroup barriers order the writes and reads;
// no workgroup barrier is needed but around the quantization of x.
//
// Parameters (#defines): WG_SIZE, ROWS_PER_WG, THREADS_PER_ROW, UNROLL
// (consecutive units per lane per step), COLS_PER_PASS, X_SEGMENT, W_STAGE
// (host only: STAGE_BLOCKS and STAGE_VEC4S are derived from it),
// STAGE_BLOCKS, STAGE_VEC4S, SUBGROUP_SIZE (host only); REDUCTION and
// X_QUANT are defined but fixed. Semantics: QTYPE.
// ACT_F16 (fp16 x and y): include/matmul_xy.glsl. Needs shaderIntegerDotProduct, subgroup
// shuffles and THREADS_PER_ROW <= the subgroup size.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_spirv_intrinsics : require

#define R ROWS_PER_WG
#define C COLS_PER_PASS
#define T THREADS_PER_ROW
#define U UNROLL
#define G (WG_SIZE / T)  // row groups
#define RT (R / G)       // rows per invocation
#define SEG X_SEGMENT    // x values quantized per segment

// The staged runs: STAGE_BLOCKS blocks (STAGE_VEC4S uvec4s) of each row of
// the workgroup, the slices of a row group's rows side by side. A block
// header reads its words from here (byte offsets count from wst[0]).
shared uvec4 wst[R * STAGE_VEC4S];
#define QW_WORD(i) wst[(i) >> 2u][(i) & 3u]

#include "int_dot.glsl"
#include "quant_block.glsl"

#define XW (QB_WEIGHTS / 4u)  // x words (and runs) per block
#define STV STAGE_VEC4S
#define LV ((STV + T - 1) / T)  // uvec4 loads per lane per row

#if (WG_SIZE % T) != 0 || G < 1 || (R % G) != 0 || (SEG % 256) != 0
#error "THREADS_PER_ROW must divide WG_SIZE, the row groups must divide ROWS_PER_WG, X_SEGMENT must be a multiple of 256"
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

#include "matmul_xy.glsl"
layout(std430, set = 0, binding = 1) readonly buffer WBuf4 { uvec4 w4[]; };

uint row_vec4[RT];  // first uvec4 of each row of this invocation
uint stage0[RT];    // first uvec4 of each row's slice of wst
uint col_row[C];    // row of x of each column (clamped)
float acc[RT][C];
uint part;
uvec4 pre[RT][LV];  // the next run, between its load and its store to wst

#include "x_q8.glsl"

// Requests the run of blocks b.. (nv uvec4s) of every row into pre.
void load_run(uint b, uint nv) {
  [[unroll]] for (uint r = 0; r < RT; ++r) {
    const uint base = row_vec4[r] + b * QB_BYTES / 16u;  // b is a multiple of the aligned group
    [[unroll]] for (uint j = 0; j < LV; ++j) {
      const uint i = part + T * j;
      if (i < nv) pre[r][j] = w4[base + i];
    }
  }
}

void store_run(uint nv) {
  [[unroll]] for (uint r = 0; r < RT; ++r) {
    [[unroll]] for (uint j = 0; j < LV; ++j) {
      const uint i = part + T * j;
      if (i < nv) wst[stage0[r] + i] = pre[r][j];
    }
  }
}

// Adds unit u of block lb of the staged run (the first block of the run
// being the lb0-th of the segment) for every row and x row.
void unit_step(uint lb0, uint lb, uint u) {
  uint xw[C][QB_UNIT_RUNS];
  vec2 g[C][QB_UNIT_RUNS];
  [[unroll]] for (uint c = 0; c < C; ++c) {
    [[unroll]] for (uint i = 0; i < QB_UNIT_RUNS; ++i) {
      const uint w = c * (SEG / 4u) + (lb0 + lb) * XW + qb_unit_run(u, i);
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
    qb_unit_i8(stage0[r] * 16u + lb * QB_BYTES, u, q, a, m);
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

// Adds the staged run (nblk blocks, the first the lb0-th of the segment).
// Each lane takes U consecutive units of one block at a time (QB_UNITS is a
// multiple of U), the lanes in turn: the units' loads from wst overlap (the
// block's scale and header, neighbouring words), so the compiler loads them
// once, and so do the scales they decode alike. Unit u0 + s is written
// u0 | s (u0 is a multiple of U, s < U a constant after unrolling): then
// u / 8 and (u % 8) / 4, which pick a K-quant's scales, fold to those of u0
// without the compiler having to prove u0's low bits zero. Lanes may run
// different numbers of steps; no barrier is inside.
void work_run(uint lb0, uint nblk) {
  const uint units = nblk * QB_UNITS;
  for (uint unit = part * U; unit < units; unit += T * U) {
    const uint lb = unit / QB_UNITS;
    const uint u0 = unit % QB_UNITS;
    [[unroll]] for (uint s = 0; s < U; ++s) unit_step(lb0, lb, u0 | s);
  }
}

void main() {
  x_prologue();  // include/matmul_xy.glsl: before any x4()
  // STAGE_BLOCKS blocks are whole uvec4s and fit an x segment.
  if (STAGE_VEC4S * 16u != STAGE_BLOCKS * QB_BYTES || STAGE_BLOCKS * QB_WEIGHTS > SEG) return;
  const uint tid = gl_LocalInvocationID.x;
  part = tid % T;
  const uint group = tid / T;
  const uint row0 = gl_WorkGroupID.x * R;
  const uint col0 = gl_WorkGroupID.y * C;
  const uint nb = K / QB_WEIGHTS;

  // Rows and x rows past the end are clamped for loading; only stores check.
  // A row is nb*QB_BYTES bytes, a multiple of 16 (checked by the host).
  [[unroll]] for (uint r = 0; r < RT; ++r) {
    row_vec4[r] = min(row0 + group + G * r, N - 1u) * (nb * QB_BYTES / 16u);
    stage0[r] = (group * RT + r) * STV;
  }
  [[unroll]] for (uint c = 0; c < C; ++c) col_row[c] = min(col0 + c, M - 1u);
  [[unroll]] for (uint r = 0; r < RT; ++r) {
    [[unroll]] for (uint c = 0; c < C; ++c) acc[r][c] = 0.0;
  }

  // Every bound below depends on K only: the loops are uniform, as the
  // barriers in them need.
  for (uint k0 = 0u; k0 < K; k0 += SEG) {
    const uint b0 = k0 / QB_WEIGHTS;
    const uint b1 = min(nb, b0 + SEG / QB_WEIGHTS);
    uint b = b0;
    uint nblk = min(uint(STAGE_BLOCKS), b1 - b);
    load_run(b, nblk * QB_BYTES / 16u);
    barrier();  // the previous segment's x is no longer read
    quantize_segment(k0, min(SEG, K - k0));
    barrier();
    for (;;) {
      store_run(nblk * QB_BYTES / 16u);
      subgroupMemoryBarrierShared();
      subgroupBarrier();  // the run is in wst for the whole row group
      const uint bn = b + nblk;
      const uint nn = bn < b1 ? min(uint(STAGE_BLOCKS), b1 - bn) : 0u;
      if (nn > 0u) load_run(bn, nn * QB_BYTES / 16u);
      work_run(b - b0, nblk);
      subgroupMemoryBarrierShared();
      subgroupBarrier();  // every lane is done reading the run before the next is stored
      if (nn == 0u) break;
      b = bn;
      nblk = nn;
    }
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
