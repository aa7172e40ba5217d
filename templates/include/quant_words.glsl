// The quantized weight buffer (binding 1) as 32-bit words, and reads at the
// 2-byte alignment of GGUF blocks. Rows of Q4_0 (18-byte), Q8_0 (34-byte)
// and Q6_K (210-byte) blocks leave most blocks only 2-byte aligned, so their
// fields are read as words and funnel-shifted; no 8- or 16-bit storage
// feature is needed.
//
// Every block header (q4_0.glsl, q8_0.glsl, q5k.glsl, q6k.glsl) includes this
// file and defines the same small interface, which the generic quantized
// matmul templates (matvec_quant.comp, matmul_quant.comp) are written against:
//   QB_WEIGHTS     weights per block (32 or 256)
//   QB_BYTES       bytes per block
//   QB_HAS_OFFSET  1 when a weight is a*q - b with b != 0 (Q5_K), else 0
//   qb_run(blk, r, q, a, b)
//                  run r (0..QB_WEIGHTS/4-1) of the block at byte `blk`: its
//                  4 consecutive weights 4r..4r+3 are a*q - b (integers q as
//                  floats). With `precise` products at the caller, a*q - b is
//                  bit-exact with reference/dequantize.cpp.
//   QB_UNITS, QB_UNIT_RUNS, qb_unit_run(u, i)
//                  the block as QB_UNITS units of QB_UNIT_RUNS runs each that
//                  share their loaded words (run i of unit u); matrix-vector
//                  threads take whole units.
//   qb_unit_i8(blk, u, q, a, m)
//                  for integer dot products (matvec_quant_q8.comp): run i of
//                  unit u as four signed-byte codes q[i], its weights being
//                  a[i]*code - m[i] (m = 0 unless QB_HAS_OFFSET).
//   qb_owns_min(u) with QB_HAS_OFFSET: whether unit u adds m*sum(x) over the
//                  whole 32-weight groups of its runs (exactly one unit per
//                  group does).
#ifndef VKTUNE_QUANT_WORDS_GLSL
#define VKTUNE_QUANT_WORDS_GLSL

// QW_WORD(i) is 32-bit word i of the weights. By default the weight buffer;
// a template that stages the weights elsewhere (matvec_quant_q8_staged.comp:
// a shared-memory copy) defines QW_WORD before including a block header, and
// the byte offsets passed to the functions below then count from the start
// of that copy.
#ifndef QW_WORD
layout(std430, set = 0, binding = 1) readonly buffer QWords { uint qwords[]; };
#define QW_WORD(i) qwords[i]
#endif

// The 4 bytes at byte offset `byte` (a multiple of 2) as one word.
uint qw_at(uint byte) {
  const uint i = byte >> 2u;
  if ((byte & 2u) == 0u) return QW_WORD(i);
  return (QW_WORD(i) >> 16u) | (QW_WORD(i + 1u) << 16u);
}

// The fp16 value at byte offset `byte` (a multiple of 2).
float qw_half(uint byte) { return unpackHalf2x16(QW_WORD(byte >> 2u) >> (8u * (byte & 2u))).x; }

// The signed byte at byte offset `byte`.
int qw_i8(uint byte) { return bitfieldExtract(int(QW_WORD(byte >> 2u)), int(8u * (byte & 3u)), 8); }

// Four bytes below 128 each minus `bias` (0..127), as signed bytes: the
// biased bytes never borrow from each other.
uint qw_sub_bias(uint w, uint bias) {
  const uint b4 = bias * 0x01010101u;
  return ((w | 0x80808080u) - b4) ^ 0x80808080u;
}

// The four bytes of a word as floats, unsigned (0..255) or signed.
vec4 qw_u8x4(uint w) { return vec4(w & 0xFFu, (w >> 8u) & 0xFFu, (w >> 16u) & 0xFFu, w >> 24u); }
vec4 qw_i8x4(uint w) {
  const int s = int(w);
  return vec4(bitfieldExtract(s, 0, 8), bitfieldExtract(s, 8, 8), bitfieldExtract(s, 16, 8), bitfieldExtract(s, 24, 8));
}

#endif
