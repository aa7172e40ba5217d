#!/bin/bash
# Session 14: the device's ceilings with the tensor-core ones
# (templates/ceiling_coopmat.comp: matrices in registers, and loaded from
# shared memory each product), measured three times in a fresh database.
set -u
source measurements/device_env.sh
for i in 1 2 3; do vktune devices --remeasure --device 0 --db /tmp/ceilings.db >> "$OUT/ceilings.txt" 2>&1; done
vktune results --db /tmp/ceilings.db >> "$OUT/ceilings.txt" 2>&1
