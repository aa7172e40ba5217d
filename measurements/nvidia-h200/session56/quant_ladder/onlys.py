#!/usr/bin/env python3
"""onlys.py TABLE KERNEL SHAPE [f16]: the --only flags that pin every
parameter of KERNEL's winner at SHAPE in TABLE (the fastest stored); with
f16, the matmul_f16 config of the same GEMM stage (the quantized winner's
tiles, subgroups, shape and slices in flight; matmul_f16's own 16-byte loads
and one shared-memory buffer, which the DEQUANT_STAGE=2 GEMM stage has)."""
import json
import sys

table, kernel, shape = sys.argv[1:4]
best = None
for w in json.load(open(table))["winners"]:
    if w["kernel"] == kernel and w["shape"] == shape and (best is None or w["median_ns"] < best["median_ns"]):
        best = w
if best is None:
    sys.exit(f"no winner of {kernel} at {shape}")
c = best["config"]
if len(sys.argv) > 4:
    keep = ("TILE_M", "TILE_N", "TILE_K", "CM_SHAPE", "WARPS_M", "WARPS_N", "CM_PREFETCH")
    c = {k: c[k] for k in keep}
    c.update(USE_COOPMAT=1, VEC=8, CM_STAGES=1, THREAD_M=4, THREAD_N=4)
print(" ".join(f"--only {k}={v}" for k, v in sorted(c.items())))
