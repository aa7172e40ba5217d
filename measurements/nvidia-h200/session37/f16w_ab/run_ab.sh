#!/bin/bash
# Session 37, issue 42 items 2-3: the quantized prefill's dequantize-first
# GEMM (templates/matmul_quant_cm_f16w.comp) with the staging choices the
# shared include (templates/include/coopmat_quant_x.glsl) lets its
# including template make, A/B in one call on one H200. Arms (each a copy
# of this tree's templates with defines put before the include):
#   A  as committed: chunks of 4 (x as one vec4, W16 8-byte loads), each
#      slice loaded at its turn (QX_PREFETCH 0), one shared buffer
#   B  QX_VEC 8: x as two vec4 loads, W16 16-byte loads
#   C  B + QX_PREFETCH 1: the next slice's loads in flight during the products
#   D  C + QX_STAGES 2: two shared buffers, one barrier per slice
# The QX_* switches are not in the committed templates (the A/B did not
# adopt them): each arm's copy gets qx_defines.patch first (as run in
# call 1, where the working tree had it applied).
# Each arm tunes matmul_q4k at two M = 512 shapes exhaustively over the
# committed winners' neighbourhood (DEQUANT_STAGE=1, 128x128 tiles, TILE_K
# 32 or 64, every CM_SHAPE and warp layout), cold weights, its own database.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
arm_defines() {
  case $1 in
    A) echo "" ;;
    B) echo "#define QX_VEC 8" ;;
    C) printf '#define QX_VEC 8\n#define QX_PREFETCH 1\n' ;;
    D) printf '#define QX_VEC 8\n#define QX_PREFETCH 1\n#define QX_STAGES 2\n' ;;
  esac
}
for arm in A B C D; do
  rm -rf /tmp/exp_$arm && cp -r templates /tmp/exp_$arm
  (cd /tmp/exp_$arm && patch -s -p2 < "$OLDPWD/measurements/nvidia-h200/session37/f16w_ab/qx_defines.patch")
  defs=$(arm_defines $arm)
  if [ -n "$defs" ]; then
    python3 - /tmp/exp_$arm/matmul_quant_cm_f16w.comp "$defs" <<'PY'
import sys
p, defs = sys.argv[1], sys.argv[2]
s = open(p).read()
s = s.replace('#include "coopmat_quant_x.glsl"', defs + '\n#include "coopmat_quant_x.glsl"', 1)
open(p, 'w').write(s)
PY
  fi
  diff -u templates/matmul_quant_cm_f16w.comp /tmp/exp_$arm/matmul_quant_cm_f16w.comp > "$OUT/arm_$arm.diff"
done
for shape in 512,14336,4096 512,4096,4096; do
  for arm in A B C D; do
    start=$(date +%s)
    rm -f /tmp/ab_$arm.db*
    timeout 150 vktune matmul_q4k --device 0 -s $shape --templates /tmp/exp_$arm --strategy exhaustive \
      --only DEQUANT_STAGE=1 --only TILE_M=128 --only TILE_N=128 --only TILE_K=32,64 --only DQ_WG=256 --only DQ_RUN=8 \
      --time 120s --seed 37 --db /tmp/ab_$arm.db > "$OUT/tune_${shape}_$arm.txt" 2> "$OUT/tune_${shape}_$arm.stderr.txt"
    echo "arm $arm $shape exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
  done
done
# pct_peak of the tensor-core winners when the database holds no tensor
# ceiling (a table imported into an empty database): `vktune bench` now
# measures that ceiling for its run (session 36 saw 328% of the FMA one).
rm -f /tmp/b.db*
vktune import measurements/nvidia-h200/table.json --db /tmp/b.db > "$OUT/import.txt" 2>&1
echo "import exit $?" >> "$OUT/log.txt"
timeout 120 vktune bench matmul_f16 --device 0 --db /tmp/b.db -- --benchmark_format=json > "$OUT/bench_matmul_f16.json" \
  2> "$OUT/bench_matmul_f16.stderr.txt"
echo "bench matmul_f16 exit $?" >> "$OUT/log.txt"
