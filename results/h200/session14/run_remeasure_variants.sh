#!/bin/bash
# Session 14: `vktune devices --remeasure` twice with each given copy of the
# templates (exp/NAME, carried; VKTUNE_TEMPLATES selects it), each copy
# changing one ceiling kernel, into $OUT/RESULT.txt. Used with
#   ladder l1 l2    from the tensor-core ceiling towards the GEMM, one
#                   element at a time, read as the "from shared memory"
#                   ceiling (exp/l1: a barrier every 32-deep slice; exp/l2:
#                   the slice's staging stores to shared memory too, half of
#                   a 128×128 tile's);
#   l2 l2w8 l2w24   the L2 read bandwidth: ceiling_read.comp's 1 GiB of reads
#                   folded into an 8 or 24 MiB window, read as the "read"
#                   ceiling.
# Run from the repository root.
set -u
source results/h200/session12/device_env.sh
result=$1; shift
for v in "$@"; do
  for i in 1 2; do
    VKTUNE_TEMPLATES=exp/$v vktune devices --remeasure --device 0 --db /tmp/$v.db 2>&1 | sed "s/^/$v: /" >> "$OUT/$result.txt"
  done
done
