#!/usr/bin/env python3
"""Session 40, issue 42 item 1: template copies of the int8 GEMM
(templates/matmul_quant_cm_i8.comp) that each leave a stage out, for a
ladder of what its time goes to. The copies compute wrong numbers: they run
under a vktune whose int8 tolerance is 1e30 (tolerance.patch; not in the
tree's code). Usage: make_ladder.py TEMPLATES OUT_ROOT"""
import re, shutil, sys, pathlib

src, root = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
ACC_I = "icoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>"
SCALE = re.compile(r"^ *for \(int e = 0; e < p\.length\(\); \+\+e\) acc\[t\]\[e\] \+=.*$", re.M)


def no_offset_term(t):  # the offset's product left out (its loads dead)
    return t.replace("- sx[i][e] * wb[e];", ";")


def no_scales(t):  # P converted and added, no scale applied (their loads dead)
    return SCALE.sub("          for (int e = 0; e < p.length(); ++e) acc[t][e] += p[e];", t)


def int32_accumulate(t):  # the products accumulated in int32, converted once at the end
    t = SCALE.sub("", t)
    t = t.replace("ACC p = ACC(coopMatMulAddNV(fa[i], fb, izero));",
                  "iacc[i * TILES_N + j] = coopMatMulAddNV(fa[i], fb, iacc[i * TILES_N + j]);")
    t = t.replace("acc[t] = ACC(0.0);",
                  f"acc[t] = ACC(0.0);\n  {ACC_I} iacc[TILES_M * TILES_N];\n"
                  f"  [[unroll]] for (uint t = 0; t < TILES_M * TILES_N; ++t) iacc[t] = {ACC_I}(0);", 1)
    return t.replace("  [[unroll]] for (uint i = 0; i < TILES_M; ++i) {\n    [[unroll]] for (uint j = 0; j < TILES_N; ++j) {\n      const uint gm",
                     "  [[unroll]] for (uint t = 0; t < TILES_M * TILES_N; ++t) acc[t] = ACC(iacc[t]);\n"
                     "  [[unroll]] for (uint i = 0; i < TILES_M; ++i) {\n    [[unroll]] for (uint j = 0; j < TILES_N; ++j) {\n      const uint gm")


def prep_only(t):  # the GEMM's loop left out: the two first dispatches and an empty third
    return t.replace("const uint slices = (K + BK - 1u) / BK;", "const uint slices = 0u;")


arms = {"as_committed": lambda t: t, "no_offset_term": no_offset_term, "no_scales": no_scales,
        "int32_accumulate": int32_accumulate, "prep_only": prep_only}
for name, change in arms.items():
    dst = root / name
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    f = dst / "matmul_quant_cm_i8.comp"
    text = f.read_text()
    new = change(text)
    assert name == "as_committed" or new != text, name
    f.write_text(new)
