#!/bin/bash
# Session 50, call 4 (issue 41 items 2 and 3): a new user's journey with
# the split kernels: an empty database, `vktune model --time 4m --context
# 128 --prompt 0` of the random-weight Llama-3-8B (its decode ops, the
# matmul_q6k_split ones in place of the GGUF Q6_K products), then
# `vktune step` of what it tuned, both chains (the tuned one with the split
# layout, and --gguf-layouts, whose Q6_K products then run their
# baselines: the untuned GGUF kernels).
set -u
source measurements/device_env.sh
start_call
rm -f /tmp/new.db*
make_llama
( time vktune model /tmp/l.gguf --device 0 --time 4m --context 128 --prompt 0 --db /tmp/new.db --seed 5 ) \
  > "$OUT/model.txt" 2> "$OUT/model_stderr.txt"
echo "model exit $?" >> "$OUT/log.txt"
run "step split ctx 128" timeout 80 vktune step /tmp/l.gguf --device 0 --context 128 --db /tmp/new.db --seed 3 \
  > "$OUT/step_split_ctx128.txt" 2>> "$OUT/log.txt"
run "step gguf ctx 128" timeout 80 vktune step /tmp/l.gguf --device 0 --context 128 --db /tmp/new.db --seed 3 \
  --tuned --gguf-layouts > "$OUT/step_gguf_ctx128.txt" 2>> "$OUT/log.txt"
tail -c 200000 "$OUT/model_stderr.txt" > "$OUT/model_stderr_tail.txt"; rm "$OUT/model_stderr.txt"
