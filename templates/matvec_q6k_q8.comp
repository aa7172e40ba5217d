#version 450
// y[M×N] = x[M×K] · Wᵀ for small M (decode), W in GGUF Q6_K rows (QTYPE 4),
// x quantized to 8 bits in shared memory (include/x_q8.glsl), laid out as
// matvec_q5k_q8.comp (matmul_q6k's SUPER_BLOCK=1): four invocations per
// super-block, 64 weights each, the block's scale work done once per 16
// weights instead of once per generic unit.
//
// A Q6_K super-block is 210 bytes (q6k.glsl): ql (128 bytes at 0), qh (64 at
// 128), 16 int8 scales (at 192), fp16 d (at 208). Weight 128h + 32j + l
// (half h, quarter j, l < 32) has its low 4 bits in nibble j/2 of
// ql[64h + 32(j%2) + l], its high 2 bits in bits 2j, 2j+1 of qh[32h + l], the
// scale scales[8h + 2j + l/16]; it is d*scale*(q - 32).
//
// Invocation `part` takes half h = part/2 and quarters j = 2*(part%2) + jj
// (jj = 0, 1): 16 ql words (nibble part%2 of ql bytes 64h..64h+63), 8 qh
// words (qh bytes 32h..), one scale word (scales 8h + 4*(part%2) ..+3) and d.
// Codes (ql nibble | qh bits << 4, 0..63) dot with x words directly; the -32
// is folded in per 16 weights as 32 * the sum of the x codes (dot with
// 0x01010101, shared by the rows), so each quarter adds
//   d * dx * (scale0 * (dot0 - 32*xs0) + scale1 * (dot1 - 32*xs1)).
//
// Alignment: 210-byte blocks are 2-byte aligned only. Rows of an even number
// of blocks (K % 512 == 0, checked by the host) start 4-byte aligned, so
// even blocks are 4-byte aligned and odd ones 2 bytes past: their words are
// realigned by 16 bits (one funnel shift each). The slots (THREADS_PER_ROW/4,
// an even number) walk blocks slot, slot + S, ... and segments hold an even
// number of blocks, so the parity of an invocation's blocks is that of its
// slot: the branch between the two load paths is uniform over a subgroup
// whose invocations share a slot (4 * row groups >= the subgroup size).
//
// Invocations: (part, row group, slot), part fastest, as
// matvec_q5k_q8.comp. Parameters (#defines): WG_SIZE, ROWS_PER_WG,
// THREADS_PER_ROW (4 * slots), UNROLL, COLS_PER_PASS, X_SEGMENT,
// SUBGROUP_SIZE (host only); REDUCTION, X_QUANT, W_STAGE and SUPER_BLOCK
// are defined but fixed.
// Needs shaderIntegerDotProduct and subgroup shuffles among 4 invocations.

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_spirv_intrinsics : require

#include "int_dot.glsl"

#define R ROWS_PER_WG
#define C COLS_PER_PASS
#define S (THREADS_PER_ROW / 4)        // slots: super-blocks walked side by side
#define U UNROLL
#define G (WG_SIZE / THREADS_PER_ROW)  // row groups
#define RT (R / G)                     // rows per invocation
#define SEG X_SEGMENT                  // x values quantized per segment
#define SEG_BLOCKS (SEG / 256)

#define QH_WORD 32u     // first qh word of a block (byte 128)
#define SCALE_WORD 48u  // first scale word (byte 192)
#define D_WORD 52u      // the word holding d (byte 208)

#if QTYPE != 4
#error "matvec_q6k_q8.comp takes QTYPE 4 (Q6_K)"
#endif
#if (THREADS_PER_ROW % 8) != 0 || (WG_SIZE % THREADS_PER_ROW) != 0 || G < 1 || (R % G) != 0 || (SEG % 512) != 0
#error "THREADS_PER_ROW must be a multiple of 8 dividing WG_SIZE, the row groups must divide ROWS_PER_WG"
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

layout(std430, set = 0, binding = 0) readonly buffer XBuf { vec4 xv[]; };
layout(std430, set = 0, binding = 1) readonly buffer WBuf { uint w[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };

shared float partial[S * R * C];

uint row_word[RT];  // first word of each row of this invocation
uint col_row[C];    // row of x of each column (clamped)

#include "x_q8.glsl"

uint hf;    // half of every super-block this invocation takes
uint jp;    // its pair of quarters: 2*jp, 2*jp + 1
bool odd;   // whether its blocks are the odd ones (2 bytes past a word)
float acc[RT][C];

// This invocation's ql, qh and scale words and d of super-block b of every
// row, realigned where the block is odd.
void load_block(uint b, out uint ql[RT][16], out uint qh[RT][8], out uint sc[RT], out float d[RT]) {
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uint wb = row_word[i] + 52u * b + (b >> 1);  // 210*b/4 rounded down
    if (!odd) {
      [[unroll]] for (uint k = 0; k < 16u; ++k) ql[i][k] = w[wb + 16u * hf + k];
      [[unroll]] for (uint k = 0; k < 8u; ++k) qh[i][k] = w[wb + QH_WORD + 8u * hf + k];
      sc[i] = w[wb + SCALE_WORD + 2u * hf + jp];
      d[i] = unpackHalf2x16(w[wb + D_WORD]).x;
    } else {
      uint t[17];
      [[unroll]] for (uint k = 0; k < 17u; ++k) t[k] = w[wb + 16u * hf + k];
      [[unroll]] for (uint k = 0; k < 16u; ++k) ql[i][k] = (t[k] >> 16) | (t[k + 1] << 16);
      [[unroll]] for (uint k = 0; k < 9u; ++k) t[k] = w[wb + QH_WORD + 8u * hf + k];
      [[unroll]] for (uint k = 0; k < 8u; ++k) qh[i][k] = (t[k] >> 16) | (t[k + 1] << 16);
      const uint s = wb + SCALE_WORD + 2u * hf + jp;
      sc[i] = (w[s] >> 16) | (w[s + 1u] << 16);
      d[i] = unpackHalf2x16(w[wb + D_WORD]).y;  // byte 210*b + 208 is the word's high half
    }
  }
}

// Adds super-block b (lb-th of the segment) for every row and column.
void math_block(uint lb, uint ql[RT][16], uint qh[RT][8], uint sc[RT], float d[RT]) {
  // Per row: the codes of quarters 2jp (words 0..7) and 2jp+1 (8..15), and
  // the four int8 scales of their 16-weight runs.
  uint q[RT][16];
  int s[RT][4];
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    [[unroll]] for (uint k = 0; k < 8u; ++k) {
      const uint h = qh[i][k] >> (4u * jp);
      q[i][k] = ((ql[i][k] >> (4u * jp)) & 0x0F0F0F0Fu) | ((h << 4) & 0x30303030u);
      q[i][8u + k] = ((ql[i][8u + k] >> (4u * jp)) & 0x0F0F0F0Fu) | ((h << 2) & 0x30303030u);
    }
    [[unroll]] for (uint r = 0; r < 4u; ++r) s[i][r] = bitfieldExtract(int(sc[i]), int(8u * r), 8);
  }
  [[unroll]] for (uint c = 0; c < C; ++c) {
    [[unroll]] for (uint jj = 0; jj < 2u; ++jj) {
      const uint j = 2u * jp + jj;
      const uint xw = c * (SEG / 4u) + lb * 64u + 32u * hf + 8u * j;  // x words of the quarter
      uint x[8];
      [[unroll]] for (uint k = 0; k < 8u; ++k) x[k] = xq[xw + k];
      // 32 * the sums of the x codes of each 16-value run.
      int b0 = 0, b1 = 0;
      [[unroll]] for (uint k = 0; k < 4u; ++k) {
        b0 += dot4_i8(x[k], 0x01010101u);
        b1 += dot4_i8(x[4u + k], 0x01010101u);
      }
      b0 *= 32;
      b1 *= 32;
      const float dx = xds[c * (SEG / 32u) + lb * 8u + 4u * hf + j].x;
      [[unroll]] for (uint i = 0; i < RT; ++i) {
        int t0 = -b0, t1 = -b1;
        [[unroll]] for (uint k = 0; k < 4u; ++k) {
          t0 += dot4_i8(q[i][8u * jj + k], x[k]);
          t1 += dot4_i8(q[i][8u * jj + 4u + k], x[4u + k]);
        }
        acc[i][c] += (d[i] * dx) * float(s[i][2u * jj] * t0 + s[i][2u * jj + 1u] * t1);
      }
    }
  }
}

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint part = tid % 4u;
  const uint group = (tid / 4u) % G;
  const uint slot = tid / (4u * G);
  const uint row0 = gl_WorkGroupID.x * R;
  const uint col0 = gl_WorkGroupID.y * C;
  const uint nb = K / 256u;
  hf = part >> 1;
  jp = part & 1u;
  odd = (slot & 1u) != 0u;

  // Rows and x rows past the end are clamped for loading; only stores check.
  // A row of nb (even) blocks is nb*210/4 words.
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    row_word[i] = min(row0 + group + G * i, N - 1u) * (nb / 2u * 105u);
  }
  [[unroll]] for (uint c = 0; c < C; ++c) col_row[c] = min(col0 + c, M - 1u);
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    [[unroll]] for (uint c = 0; c < C; ++c) acc[i][c] = 0.0;
  }

  for (uint k0 = 0u; k0 < K; k0 += SEG) {
    const uint b0 = k0 / 256u;
    const uint b1 = min(nb, b0 + SEG_BLOCKS);
    uint b = b0 + slot;
    // The first step's weights are requested before x is quantized, so that
    // their latency overlaps the quantization.
    uint ql[U][RT][16], qh[U][RT][8], sc[U][RT];
    float d[U][RT];
    const bool first_step = b + S * (U - 1) < b1;
    if (first_step) {
      [[unroll]] for (uint u = 0; u < U; ++u) load_block(b + S * u, ql[u], qh[u], sc[u], d[u]);
    }
    barrier();  // the previous segment's x is no longer read
    quantize_segment(k0, min(SEG, K - k0));
    barrier();
    if (first_step) {
      [[unroll]] for (uint u = 0; u < U; ++u) math_block(b + S * u - b0, ql[u], qh[u], sc[u], d[u]);
      b += S * U;
    }
#if U > 1
    for (; b + S * (U - 1) < b1; b += S * U) {
      [[unroll]] for (uint u = 0; u < U; ++u) load_block(b + S * u, ql[u], qh[u], sc[u], d[u]);
      [[unroll]] for (uint u = 0; u < U; ++u) math_block(b + S * u - b0, ql[u], qh[u], sc[u], d[u]);
    }
#endif
    for (; b < b1; b += S) {
      load_block(b, ql[0], qh[0], sc[0], d[0]);
      math_block(b - b0, ql[0], qh[0], sc[0], d[0]);
    }
  }

  // Reduce each acc[i][c] over the 4 parts (shuffles) and the slots (shared
  // memory); invocation o < R*C then stores output o (row o / C, x row o % C).
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    [[unroll]] for (uint c = 0; c < C; ++c) {
      float v = acc[i][c];
      v += subgroupShuffleXor(v, 2u);
      v += subgroupShuffleXor(v, 1u);
      if (part == 0u) partial[(slot * R + group + G * i) * C + c] = v;
    }
  }
  barrier();
  for (uint o = tid; o < R * C; o += WG_SIZE) {
    float v = 0.0;
    [[unroll]] for (uint k = 0; k < S; ++k) v += partial[k * (R * C) + o];
    const uint row = row0 + o / C;
    const uint col = col0 + o % C;
    if (row < N && col < M) y[col * N + row] = v;
  }
}
