#!/bin/bash
# For the next H200 call (issue 21's last item; session 14's tables of these
# specs are an H100's): the fp16-mode specs (examples/fp16) tuned at their
# default shapes, one database, table exported, Google Benchmark report of
# the winners. About 4 minutes. Run from the repository root with .gl,
# .dist/bin/vktune, .dist/bin/vktune-bench and .dist/lib.
set -u
source measurements/device_env.sh
export LD_LIBRARY_PATH=$PWD/.dist/lib
T=$(mktemp -d)  # this run's databases and logs (runs on several GPUs go side by side)
for spec in rmsnorm_f16:30 layernorm_f16:30 softmax_f16:30 add_f16:20 swiglu_f16:20 gelu_f16:20 rope_f16_io:30; do
  name=${spec%%:*} seconds=${spec##*:}
  vktune examples/fp16/$name.json --device ${DEV:-0} --time ${seconds}s --seed 18 --top 3 --db $T/fp16.db > $T/t.txt 2>&1
  { echo "== $name exit $?"; grep -E "winner .* vs|^ +1  " $T/t.txt | cut -c1-220; } >> "$OUT/fp16_specs.txt"
done
vktune export --db $T/fp16.db > "$OUT/fp16_specs_table.json" 2>> "$OUT/fp16_specs.txt"
specs=(examples/fp16/{rmsnorm,layernorm,softmax,add,swiglu,gelu}_f16.json examples/fp16/rope_f16_io.json)  # bench knows a spec kernel by its file
vktune bench "${specs[@]}" --db $T/fp16.db --device ${DEV:-0} -- --benchmark_format=json > "$OUT/fp16_specs_bench.json" 2>> "$OUT/fp16_specs.txt"
