#!/usr/bin/env bash
# A GEMM shape sweep (not a test): kladder's fastest rung of each precision
# against the library of that precision, shape by shape, in one report.
#
#   bench/gemm_shapes.sh [extra kladder gemm options]
#
# On a GPU that CUDA runs: the tensor and FFMA rungs through CUDA (14 to 18;
# the Hopper rungs are skipped below compute capability 9.0) beside cuBLAS
# SGEMM and TF32, at M = N = K from 256 to 16384 by powers of two and the odd
# sizes between, and at 16384x16384x256, 256x16384x16384, 64x8192x8192,
# 4095x4097x4093 and 8191x8193x257. Elsewhere (PoCL on a CPU): rungs 10 to 13
# beside OpenBLAS at 64 to 512. BENCH_SHAPES="M N K,M N K,..." and
# BENCH_RUNGS replace the shapes and the rungs.
# Each shape's table and JSON go to $OUT (default bench/out)/shapes/; the
# page (shapes.html) and the chart alone (shapes.svg) beside them; the
# chart's legend says at how many shapes kladder reaches 0.95x the library.
set -uo pipefail
source "$(dirname "$0")/env.sh"
kl=build/kladder
mkdir -p "$out/shapes"
if "$kl" devices 2>/dev/null | grep -q "^  Device cuda:0"; then
    target=(--backend cuda --compare cublas)
    rungs=14,15,16,17,18
    shapes=()
    for s in 256 384 512 768 1024 1536 2048 3072 4096 6144 8192 12288 16384; do
        shapes+=("$s $s $s")
    done
    shapes+=("16384 16384 256" "256 16384 16384" "64 8192 8192" "4095 4097 4093" "8191 8193 257")
    proto=(--warmup 2 --repeats 5 --min-time 0.2)
else
    target=(--compare openblas)
    rungs=10,11,12,13
    shapes=("64 64 64" "96 96 96" "128 128 128" "192 192 192" "256 256 256" "384 384 384"
        "512 512 512" "300 265 67")
    proto=(--warmup 1 --repeats 3 --min-time 0.05)
fi
[ -n "${BENCH_SHAPES:-}" ] && IFS=, read -r -a shapes <<<"$BENCH_SHAPES"
rungs=${BENCH_RUNGS:-$rungs}
files=()
for s in "${shapes[@]}"; do
    read -r m n k <<<"$s"
    name="$out/shapes/gemm_${m}x${n}x${k}"
    echo "\$ kladder gemm --m $m --n $n --k $k --rung $rungs ${target[*]} ${proto[*]} $*"
    if "$kl" gemm --m "$m" --n "$n" --k "$k" --rung "$rungs" "${target[@]}" "${proto[@]}" "$@" \
        --json "$name.json" >"$name.txt" 2>&1; then
        files+=("$name.json")
        sed -n '/^fastest verified rung/,/^$/p' "$name.txt"
    else
        echo "  failed: $(tail -n 1 "$name.txt")"
    fi
done
"$kl" report "${files[@]}" -o "$out/shapes.html" &&
    "$kl" report "${files[@]}" --format svg --chart shapes -o "$out/shapes.svg" &&
    grep -o '<li><b>[^<]*</b>: at [^<]*' "$out/shapes.html" | sed 's/<[^>]*>//g'
echo "wrote $out/shapes.html and $out/shapes.svg"
