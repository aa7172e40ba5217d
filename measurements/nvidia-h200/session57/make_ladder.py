#!/usr/bin/env python3
"""Session 57, issue 42 item 3: the stage ladder of the fp16 tensor-core GEMM
skeleton (templates/include/coopmat_gemm.glsl) as it is today, with its
slices in flight (CM_PREFETCH 1 or 2), at the two M = 512 shapes where
matmul_f16 stays below 250 TFLOP/s. Session 39's ladder (session39/f16_ladder/)
measured the skeleton before CM_PREFETCH existed, at other shapes.

make_ladder.py TEMPLATES OUT_DIR ARM writes a copy of TEMPLATES into OUT_DIR
whose skeleton leaves stages out (the numbers it computes are wrong and
finite: it runs with a vktune whose matmul_f16 tolerance is 1e30,
session39/f16_ladder/tolerance.patch):
  L0  as committed
  L1  no global loads: each chunk made from its index (halves in [1, 2))
  L2  no global loads and no staging: slice 0 staged once, every later slice
      multiplies what shared memory holds (the products and the barriers)
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
    sub("        STAGE(p, buf);\n        barrier();\n        if (s + CM_PREFETCH < slices) FETCH(p, s + CM_PREFETCH);\n",
        "        if (s == 0u) { STAGE(p, buf); barrier(); }\n" + ("" if arm == "L3" else "        else barrier();\n"))
if arm == "L3":
    sub("        MULTIPLY(buf);\n#if CM_STAGES == 1\n        barrier();\n#endif\n", "        MULTIPLY(buf);\n")
if arm == "L4":
    sub("acc[i * TILES_N + j] = coopMatMulAddNV(fa[i], fb[j], acc[i * TILES_N + j]);",
        "if (i + j == 0u && kk == 0u) acc[0] = coopMatMulAddNV(fa[i], fb[j], acc[0]);")
open(path, "w").write(s)
