#!/usr/bin/env bash
# Parameter sweep of the CUDA warp-tiled SGEMM rung (14_warptile), not a
# test: each configuration verified and timed by `kladder gemm`, cuBLAS in
# the same run, one line per configuration. Usage:
#   bash bench/warptile.sh [SIZE] [CONFIG ...]
# where a CONFIG is "BM BN BK WM WN TM TN STAGES" (default: a built-in set).
# Outputs (full text of every run) go to $OUT (default bench/out).
set -euo pipefail
source "$(dirname "$0")/env.sh"

size=${1:-4096}
shift || true
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(
    "128 128 16 64 32 8 8 4"   # the defaults: 8 warps of 64×32, two blocks per SM
    "128 128 16 64 32 8 8 3"
    "128 128 8 64 32 8 8 6"
    "128 128 32 64 32 8 8 3"
    "128 128 16 32 64 8 8 4"   # lanes 4×8 instead of 8×4
    "128 256 16 64 64 8 16 3"  # 128 accumulators per thread, one block per SM
    "256 128 16 64 64 16 8 3"
    "64 128 16 32 64 8 8 4"    # 4 warps, more blocks per SM
)
proto=(--warmup 2 --repeats 10 --min-time 0.3)
log="$out/warptile_$size.txt"
: >"$log"
build/kladder gemm --backend cuda --size "$size" --rung 13 --compare cublas "${proto[@]}" \
    >>"$log" 2>&1 || true
printf '%-34s %s\n' "configuration (BM BN BK WM WN TM TN S)" "result"
printf '%-34s %s\n' "13_double_buffer (defaults)" "$(awk '/^13_double_buffer /{print $2, $3, "ms", $7, "GFLOP/s"}' "$log")"
printf '%-34s %s\n' "cuBLAS" "$(awk '/^peer:cublas /{print $2, $3, "ms", $7, "GFLOP/s"}' "$log")"
for c in "${configs[@]}"; do
    read -r bm bn bk wm wn tm tn st <<<"$c"
    one="$out/warptile_one.txt"
    build/kladder gemm --backend cuda --size "$size" --rung 14 "${proto[@]}" \
        --param BM="$bm" --param BN="$bn" --param BK="$bk" --param WM="$wm" \
        --param WN="$wn" --param TM="$tm" --param TN="$tn" --param STAGES="$st" \
        >"$one" 2>&1 || true
    cat "$one" >>"$log"
    row=$(awk '/^14_warptile /{print $2, $3, "ms", $7, "GFLOP/s"}' "$one")
    [ -n "$row" ] || row="error: $(grep -m1 -i 'kladder:\|error' "$one" || true)"
    printf '%-34s %s\n' "$c" "$row"
done
