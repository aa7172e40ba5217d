#!/bin/bash
# Session 13: the integer-dot decode templates of Q4_K, Q4_0, Q8_0 and Q5_K
# before (session 12's templates, carried as old_templates/) and after they
# were put on one shared walk (include/matvec_q8_walk.glsl), each tuned over
# the same space with the same budget and seed at 1x14336x4096 (cold); then
# matmul_q6k's new SUPER_BLOCK=1 path hot at the three decode shapes. Run
# from the repository root with .dist, .gl and old_templates carried.
set -u
source "$(dirname "$0")/../session12/device_env.sh"
tune() {  # kernel, label, extra args...
  local kernel=$1 label=$2
  shift 2
  vktune "$kernel" --device 0 --shape 1,14336,4096 --no-transfer --seed 1 --time 40s --json "$@" \
    > "$OUT/${kernel}_$label.json" 2> "$OUT/${kernel}_$label.log"
  echo "$kernel $label exit $?" >> "$OUT/log.txt"
}
for t in old new; do
  args=()
  [ $t = old ] && args=(--templates old_templates)
  tune matmul_q4k $t --only X_QUANT=1 "${args[@]}" --db /tmp/$t.db
  tune matmul_q4_0 $t --only BLOCK_PAIRS=1 "${args[@]}" --db /tmp/$t.db
  tune matmul_q8_0 $t --only BLOCK_PAIRS=1 "${args[@]}" --db /tmp/$t.db
  tune matmul_q5k $t --only SUPER_BLOCK=1 "${args[@]}" --db /tmp/$t.db
done
vktune matmul_q6k --device 0 --shape 1,4096,4096 --shape 1,14336,4096 --shape 1,4096,14336 --only X_QUANT=1 \
  --only SUPER_BLOCK=1 --no-transfer --seed 1 --time 90s --cache hot --json --db /tmp/hot.db \
  > "$OUT/q6k_new_hot.json" 2> "$OUT/q6k_new_hot.log"
echo "q6k hot exit $?" >> "$OUT/log.txt"
