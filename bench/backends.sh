#!/usr/bin/env bash
# Every ladder through both backends on the same GPU, one after the other in
# one run (not a test): peak, copy (and the seed 003 sweep), gemm, rowdot,
# gemv and blur with --backend opencl and --backend cuda, then a table of the
# ratio CUDA / OpenCL per rung (bench/backends.py). Outputs go to $OUT
# (default bench/out). Extra arguments go to every ladder (e.g. --warmup 1).
set -euo pipefail
source "$(dirname "$0")/env.sh"

proto=(--warmup 2 --repeats 5 --min-time 0.1)
run() {
    local name=$1
    shift
    echo "\$ kladder $*" | tee "$out/$name.txt"
    build/kladder "$@" --json "$out/$name.json" 2>&1 | tee -a "$out/$name.txt" >/dev/null || true
}
for b in opencl cuda; do
    run "peak_$b" peak --backend "$b" --refresh
    run "copy_$b" copy --backend "$b" --n 67108864 "${proto[@]}" "$@"
    run "gemm_$b" gemm --backend "$b" --size 2048 "${proto[@]}" "$@"
    run "rowdot_$b" rowdot --backend "$b" --rows 16384 --d 16384 "${proto[@]}" "$@"
    run "gemv_$b" gemv --backend "$b" --size 8192 "${proto[@]}" "$@"
    run "blur_float_$b" blur --backend "$b" --sigma 2 "${proto[@]}" "$@"
    run "blur_uchar4_$b" blur --backend "$b" --sigma 2 --pixel uchar4 "${proto[@]}" "$@"
done
run copy_sweep_cuda copy --backend cuda --sweep --warmup 2 --repeats 5 --min-time 0.05 "$@"
python3 "$(dirname "$0")/backends.py" "$out" | tee "$out/backends.txt"
