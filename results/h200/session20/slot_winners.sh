# Sourced by this folder's decode scripts: issue 20's decode targets with
# their session-19 H200 winners (session19/h200_decode_fp16/dec, all
# X_SCOPE=1), one "kernel|shape|--only pins" line each in RUNS, each pin
# a parameter of the winner's stored config; then the two winners the
# search found on an H100 once THREADS_PER_ROW=64 was let through
# (h100_decode_targets).
RUNS=(
  "matmul_q6k|1,4096,4096|--only COLS_PER_PASS=1 --only REDUCTION=0 --only ROWS_PER_WG=16 --only SUBGROUP_SIZE=0 --only SUPER_BLOCK=1 --only THREADS_PER_ROW=32 --only UNROLL=1 --only WG_SIZE=256 --only W_STAGE=0 --only X_QUANT=1 --only X_SCOPE=1 --only X_SEGMENT=4096"
  "matmul_q6k|1,14336,4096|--only COLS_PER_PASS=1 --only REDUCTION=0 --only ROWS_PER_WG=16 --only SUBGROUP_SIZE=0 --only SUPER_BLOCK=1 --only THREADS_PER_ROW=16 --only UNROLL=1 --only WG_SIZE=128 --only W_STAGE=0 --only X_QUANT=1 --only X_SCOPE=1 --only X_SEGMENT=4096"
  "matmul_q6k|1,4096,14336|--only COLS_PER_PASS=1 --only REDUCTION=0 --only ROWS_PER_WG=16 --only SUBGROUP_SIZE=0 --only SUPER_BLOCK=1 --only THREADS_PER_ROW=32 --only UNROLL=1 --only WG_SIZE=256 --only W_STAGE=0 --only X_QUANT=1 --only X_SCOPE=1 --only X_SEGMENT=4096"
  "matmul_q8_0|1,4096,4096|--only BLOCK_PAIRS=1 --only COLS_PER_PASS=1 --only REDUCTION=0 --only ROWS_PER_WG=16 --only SUBGROUP_SIZE=0 --only THREADS_PER_ROW=32 --only UNROLL=1 --only WG_SIZE=256 --only W_STAGE=0 --only X_QUANT=1 --only X_SCOPE=1 --only X_SEGMENT=4096"
  "matmul_q8_0|1,14336,4096|--only BLOCK_PAIRS=1 --only COLS_PER_PASS=1 --only REDUCTION=0 --only ROWS_PER_WG=16 --only SUBGROUP_SIZE=0 --only THREADS_PER_ROW=32 --only UNROLL=1 --only WG_SIZE=256 --only W_STAGE=0 --only X_QUANT=1 --only X_SCOPE=1 --only X_SEGMENT=4096"
  "matmul_q8_0|1,4096,14336|--only BLOCK_PAIRS=1 --only COLS_PER_PASS=1 --only REDUCTION=0 --only ROWS_PER_WG=16 --only SUBGROUP_SIZE=0 --only THREADS_PER_ROW=32 --only UNROLL=1 --only WG_SIZE=256 --only W_STAGE=0 --only X_QUANT=1 --only X_SCOPE=1 --only X_SEGMENT=4096"
  "matmul_q4_0|1,4096,14336|--only BLOCK_PAIRS=1 --only COLS_PER_PASS=1 --only REDUCTION=0 --only ROWS_PER_WG=16 --only SUBGROUP_SIZE=0 --only THREADS_PER_ROW=32 --only UNROLL=1 --only WG_SIZE=256 --only W_STAGE=0 --only X_QUANT=1 --only X_SCOPE=1 --only X_SEGMENT=4096"
  "matmul_q8_0|1,14336,4096|--only BLOCK_PAIRS=1 --only COLS_PER_PASS=1 --only REDUCTION=0 --only ROWS_PER_WG=8 --only SUBGROUP_SIZE=0 --only THREADS_PER_ROW=64 --only UNROLL=1 --only WG_SIZE=256 --only W_STAGE=0 --only X_QUANT=1 --only X_SCOPE=1 --only X_SEGMENT=4096"
  "matmul_q4_0|1,4096,14336|--only BLOCK_PAIRS=1 --only COLS_PER_PASS=1 --only REDUCTION=0 --only ROWS_PER_WG=32 --only SUBGROUP_SIZE=0 --only THREADS_PER_ROW=64 --only UNROLL=1 --only WG_SIZE=512 --only W_STAGE=0 --only X_QUANT=1 --only X_SCOPE=1 --only X_SEGMENT=4096"
)
