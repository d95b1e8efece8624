#!/usr/bin/env bash
# GEMM ladder benchmark (not a test). On a machine with an NVIDIA GPU it
# registers NVIDIA's OpenCL library if needed and runs the ladder at the
# seed's 2000³ and at 4096³; otherwise (PoCL on a CPU) at 512³ and 1024³.
# BENCH_SIZES="..." overrides the sizes.
# Tables and JSON go to $OUT (default bench/out). Builds without installing
# anything (KLADDER_NO_INSTALL=1) so it works on machines without network.
#
#   bench/gemm.sh [extra kladder options, e.g. --device 1:0]
set -euo pipefail
source "$(dirname "$0")/env.sh"

if grep -q 'Type *GPU' "$out/devices.txt"; then # (env.sh's list)
    sizes=(2000 4096)
    proto=(--warmup 1 --repeats 3 --min-time 0.3)
else
    sizes=(512 1024)
    proto=(--warmup 1 --repeats 3 --min-time 0.2)
fi
[ -n "${BENCH_SIZES:-}" ] && read -r -a sizes <<<"$BENCH_SIZES"
for s in "${sizes[@]}"; do
    {
        echo "\$ kladder gemm --size $s ${proto[*]} $*"
        build/kladder gemm --size "$s" "${proto[@]}" "$@" --json "$out/gemm_$s.json" 2>&1 || true
    } | tee "$out/gemm_$s.txt"
done
