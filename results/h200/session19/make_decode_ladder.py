#!/usr/bin/env python3
"""Session 19: issue 20's decode stage ladder. Writes copies of templates/
under exp/ (ignored), each with one stage of the integer-dot decode walk
(include/matvec_q8_walk*.glsl, x_q8.glsl, and the Q6_K and Q4_0/Q8_0 block
parts) left out:
  D1  no x quantization: quantize_segment stores constant codes and scales
      (no x loads, no shuffles), so the walk's loads and math are the kernel;
  D2  no math: each unit's loaded words are folded into acc by a popcount of
      their xor (every load kept, no unpacking, no dot products);
  D3  no weight loads: each unit's words are made from its index and row
      (the math kept, no global loads of W);
  D4  neither walk nor quantization: the dispatch, the reduction and the
      stores only (the floor of this grid as vktune times it);
  D5  Q6_K only: the kernel with every block taken as 16-byte aligned (its
      byte offset in its first vector forced to 0, so the realignment's
      selects and shifts fold away; same loads, wrong numbers);
  D6  D3 with D5's offset: the math alone, without the realignment.
Run from the repository root; the experiments need a vktune built with
matmul_q*'s tolerance at 1e30 (their numbers are wrong, and finite).
"""
import pathlib, re, shutil, sys

root = pathlib.Path(".")
src = root / "templates"


def edit(path, old, new):
    text = path.read_text()
    if old not in text:
        sys.exit(f"{path}: pattern not found: {old[:60]!r}")
    path.write_text(text.replace(old, new, 1))


def copy(name):
    dst = root / "exp" / name
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    return dst


# D1: constant codes (1 in every byte) and scales (dx = 1/127, sum 0).
d = copy("D1")
p = d / "include" / "x_q8.glsl"
text = p.read_text()
start = text.index("void quantize_segment(uint k0, uint len) {")
end = text.index("#endif", start)
text = text[:start] + """void quantize_segment(uint k0, uint len) {
  const uint tid = gl_LocalInvocationID.x;
  for (uint w = tid; w < C * SEG / 4u; w += WG_SIZE) xq[w] = 0x01010101u;
  for (uint g = tid; g < C * SEG / 32u; g += WG_SIZE) xds[g] = vec2(1.0 / 127.0, 0.0);
}

""" + text[end:]
p.write_text(text)

# D2: the loads, folded without math.
d = copy("D2")
edit(d / "matvec_q6k_q8.comp", "void math_unit(uint lb, Unit v) {", """void math_unit(uint lb, Unit v) {
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    uvec4 f = v.sd[i][0] ^ v.sd[i][1];
    [[unroll]] for (uint l = 0; l < 3u; ++l) f ^= v.ql[i][l] ^ v.qh[i][l];
    acc[i][0] += float(bitCount(f.x ^ f.y ^ f.z ^ f.w ^ v.o[i]));
  }
}
void math_unit_unused(uint lb, Unit v) {""")
edit(d / "matvec_q4_0_q8.comp", "void math_unit(uint lg, Unit v) {", """void math_unit(uint lg, Unit v) {
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    uint f = 0u;
    [[unroll]] for (uint k = 0; k < LW; ++k) f ^= v.wd[i][k];
    acc[i][0] += float(bitCount(f));
  }
}
void math_unit_unused(uint lg, Unit v) {""")

# D3: words made from the unit index and row (masked so every fp16 scale
# stays finite), no weight loads.
d = copy("D3")
edit(d / "matvec_q6k_q8.comp", "void load_unit(uint b, out Unit v) {", """void load_unit(uint b, out Unit v) {
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uint a = row_base[i] + 210u * b;
    v.o[i] = a & 14u;
    [[unroll]] for (uint l = 0; l < 3u; ++l) {
      v.ql[i][l] = uvec4(a * 0x9E3779B9u + l, a ^ 0x5bd1e995u, a + hf, a * 7u) & 0x3F3F3F3Fu;
      v.qh[i][l] = uvec4(a + l, a * 3u, a ^ j0, a * 0x85ebca6bu) & 0x3F3F3F3Fu;
    }
    v.sd[i][0] = uvec4(a, a + 1u, a + 2u, a + 3u) & 0x3F3F3F3Fu;
    v.sd[i][1] = uvec4(a * 5u, a * 9u, a * 13u, a * 17u) & 0x3F3F3F3Fu;
  }
}
void load_unit_unused(uint b, out Unit v) {""")
edit(d / "matvec_q4_0_q8.comp", "void load_unit(uint g, out Unit v) {", """void load_unit(uint g, out Unit v) {
  [[unroll]] for (uint i = 0; i < RT; ++i) {
    const uint v0 = row_base[i] + g * GV + lv0;
    [[unroll]] for (uint k = 0; k < LW; ++k) v.wd[i][k] = (v0 * 0x9E3779B9u + k * 0x85ebca6bu) & 0x3F3F3F3Fu;
  }
}
void load_unit_unused(uint g, out Unit v) {""")

# D4: the walk and the quantization left out.
d = copy("D4")
p = d / "include" / "matvec_q8_walk_main.glsl"
text = p.read_text()
start = text.index("  for (uint k0 = 0u; k0 < K; k0 += SEG) {")
end = text.index("  reduce_and_store(")
p.write_text(text[:start] + "#endif  // X_SCOPE\n" + text[end:])  # the X_SCOPE=0 walk's #endif went with it
# D5: the realignment folded away (offset 0).
d = copy("D5")
edit(d / "matvec_q6k_q8.comp", "    v.o[i] = a & 15u;", "    v.o[i] = 0u;")

# D6: D3 with offset 0.
d = copy("D6")
shutil.rmtree(d)
shutil.copytree(root / "exp" / "D3", d)
edit(d / "matvec_q6k_q8.comp", "    v.o[i] = a & 14u;", "    v.o[i] = 0u;")
print("exp/D1..D6 written")
