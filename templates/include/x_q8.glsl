// Activations quantized to 8 bits in shared memory, for the integer-dot
// matrix-vector templates (matvec_q4k_q8.comp, matvec_quant_q8.comp).
//
// The including template includes int_dot.glsl and defines C (rows of x per workgroup), SEG (x values
// per row quantized at a time, a multiple of 256), WG_SIZE, the push
// constant K, the x buffer `xv` (vec4) and `uint col_row[C]` (the x row of
// each column, clamped), then includes this file.
//
// quantize_segment(k0, len) writes, for x[col_row[c]][k0 .. k0+len):
//   xq[(c*SEG + k)/4]  four values as signed bytes round(x/dx), x value k
//                      in byte k%4 (packSnorm4x8 order);
//   xds[(c*SEG + k)/32] (dx, dx * the sum of the 32 codes) of the values
//                      k..k+31, with dx = max|x|/127 over them: the sum of
//                      the quantized x, for a min term (-dmin*m*sum) taken
//                      against the same x as the codes. Against the exact
//                      sum the min's share of every weight would no longer
//                      cancel the codes' rounding error: measured on the CPU
//                      model (Q4_K rows quantized from uniform weights, as
//                      `vktune gguf --make-random` and a quantizer write
//                      them; K = 14336, Gaussian and SwiGLU-shaped x), 2.4
//                      to 2.7 times the error. (On the kernel tests' random
//                      blocks, whose min outweighs every code, the exact sum
//                      did better: 2.3e-3 against 4.4e-3, both far inside
//                      the tolerance.)
// Callers put a barrier() before (the previous segment is no longer read)
// and after it.
#ifndef VKTUNE_X_Q8_GLSL
#define VKTUNE_X_Q8_GLSL

shared uint xq[C * SEG / 4];
shared vec2 xds[C * SEG / 32];

// quantize_segment's x loads go out XQ_BATCH iterations at a time before
// their math. On an H100, batches of 2 made the long-K decode shapes 2 to 5%
// faster and batches of 4 and 8 no faster or slower (more registers): the
// quantization's cost is less its loads' latency than its traffic and its
// place before the walk (results/h200/session19).
#ifndef XQ_BATCH
#define XQ_BATCH 2u
#endif

// Quantizes 8 values (a, b) into xq[w], xq[w + 1] and, from the first of
// their four invocations, the 32-value group's (dx, sum of codes) into
// xds[w / 8]. The four invocations of a group are consecutive (the lowest
// two bits of the invocation index) and all call it, so the shuffles only
// ever read active invocations; `inside` false: a group past the end (its
// values 0, nothing stored).
void quantize_piece(vec4 a, vec4 b, uint w, bool inside) {
  const vec4 m4 = max(abs(a), abs(b));
  float amax = max(max(m4.x, m4.y), max(m4.z, m4.w));
  amax = max(amax, subgroupShuffleXor(amax, 1u));
  amax = max(amax, subgroupShuffleXor(amax, 2u));
  const float inv = amax > 0.0 ? 1.0 / amax : 0.0;
  // packSnorm4x8 rounds clamp(v, -1, 1) * 127 to the nearest integer.
  const uint qa = packSnorm4x8(a * inv), qb = packSnorm4x8(b * inv);
  int codes = dot4_i8(qa, 0x01010101u) + dot4_i8(qb, 0x01010101u);  // the sum of the 8 signed bytes
  codes += subgroupShuffleXor(codes, 1u);
  codes += subgroupShuffleXor(codes, 2u);
  if (inside) {
    xq[w] = qa;
    xq[w + 1u] = qb;
    const float dx = amax * (1.0 / 127.0);
    if ((gl_LocalInvocationID.x & 3u) == 0u) xds[w / 8u] = vec2(dx, dx * float(codes));
  }
}

// Each invocation takes 8 consecutive values, four invocations a 32-value
// group. Every invocation runs the same number of iterations (len is
// uniform), and a group of four is either wholly inside C*len or wholly past
// it.
void quantize_segment(uint k0, uint len) {
  const uint tid = gl_LocalInvocationID.x;
  const uint pieces = len / 8u;  // per column
  for (uint e0 = 0u; e0 < C * pieces; e0 += XQ_BATCH * WG_SIZE) {
    vec4 a[XQ_BATCH], b[XQ_BATCH];
    [[unroll]] for (uint j = 0u; j < XQ_BATCH; ++j) {
      const uint e = e0 + j * WG_SIZE + tid;
      const uint c = min(e / pieces, C - 1u);
      a[j] = vec4(0.0);
      b[j] = vec4(0.0);
      if (e < C * pieces && X_ROW_READ(c)) {
        const uint v = (col_row[c] * K + k0 + (e - c * pieces) * 8u) / 4u;
        a[j] = x4(v);
        b[j] = x4(v + 1u);
      }
    }
    [[unroll]] for (uint j = 0u; j < XQ_BATCH; ++j) {
      const uint e = e0 + j * WG_SIZE + tid;
      const uint c = min(e / pieces, C - 1u);
      quantize_piece(a[j], b[j], (c * SEG + (e - c * pieces) * 8u) / 4u, e < C * pieces);
    }
  }
}

#endif
