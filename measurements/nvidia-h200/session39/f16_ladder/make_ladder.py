#!/usr/bin/env python3
"""Session 39, issue 42 item 2: the stage ladder of the fp16 tensor-core GEMM
skeleton (templates/include/coopmat_gemm.glsl), the CM_PREFETCH=1 loop that
matmul_f16's winners and the quantized prefill's DEQUANT_STAGE=2 GEMM run.

make_ladder.py TEMPLATES OUT_DIR ARM writes a copy of TEMPLATES into OUT_DIR
whose skeleton leaves one stage out (the numbers it computes are wrong and
finite, so it runs with a vktune whose matmul_f16 tolerance is 1e30,
tolerance.patch):
  L0  as committed
  L1  no global loads: each chunk made from its index (halves in [1, 2))
  L2  no global loads and no staging: slice 0 staged once, every later slice
      multiplies what shared memory holds (the products and both barriers)
  L3  L2 without the barriers after slice 0 (the products from shared memory)
  L4  one product a slice (the first matrix pair at the first k step): the
      global loads, the staging and the barriers
"""
import shutil
import sys

src, dst, arm = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.copytree(src, dst)
path = f"{dst}/include/coopmat_gemm.glsl"
s = open(path).read()


def sub(old, new):
    global s
    if s.count(old) != 1:
        sys.exit(f"make_ladder: {old!r} found {s.count(old)} times")
    s = s.replace(old, new)


if arm in ("L1", "L2", "L3"):
    sub("? gemm_load_a(m0 + row, k) : A_RAW_ZERO;", "? A_RAW(0x3C003C00u | (c & 0x3FFu)) : A_RAW_ZERO;")
    sub("? gemm_load_b(n0 + row, k) : B_RAW_ZERO;", "? B_RAW(0x3C003C00u | (c & 0x3FFu)) : B_RAW_ZERO;")
if arm in ("L2", "L3"):
    sub("    STAGE(buf);\n    barrier();\n    if (s + 1u < slices) FETCH(s + 1u);",
        "    if (s == 0u) { STAGE(buf); barrier(); }\n" +
        ("" if arm == "L3" else "    else barrier();\n"))
if arm == "L3":
    sub("#if CM_STAGES == 1\n    barrier();\n#endif\n  }\n#else", "  }\n#else")
if arm == "L4":
    sub("          acc[i * TILES_N + j] = coopMatMulAddNV(fa[i], fb[j], acc[i * TILES_N + j]);",
        "          if (i + j == 0u && kk == 0u) acc[0] = coopMatMulAddNV(fa[i], fb[j], acc[0]);")
open(path, "w").write(s)
