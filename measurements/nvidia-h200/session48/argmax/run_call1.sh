#!/bin/bash
# Session 48, call 1 (issue 41 item 2): argmax's split rows (SPLIT_STEPS > 0:
# a workgroup per segment of a row, the last to finish picking the row's
# best). The committed table imported into two databases; in "split" argmax
# is tuned at every vocabulary shape the table serves (the whole space:
# the row walks and the split paths), "table" keeps the committed row-walk
# winners (compiled from this binary's templates). Then `vktune step
# --tuned` at context 128 and 4096, the two databases alternating, and the
# split database exported.
set -u
source measurements/device_env.sh
start_call
import_table /tmp/table.db; import_table /tmp/split.db
step() {  # database context
  run "step $1 ctx $2" timeout 90 vktune step /tmp/l.gguf --device 0 --context $2 --db /tmp/$1.db --seed 3 \
    --tuned >> "$OUT/step_$1_ctx$2.txt" 2>> "$OUT/log.txt"
}
make_llama
for shape in 1,128256 1,151936 1,32768 1,32000 8,32000; do
  run "tune argmax $shape" timeout 100 vktune argmax --device 0 --shape $shape --time 35s --db /tmp/split.db \
    --seed 5 > "$OUT/tune_argmax_$shape.txt" 2>> "$OUT/log.txt"
done
for round in 1 2; do
  step table 128; step split 128
done
step table 4096; step split 4096
vktune export --db /tmp/split.db -o "$OUT/table_split.json" >> "$OUT/log.txt" 2>&1; echo "export exit $?" >> "$OUT/log.txt"
xz -9 "$OUT/table_split.json"
