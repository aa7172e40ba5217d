// Shared by the elementwise templates (swiglu, gelu, add): the ROWS*N floats
// of every buffer are one flat array. Workgroup w (x fastest, then y) takes
// the WG_SIZE*EPT vectors of VEC floats from w*WG_SIZE*EPT on; invocation t
// takes vectors t, t + WG_SIZE, ... (coalesced, all loads before any
// arithmetic). Workgroups past the end do nothing. The last total % VEC
// floats go through one padded vector in the workgroup that holds the end.
//
// Before including: WG_SIZE, VEC, EPT; INPUTS (1 or 2); push constants ROWS
// and N; buffers a (as_s/as_v) [, b (bs_s/bs_v)] and y (ys_s/ys_v), each
// declared as float and VTYPE arrays; `VTYPE op(VTYPE a[, VTYPE b])`; the
// extension GL_EXT_control_flow_attributes. An includer whose inputs are
// laid out otherwise than y defines A_AT(i) and B_AT(i), the vector of each
// input that output vector i reads, and must leave no tail (VEC divides N).
#ifndef A_AT
#define A_AT(i) (i)
#define B_AT(i) (i)
#endif
void main() {
  const uint total = ROWS * N;
  const uint nv = total / VEC;
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint first = group * (WG_SIZE * EPT);
  const uint t = gl_LocalInvocationID.x;

  VTYPE a[EPT];
#if INPUTS == 2
  VTYPE b[EPT];
#endif
  [[unroll]] for (uint e = 0u; e < EPT; ++e) {
    const uint i = first + e * WG_SIZE + t;
    if (i < nv) {
      a[e] = as_v[A_AT(i)];
#if INPUTS == 2
      b[e] = bs_v[B_AT(i)];
#endif
    }
  }
  [[unroll]] for (uint e = 0u; e < EPT; ++e) {
    const uint i = first + e * WG_SIZE + t;
#if INPUTS == 2
    if (i < nv) ys_v[i] = op(a[e], b[e]);
#else
    if (i < nv) ys_v[i] = op(a[e]);
#endif
  }

#if VEC > 1
  const uint tail = nv * VEC;
  if (t == 0u && tail < total && nv >= first && nv < first + WG_SIZE * EPT) {
    VTYPE ta = VTYPE(0.0);
#if INPUTS == 2
    VTYPE tb = VTYPE(0.0);
#endif
    for (uint k = 0u; k < total - tail; ++k) {
      ta[k] = as_s[tail + k];
#if INPUTS == 2
      tb[k] = bs_s[tail + k];
#endif
    }
#if INPUTS == 2
    const VTYPE r = op(ta, tb);
#else
    const VTYPE r = op(ta);
#endif
    for (uint k = 0u; k < total - tail; ++k) ys_s[tail + k] = r[k];
  }
#endif
}
