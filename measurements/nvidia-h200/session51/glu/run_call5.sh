#!/bin/bash
# Session 51, call 5 (issue 41 item 2): call 4's drift check again, with
# vktune-bench carried this time (call 4 ran without it: exit 5 for each):
# the committed table imported alone on a GPU that tuned none of it, then
# `vktune bench --max-drift 10` of the three _glu-way kernels' winners.
set -u
source measurements/device_env.sh
start_call
import_table /tmp/t.db
for kernel in matmul_q4k_glu matmul_q4k_resnorm matmul_q6k_split_resnorm; do
  run "bench $kernel --max-drift 10" timeout 120 vktune bench $kernel --device 0 --db /tmp/t.db --max-drift 10 \
    > "$OUT/bench_$kernel.txt" 2>> "$OUT/log.txt"
done
