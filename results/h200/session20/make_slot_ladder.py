#!/usr/bin/env python3
"""Session 20: the decode stage ladder of session 19 for the slot-scope walk
(X_SCOPE=1), which every H200 decode winner now uses. Runs session 19's
make_decode_ladder.py (exp/D1..D6: D2 no math and D3 no weight loads apply
to both scopes), then writes
  S1  no x quantization: quantize_unit stores constant codes and scales
      (no x loads, no shuffles);
  S4  neither walk nor quantization: the dispatch, the reduction and the
      stores only;
  S7  D3 and S1 together: no weight loads and no x quantization, so the
      unpacking, the dot products and the reduction are the kernel.
Run from the repository root; the experiments need a vktune built with
matmul_q*'s tolerance at 1e30 (session19/tolerance_decode.patch).
"""
import pathlib, runpy, shutil, sys

root = pathlib.Path(".")
runpy.run_path(str(root / "results/h200/session19/make_decode_ladder.py"))

CONSTANT_X = """void quantize_unit(uint u, uint r) {
  const uint lane = gl_LocalInvocationID.x % (WG_SIZE / S);
  for (uint w = lane; w < 64u; w += WG_SIZE / S) {
    [[unroll]] for (uint c = 0; c < C; ++c) xq[(c * SEG + r * 256u) / 4u + w] = 0x01010101u;
  }
  for (uint g = lane; g < 8u; g += WG_SIZE / S) {
    [[unroll]] for (uint c = 0; c < C; ++c) xds[(c * SEG + r * 256u) / 32u + g] = vec2(1.0 / 127.0, 0.0);
  }
}
"""


def copy(base, name):
    dst = root / "exp" / name
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(base, dst)
    return dst


def constant_x(d):
    p = d / "include" / "matvec_q8_walk_main.glsl"
    text = p.read_text()
    start = text.index("void quantize_unit(uint u, uint r) {")
    end = text.index("#endif", start)
    p.write_text(text[:start] + CONSTANT_X + text[end:])


constant_x(copy(root / "templates", "S1"))
constant_x(copy(root / "exp" / "D3", "S7"))

d = copy(root / "templates", "S4")
p = d / "include" / "matvec_q8_walk_main.glsl"
text = p.read_text()
start = text.index("  const uint steps = (nu + S * U - 1u) / (S * U);")
end = text.index("#else", start)
if "reduce_and_store(" not in text[end:]:
    sys.exit("S4: the walk's layout changed")
p.write_text(text[:start] + text[end:])
print("exp/S1, S4, S7 written")
