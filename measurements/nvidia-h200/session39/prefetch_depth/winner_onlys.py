#!/usr/bin/env python3
"""winner_onlys.py TABLE: for each tensor-core prefill winner of an exported
table that reads CM_PREFETCH (matmul_f16 with USE_COOPMAT=1, a quantized
kernel with DEQUANT_STAGE=2), the fastest stored per kernel and shape, one
line: KERNEL SHAPE --only NAME=VALUE ... --only CM_PREFETCH=1,2, so that a
tune measures that config with one slice in flight and with two."""
import json
import sys

best = {}
for w in json.load(open(sys.argv[1]))["winners"]:
    c = w["config"]
    if int(w["shape"].split(",")[0]) <= 8 or c.get("USE_COOPMAT") != 1:
        continue
    if w["kernel"] != "matmul_f16" and c.get("DEQUANT_STAGE") != 2:
        continue
    key = (w["kernel"], w["shape"])
    if key not in best or w["median_ns"] < best[key]["median_ns"]:
        best[key] = w
for (kernel, shape), w in sorted(best.items()):
    onlys = " ".join(f"--only {k}={v}" for k, v in sorted(w["config"].items()) if k != "CM_PREFETCH")
    print(f"{kernel} {shape} {onlys} --only CM_PREFETCH=1,2")
