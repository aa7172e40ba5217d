#!/bin/bash
# Session 14: the f16 tensor-core GEMM's pipeline, one template change at a
# time (exp/<name>/: a copy of templates/ with exp_patches/matmul_f16_<name>.patch
# applied, carried): base (as committed), pf2 (two register sets: global loads two
# slices ahead), interior (no bounds checks in whole tiles), swz (workgroups
# in groups of 8 tile rows for L2 reuse), all (the three together). The same
# tensor-core configs per template (4 of the 8 listed are legal) at two shapes, exhaustive, fresh
# database, fixed seed. If the call lands on an H200, issue 19's step runs
# first (session 13's script). Run from the repository root.
set -u
source results/h200/session12/device_env.sh
if grep -q H200 "$OUT/gpu.txt"; then
  OUT_MAIN=$OUT; mkdir -p "$OUT/step"; OUT=$OUT/step bash results/h200/session13/run_step.sh; OUT=$OUT_MAIN
fi
for v in base pf2 interior swz all; do
  vktune matmul_f16 --device 0 --templates exp/$v --shape 4096,4096,4096 --shape 512,4096,4096 \
    --only USE_COOPMAT=1 --only TILE_M=128,256 --only TILE_N=128 --only TILE_K=32 --only CM_SHAPE=0,1 \
    --only WARPS_M=2,4 --only WARPS_N=2 --only VEC=8 --only CM_STAGES=2 --strategy exhaustive --no-transfer \
    --time 75s --seed 14 --top 8 --db /tmp/gemm_$v.db > /tmp/gemm_$v.txt 2>&1
  echo "== $v exit $?" >> "$OUT/gemm.txt"
  grep -v -E "^\s*\[|compil|ETA" /tmp/gemm_$v.txt | tail -40 >> "$OUT/gemm.txt"
done
