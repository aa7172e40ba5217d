#!/bin/bash
# Session 39, issue 42 item 2: slices in flight in the fp16 GEMM skeleton
# (templates/include/coopmat_gemm.glsl, CM_PREFETCH = 1, 2, 3; 1 is what
# matmul_f16.comp and the DEQUANT_STAGE=2 GEMM, include/coopmat_quant_x.glsl,
# define today). Each arm is a copy of this tree's templates with that one
# define changed; each tunes exhaustively over the winners' neighbourhood,
# cold caches, its own database, with this commit's vktune (tolerances as
# committed: a wrong product fails its variant).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
vktune --version > "$OUT/version.txt" 2>&1
for pf in 1 2 3; do
  rm -rf /tmp/pf$pf && cp -r templates /tmp/pf$pf
  sed -i "s/^#define CM_PREFETCH 1$/#define CM_PREFETCH $pf/" /tmp/pf$pf/matmul_f16.comp /tmp/pf$pf/include/coopmat_quant_x.glsl
  diff -ru templates /tmp/pf$pf > "$OUT/arm_P$pf.diff"
done
f16="--only CM_SHAPE=0 --only TILE_M=128 --only TILE_N=128,256 --only TILE_K=32,64 --only WARPS_M=2,4 --only WARPS_N=2,4
  --only CM_STAGES=1,2 --only VEC=8 --only USE_COOPMAT=1 --only THREAD_M=4 --only THREAD_N=4"
q4k="--only DEQUANT_STAGE=2 --only DQ_RUN=8 --only DQ_WG=256 --only TILE_M=128 --only TILE_N=128,256 --only TILE_K=32,64
  --only CM_SHAPE=0 --only WARPS_M=2,4 --only WARPS_N=2,4"
run() {  # kernel shape arm options...
  local kernel=$1 shape=$2 pf=$3; shift 3
  local start=$(date +%s)
  rm -f /tmp/d.db*
  timeout 70 vktune $kernel --device 0 -s $shape --templates /tmp/pf$pf --strategy exhaustive "$@" \
    --time 50s --seed 39 --db /tmp/d.db > "$OUT/${kernel}_${shape}_P$pf.txt" 2> "$OUT/${kernel}_${shape}_P$pf.stderr.txt"
  echo "$kernel $shape P$pf exit $? in $(( $(date +%s) - start )) s" >> "$OUT/log.txt"
}
for pf in 1 2 3; do run matmul_f16 4096,4096,4096 $pf $f16; done
for pf in 1 2 3; do run matmul_f16 512,4096,14336 $pf $f16; done
for pf in 1 2 3; do run matmul_q4k 512,4096,14336 $pf $q4k; done
