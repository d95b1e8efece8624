#!/usr/bin/env bash
# The memory-bound ladders (not a test): rowdot at the seed's D = 1000 and at
# 16384 × 16384, and GEMV at 4096² and 8192² with CLBlast and cuBLAS as peers
# in the same run. Measures the ceilings first (kladder peak) unless cached,
# so every row shows its % of the measured copy bandwidth. CLBlast is used
# from .debs/ when it is not installed (unpacked, then found through
# LD_LIBRARY_PATH). Outputs go to $OUT (default bench/out).
set -euo pipefail
source "$(dirname "$0")/env.sh"

clblast_from_debs

run() {
    local name=$1
    shift
    echo "\$ kladder $*" | tee "$out/$name.txt"
    build/kladder "$@" --json "$out/$name.json" 2>&1 | tee -a "$out/$name.txt" || true
}
build/kladder peak >"$out/peak_cached.txt" 2>&1 || true
proto=(--warmup 2 --repeats 10 --min-time 0.2)
run rowdot_1000 rowdot --rows 16384 --d 1000 "${proto[@]}" "$@"
run rowdot_16384 rowdot --rows 16384 --d 16384 "${proto[@]}" "$@"
run gemv_4096 gemv --size 4096 --compare clblast,cublas "${proto[@]}" "$@"
run gemv_8192 gemv --size 8192 --compare clblast,cublas "${proto[@]}" "$@"
