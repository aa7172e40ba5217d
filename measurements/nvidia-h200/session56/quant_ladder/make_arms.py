#!/usr/bin/env python3
"""make_arms.py SRC DST ARM: a copy of the templates folder SRC at DST whose
DEQUANT_STAGE=2 pre-passes leave work out, for the quantized prefill
products' stage ladder (session 56, issue 42 item 3). The arms compute
wrong, finite numbers (W16 is a zero-filled scratch buffer), so they run
with vktune-ladder (tolerance.patch). Arms:
  Q0     as committed: dequant_f16, round_x_f16, the GEMM stage
  nodq   dequant_f16 returns at once (W16's weights stay zero)
  zerodq dequant_f16 writes its halves as zeros without reading W: the
         write alone
  norx   round_x_f16 returns at once (x's halves stay zero)
  gemm   both pre-passes return at once: the GEMM stage alone, with two
         empty dispatches and their barriers before it
  onebuf Q0 with the GEMM stage's W loads through x16, the block that
         declares binding 3 for x's loads, so that one declaration serves
         both (call 3: is the second declaration of the binding the cost?)
  gemm_onebuf  gemm and onebuf together
"""
import shutil
import sys

src, dst, arm = sys.argv[1:4]
shutil.copytree(src, dst)


def edit(name, old, new):
    path = f"{dst}/{name}"
    text = open(path).read()
    if text.count(old) != 1:
        sys.exit(f"{name}: expected one '{old}'")
    open(path, "w").write(text.replace(old, new))


RETURN = ("void main() {", "void main() {\n  return;")
if arm in ("nodq", "gemm"):
    edit("dequant_f16.comp", *RETURN)
if arm in ("norx", "gemm"):
    edit("round_x_f16.comp", *RETURN)
if arm in ("onebuf", "gemm_onebuf"):
    edit("matmul_quant_cm_f16w.comp", "B_RAW gemm_load_b(uint n, uint k) { return w16[(n * K + k) / CM_VEC]; }",
         "B_RAW gemm_load_b(uint n, uint k) { return x16[(n * K + k) / CM_VEC]; }")
if arm == "gemm_onebuf":
    edit("dequant_f16.comp", *RETURN)
    edit("round_x_f16.comp", *RETURN)
if arm == "zerodq":
    edit("dequant_f16.comp", "  const uint out0 = (n * K + k0) / 8u;\n",
         "  const uint out0 = (n * K + k0) / 8u;\n"
         "  [[unroll]] for (uint i = 0; i < DQ_RUN / 8; ++i) w16[out0 + i] = uvec4(0u);\n"
         "  if (out0 != 0xffffffffu) return;\n")
if arm not in ("Q0", "nodq", "zerodq", "norx", "gemm", "onebuf", "gemm_onebuf"):
    sys.exit(f"unknown arm {arm}")
