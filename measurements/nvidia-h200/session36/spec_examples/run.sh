#!/bin/bash
# Session 36, issue 44: the specs written this session on an H200 (the
# NVIDIA driver rather than lavapipe): `vktune check` of the new examples
# (the expression reference's transpose, the IQ4_NL matvec with its #ifdef
# reduction and f32 push word, the fused add + RMS norm with 30 push words,
# the uniform-buffer softmax); then the two whose winners a launch contract
# can carry tuned, exported, imported into an empty database and timed
# against their stored times (`vktune bench --max-drift 10`): their f32
# push words travel as expressions and the runtime library evaluates them.
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
: > "$OUT/log.txt"
for spec in examples/transpose/transpose.json examples/iq4nl_matvec/matvec_iq4nl.json \
            examples/fused_add_rmsnorm/add_rmsnorm.json examples/uniform_softmax/softmax.json; do
  name=$(basename "$(dirname "$spec")")
  timeout 150 vktune check "$spec" --device 0 --variants all > "$OUT/check_$name.txt" 2>&1
  echo "check $spec exit $?" >> "$OUT/log.txt"
done
rm -f /tmp/s.db* /tmp/b.db*
timeout 90 vktune examples/iq4nl_matvec/matvec_iq4nl.json --device 0 --time 75s --seed 36 --db /tmp/s.db \
  > "$OUT/tune_iq4nl.txt" 2>&1
echo "tune iq4nl exit $?" >> "$OUT/log.txt"
timeout 60 vktune examples/fused_add_rmsnorm/add_rmsnorm.json --device 0 --time 45s --seed 36 --db /tmp/s.db \
  > "$OUT/tune_fused_add_rmsnorm.txt" 2>&1
echo "tune fused_add_rmsnorm exit $?" >> "$OUT/log.txt"
vktune export --db /tmp/s.db -o "$OUT/spec_table.json" >> "$OUT/log.txt" 2>&1
echo "export exit $?" >> "$OUT/log.txt"
vktune import "$OUT/spec_table.json" --db /tmp/b.db >> "$OUT/log.txt" 2>&1
echo "import exit $?" >> "$OUT/log.txt"
timeout 120 vktune bench examples/iq4nl_matvec/matvec_iq4nl.json examples/fused_add_rmsnorm/add_rmsnorm.json \
  --device 0 --db /tmp/b.db --max-drift 10 > "$OUT/bench.txt" 2> "$OUT/bench.stderr.txt"
echo "bench --max-drift 10 exit $?" >> "$OUT/log.txt"
