#!/usr/bin/env python3
"""Session 40, issue 42 item 1: a copy of the templates whose int8 GEMM
(templates/matmul_quant_cm_i8.comp) turns each group's int32 products into
fp32 by adding 1.5 * 2^23's bits and subtracting 1.5 * 2^23 (exact for
|P| < 2^22; |P| <= 32 * 128 * 127 here) instead of an int-to-float
conversion of the matrix, the first measured limit of the GEMM
(../int8_ladder/, call 3: 56 of 152 us at 512,4096,4096). It reads element e
of the int32 product and of the fp32 accumulator as the same (row, column):
true where the two 32-bit types share a layout, and checked by every
variant's validation. Usage: make_arm.py TEMPLATES OUT_DIR"""
import shutil, sys, pathlib

src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
shutil.rmtree(dst, ignore_errors=True)
shutil.copytree(src, dst)
f = dst / "matmul_quant_cm_i8.comp"
t = f.read_text()
old_p = "ACC p = ACC(coopMatMulAddNV(fa[i], fb, izero));"
assert old_p in t and t.count("p[e] *") == 2
t = t.replace(old_p, "icoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N> p = coopMatMulAddNV(fa[i], fb, izero);")
t = t.replace("p[e] *", "(intBitsToFloat(p[e] + 0x4B400000) - 12582912.0) *")
f.write_text(t)
