#version 450
// y[M×N] = x[M×K] · Wᵀ for small M (decode), W in GGUF Q4_K rows.
//
// A workgroup computes ROWS_PER_WG rows of W against COLS_PER_PASS rows of x
// (workgroup (i, j) owns outputs y[j*COLS_PER_PASS + c][i*ROWS_PER_WG + r]).
// THREADS_PER_BLOCK threads share one 256-weight super-block, each taking
// 32/THREADS_PER_BLOCK consecutive qs words (all inside one 64-weight chunk,
// so two sub-blocks and one scale/min pair per thread); the workgroup walks
// the row WG_SIZE/THREADS_PER_BLOCK super-blocks at a time. Every thread works
// on all ROWS_PER_WG rows, so the x values it loads are reused across rows and
// the weights it loads are reused across x rows. Partial sums are reduced
// across the workgroup at the end (REDUCTION 0: subgroupAdd, then shared memory
// across subgroups; 1: a shared-memory tree).
//
// Parameters (#defines): WG_SIZE, ROWS_PER_WG, THREADS_PER_BLOCK,
// SUBGROUP_SIZE (0 = device default; only the host uses it), REDUCTION,
// COLS_PER_PASS, LOAD_WIDTH (qs words per load: 1, 2 or 4).

#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#if REDUCTION == 0
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#include "q4k.glsl"

#define R ROWS_PER_WG
#define C COLS_PER_PASS
#define T THREADS_PER_BLOCK
#define WPT (32 / T)           // qs words per thread per block
#define BPS (WG_SIZE / T)      // blocks per step of the workgroup
#define LOADS (WPT / LOAD_WIDTH)

#if (32 % T) != 0 || T < 4 || (WPT % LOAD_WIDTH) != 0 || (WG_SIZE % T) != 0
#error "THREADS_PER_BLOCK must be 4..32 dividing 32 and WG_SIZE, LOAD_WIDTH must divide 32/THREADS_PER_BLOCK"
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Shape { uint M; uint N; uint K; };

layout(std430, set = 0, binding = 0) readonly buffer XBuf { vec4 xv[]; };
layout(std430, set = 0, binding = 1) readonly buffer WBuf4 { uvec4 w4[]; };
#if LOAD_WIDTH == 2
layout(std430, set = 0, binding = 1) readonly buffer WBuf2 { uvec2 w2[]; };
#elif LOAD_WIDTH == 1
layout(std430, set = 0, binding = 1) readonly buffer WBuf1 { uint w1[]; };
#endif
layout(std430, set = 0, binding = 2) writeonly buffer YBuf { float y[]; };

#if REDUCTION == 0
// Subgroups per workgroup are at most WG_SIZE / (smallest subgroup size the
// host allows for this variant: SUBGROUP_SIZE, or 8 when the device chooses).
#if SUBGROUP_SIZE > 0
#define MAX_SUBGROUPS (WG_SIZE / SUBGROUP_SIZE)
#else
#define MAX_SUBGROUPS (WG_SIZE / 8)
#endif
shared float partial[(MAX_SUBGROUPS > 0 ? MAX_SUBGROUPS : 1) * R * C];
#else
shared float tree[WG_SIZE];
#endif

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint lane = tid % T;   // which part of the block
  const uint slot = tid / T;   // which block of the step
  const uint row0 = gl_WorkGroupID.x * R;
  const uint col0 = gl_WorkGroupID.y * C;
  const uint nb = K / 256u;
  const uint first_word = lane * WPT;  // within the 32 qs words
  const uint chunk = first_word / 8u;  // 64-weight chunk: sub-blocks 2c, 2c+1
  const uint wl0 = first_word % 8u;

  // Rows and x rows past the end are clamped for loading; only stores check.
  uint row_base[R];  // in uvec4 units
  [[unroll]] for (uint r = 0; r < R; ++r) row_base[r] = min(row0 + r, N - 1u) * (nb * Q4K_BLOCK_VEC4S);
  uint col_base[C];  // in vec4 units
  [[unroll]] for (uint c = 0; c < C; ++c) col_base[c] = min(col0 + c, M - 1u) * (K / 4u);

  float acc[R][C];
  [[unroll]] for (uint r = 0; r < R; ++r) {
    [[unroll]] for (uint c = 0; c < C; ++c) acc[r][c] = 0.0;
  }

  // Scale byte of this thread's sub-blocks within the packed scale words.
  const uint scale_shift = 16u * (chunk & 1u);

  for (uint b = slot; b < nb; b += BPS) {
    uint q[R][WPT];
    float a_lo[R], a_hi[R], b_lo[R], b_hi[R];
    [[unroll]] for (uint r = 0; r < R; ++r) {
      const uint block4 = row_base[r] + b * Q4K_BLOCK_VEC4S;
      const uvec4 h = w4[block4];
      const vec2 dm = unpackHalf2x16(h.x);
      const uint sw = chunk < 2u ? q4k_scales_lo(h.y) : q4k_scales_hi(h.y, h.w);
      const uint mw = chunk < 2u ? q4k_mins_lo(h.z) : q4k_mins_hi(h.z, h.w);
      const float d16 = 16.0 * dm.x;
      // sum(x*w) over a sub-block = a*sum(x*f) - b*sum(x) with f = 1 + q/16,
      // a = 16*d*scale, b = a + dmin*min (see Q4K_NIB_F).
      a_lo[r] = d16 * float((sw >> scale_shift) & 0xFFu);
      a_hi[r] = d16 * float((sw >> (scale_shift + 8u)) & 0xFFu);
      b_lo[r] = a_lo[r] + dm.y * float((mw >> scale_shift) & 0xFFu);
      b_hi[r] = a_hi[r] + dm.y * float((mw >> (scale_shift + 8u)) & 0xFFu);
      const uint qs_word = block4 * 4u + Q4K_QS_WORD + chunk * 8u + wl0;
      [[unroll]] for (uint i = 0; i < LOADS; ++i) {
#if LOAD_WIDTH == 4
        const uvec4 v = w4[qs_word / 4u + i];
        q[r][4 * i + 0] = v.x;
        q[r][4 * i + 1] = v.y;
        q[r][4 * i + 2] = v.z;
        q[r][4 * i + 3] = v.w;
#elif LOAD_WIDTH == 2
        const uvec2 v = w2[qs_word / 2u + i];
        q[r][2 * i + 0] = v.x;
        q[r][2 * i + 1] = v.y;
#else
        q[r][i] = w1[qs_word + i];
#endif
      }
    }

    [[unroll]] for (uint c = 0; c < C; ++c) {
      // x for this thread's words: low nibbles at 64*chunk + 4*wl, high
      // nibbles 32 further on.
      const uint xbase = col_base[c] + b * 64u + chunk * 16u + wl0;
      vec4 xlo[WPT], xhi[WPT];
      vec4 sum_lo = vec4(0.0), sum_hi = vec4(0.0);
      [[unroll]] for (uint w = 0; w < WPT; ++w) {
        xlo[w] = xv[xbase + w];
        xhi[w] = xv[xbase + 8u + w];
        sum_lo += xlo[w];
        sum_hi += xhi[w];
      }
      const float sx_lo = (sum_lo.x + sum_lo.y) + (sum_lo.z + sum_lo.w);
      const float sx_hi = (sum_hi.x + sum_hi.y) + (sum_hi.z + sum_hi.w);
      [[unroll]] for (uint r = 0; r < R; ++r) {
        float f_lo = 0.0, f_hi = 0.0;
        [[unroll]] for (uint w = 0; w < WPT; ++w) {
          // Only left shifts per nibble (the upper half word is shifted down
          // once); measured neutral on H200 against per-nibble right shifts.
          const uint v = q[r][w];
          const uint u = v >> 16;
          f_lo = fma(xlo[w].x, Q4K_NIB_F(v, 0), f_lo);
          f_lo = fma(xlo[w].y, Q4K_NIB_F(v, 8), f_lo);
          f_lo = fma(xlo[w].z, Q4K_NIB_F(u, 0), f_lo);
          f_lo = fma(xlo[w].w, Q4K_NIB_F(u, 8), f_lo);
          f_hi = fma(xhi[w].x, Q4K_NIB_F(v, 4), f_hi);
          f_hi = fma(xhi[w].y, Q4K_NIB_F(v, 12), f_hi);
          f_hi = fma(xhi[w].z, Q4K_NIB_F(u, 4), f_hi);
          f_hi = fma(xhi[w].w, Q4K_NIB_F(u, 12), f_hi);
        }
        acc[r][c] += (a_lo[r] * f_lo - b_lo[r] * sx_lo) + (a_hi[r] * f_hi - b_hi[r] * sx_hi);
      }
    }
  }

  // Reduce each acc[r][c] over the workgroup; thread o < R*C stores output o.
#if REDUCTION == 0
  [[unroll]] for (uint r = 0; r < R; ++r) {
    [[unroll]] for (uint c = 0; c < C; ++c) {
      const float s = subgroupAdd(acc[r][c]);
      if (subgroupElect()) partial[gl_SubgroupID * (R * C) + r * C + c] = s;
    }
  }
  barrier();
  for (uint o = tid; o < R * C; o += WG_SIZE) {
    float s = 0.0;
    for (uint g = 0; g < gl_NumSubgroups; ++g) s += partial[g * (R * C) + o];
    const uint row = row0 + o / C;
    const uint col = col0 + o % C;
    if (row < N && col < M) y[col * N + row] = s;
  }
#else
  [[unroll]] for (uint r = 0; r < R; ++r) {
    [[unroll]] for (uint c = 0; c < C; ++c) {
      tree[tid] = acc[r][c];
      barrier();
      [[unroll]] for (uint stride = WG_SIZE / 2u; stride > 0u; stride /= 2u) {
        if (tid < stride) tree[tid] += tree[tid + stride];
        barrier();
      }
      if (tid == 0u && row0 + r < N && col0 + c < M) y[(col0 + c) * N + row0 + r] = tree[0];
      barrier();
    }
  }
#endif
}
