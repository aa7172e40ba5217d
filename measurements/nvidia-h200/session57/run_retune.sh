#!/bin/bash
# Prepared in session 56 for issue 42 item 6 (that session had no device
# time left to run it), run in session 57 from run_call1.sh: table.json's
# four matmul_f16 prefill winners were stored before CM_PREFETCH existed
# (one slice in flight); session 56's call 1 ran the two-slice config at
# 512,4096,14336 in 229.4 µs against the 258.0 stored. This call re-tunes
# the four shapes on the tensor-core paths from the committed table (its
# winners the transfer seeds) and exports this database's matmul_f16
# winners; a later call on another H200 imports table.json merged with them
# (`vktune import --newest-per-model`) alone and runs
# `vktune bench matmul_f16 --max-drift 10` before the merge is committed.
set -u
source measurements/device_env.sh
start_call
import_table /tmp/t.db
for shape in 512,4096,4096 512,4096,14336 512,14336,4096 4096,4096,4096; do
  run "tune matmul_f16 $shape" timeout 100 vktune matmul_f16 --device 0 -s $shape --only USE_COOPMAT=1 \
    --time 75s --seed 56 --db /tmp/t.db > "$OUT/tune_matmul_f16_$shape.txt" 2> "$OUT/tune_matmul_f16_$shape.stderr.txt"
done
# Every matmul_f16 winner in the database (the imported ones beside this
# GPU's): the merge's --newest-per-model keeps this call's where it tuned.
run "export matmul_f16" vktune export --db /tmp/t.db --kernel matmul_f16 -o "$OUT/matmul_f16_winners.json"
