#!/bin/bash
# Session 34, issue 42 items 4 and 6: the prefill's products re-tuned with
# today's templates. Session 23's prefill table is imported, the six product
# shapes of Llama-3-8B's 512-token prefill are tuned again into the same
# database (matmul_q4k 270 s over four shapes, matmul_q6k 120 s over two),
# then `vktune step --prompt 512` runs the tuned chain and the table is
# exported (`export --model`, both phases).
set -u
source measurements/device_env.sh
export VKTUNE_LOCK_DIR=/tmp/lk
mkdir -p $VKTUNE_LOCK_DIR
t=measurements/nvidia-h200/session23
nvidia-smi -L > "$OUT/gpu.txt" 2>&1
rm -f /tmp/p.db*
vktune import $t/llama3-8b_q4km_ctx8192_prefill512.json --db /tmp/p.db > "$OUT/log.txt" 2>&1
echo "import prefill table exit $?" >> "$OUT/log.txt"
timeout 300 vktune matmul_q4k --device 0 -s 512,14336,4096 -s 512,4096,14336 -s 512,4096,4096 -s 512,1024,4096 \
  --time 270s --seed 7 --db /tmp/p.db > "$OUT/tune_q4k.txt" 2> "$OUT/tune_q4k.stderr.txt"
echo "tune matmul_q4k exit $?" >> "$OUT/log.txt"
timeout 150 vktune matmul_q6k --device 0 -s 512,4096,14336 -s 512,1024,4096 \
  --time 120s --seed 7 --db /tmp/p.db > "$OUT/tune_q6k.txt" 2> "$OUT/tune_q6k.stderr.txt"
echo "tune matmul_q6k exit $?" >> "$OUT/log.txt"
( time vktune gguf --make-random llama3-8b Q4_K_M -o /tmp/llama3-8b.gguf ) >> "$OUT/log.txt" 2>&1
timeout 90 vktune step /tmp/llama3-8b.gguf --device 0 --context 8192 --prompt 512 --db /tmp/p.db --seed 3 --tuned \
  > "$OUT/step_prompt512_ctx8192.txt" 2>> "$OUT/log.txt"
echo "step prompt 512 exit $?" >> "$OUT/log.txt"
vktune export --db /tmp/p.db --model /tmp/llama3-8b.gguf --context 8192 --prompt 512 \
  -o "$OUT/llama3-8b_q4km_ctx8192_prefill512.json" 2>> "$OUT/log.txt"
echo "export exit $?" >> "$OUT/log.txt"
rm -f /tmp/llama3-8b.gguf
