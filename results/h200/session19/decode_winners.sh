# Sourced by this folder's decode scripts: issue 20's decode targets with
# their session-18 H200 winners (session18/h200_decode_targets), one
# "kernel|shape|--only pins" line each in RUNS. EXTRA_PINS go on every line
# (run_decode_ladder.sh pins X_SCOPE=0 there).
COMMON="${EXTRA_PINS:-} --only COLS_PER_PASS=1 --only REDUCTION=0 --only ROWS_PER_WG=16 --only SUBGROUP_SIZE=0 --only UNROLL=1 --only W_STAGE=0 --only X_QUANT=1"
Q6="$COMMON --only SUPER_BLOCK=1"
Q8="$COMMON --only BLOCK_PAIRS=1 --only THREADS_PER_ROW=32 --only WG_SIZE=256"
RUNS=(
  "matmul_q6k|1,4096,4096|$Q6 --only THREADS_PER_ROW=16 --only WG_SIZE=256 --only X_SEGMENT=4096"
  "matmul_q6k|1,14336,4096|$Q6 --only THREADS_PER_ROW=8 --only WG_SIZE=128 --only X_SEGMENT=4096"
  "matmul_q6k|1,4096,14336|$Q6 --only THREADS_PER_ROW=32 --only WG_SIZE=256 --only X_SEGMENT=16384"
  "matmul_q8_0|1,4096,4096|$Q8 --only X_SEGMENT=4096"
  "matmul_q8_0|1,14336,4096|$Q8 --only X_SEGMENT=4096"
  "matmul_q4_0|1,4096,14336|$Q8 --only X_SEGMENT=16384"
)
