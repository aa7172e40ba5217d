#!/bin/bash
# Session 13: matmul_q4k's exact (fp32-activation) decode path before
# (.cmp/old/vktune: matvec_q4k.comp with its own parameters) and after it
# joined the quantized family (.cmp/new/vktune: the generic
# matvec_quant.comp, and SUPER_BLOCK=1's matvec_q4k.comp in the family's
# parameters; the first run of this script had the generic template only),
# each searched for 100 s at 1x4096x4096 with the same seed, cold. Writes winners.txt. Run from the
# repository root with .gl and .cmp carried.
set -u
source "$(dirname "$0")/cmp_env.sh"
for t in old new; do
  .cmp/$t/vktune matmul_q4k --device 0 --shape 1,4096,4096 --only X_QUANT=0 --no-transfer --seed 3 --time 100s \
    --db /tmp/${t}.db > "$OUT/${t}.log" 2>&1
  echo "$t exit $?" >> "$OUT/log.txt"
  .cmp/$t/vktune export --db /tmp/$t.db -o /tmp/$t.json
done
python3 "$(dirname "$0")/winners_summary.py" "$OUT/winners.txt" old=/tmp/old.json new=/tmp/new.json
grep -h "variants in" "$OUT"/old.log "$OUT"/new.log >> "$OUT/log.txt"
