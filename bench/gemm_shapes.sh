#!/usr/bin/env bash
# A GEMM shape sweep (not a test): kladder's fastest rung of each precision
# against the library of that precision, shape by shape, in one report per
# input type.
#
#   bench/gemm_shapes.sh [extra kladder gemm options]
#
# On a GPU that CUDA runs: float inputs on the tensor and FFMA rungs through
# CUDA (14 to 18; the Hopper rungs are skipped below compute capability 9.0)
# beside cuBLAS SGEMM and TF32; with BENCH_TYPES="float half bf16 fp8 int8"
# the narrow types too, on rungs 19 and 20 beside cuBLASLt (FP8 with its
# sums promoted, fast accumulation off). The shapes (34): M = N = K from 256
# to 16384 by powers of two and the odd sizes between; 16384x16384x256,
# 256x16384x16384, 64x8192x8192, 4095x4097x4093 and 8191x8193x257; skinny
# (M or N at most 256), short K (at most 512), all three sides prime, and
# sides that are not multiples of 8. Elsewhere (PoCL on a CPU): rungs 10 to
# 13 beside OpenBLAS at 64 to 512. BENCH_SHAPES="M N K,M N K,..." and
# BENCH_RUNGS replace the shapes and the rungs; BENCH_MIN_FLOP=1e11 keeps the shapes of
# at least that many FLOP. The rows take the rungs' presets and the schedule's rules
# (stream-K, split-K; their config column says where they chose). Extra options go to every
# row, and rungs without a --param ignore it; a --param sets the presets and rules aside:
# OUT=bench/out/sk bench/gemm_shapes.sh --param SK=1 sweeps the Hopper rungs as stream-K
# into a second set of pages beside the first, and OUT=bench/out/split BENCH_RUNGS=13,14
# bench/gemm_shapes.sh --param SPLITK=4 the FMA rungs split along K.
# Each shape's table and JSON go to $OUT (default bench/out)/shapes/; each
# type's page (shapes_TYPE.html) and chart alone (shapes_TYPE.svg) beside
# them; the chart's legend says at how many shapes kladder reaches 0.95x the
# library, precision by precision.
set -uo pipefail
source "$(dirname "$0")/env.sh"
kl=build/kladder
mkdir -p "$out/shapes"
if grep -q "^  Device cuda:0" "$out/devices.txt"; then # (env.sh's list)
    target=(--backend cuda)
    types=${BENCH_TYPES:-float}
    shapes=()
    for s in 256 384 512 768 1024 1536 2048 3072 4096 6144 8192 12288 16384; do
        shapes+=("$s $s $s")
    done
    shapes+=("16384 16384 256" "256 16384 16384" "64 8192 8192" "4095 4097 4093" "8191 8193 257")
    # skinny: M or N at most 256
    shapes+=("128 8192 8192" "256 16384 8192" "8192 128 8192" "16384 256 16384" "32 16384 16384")
    # short K: at most 512
    shapes+=("10000 10000 512" "8192 8192 128" "16384 16384 384")
    # every side prime
    shapes+=("4099 4111 4127" "8191 8209 8219" "2039 6143 4091" "12289 12301 509")
    # sides that are not multiples of 8
    shapes+=("3001 2999 3003" "6004 5002 3006" "12290 12294 4098" "5000 7002 2050")
    proto=(--warmup 2 --repeats 5 --min-time 0.2)
else
    target=()
    types=float
    shapes=("64 64 64" "96 96 96" "128 128 128" "192 192 192" "256 256 256" "384 384 384"
        "512 512 512" "300 265 67")
    proto=(--warmup 1 --repeats 3 --min-time 0.05)
fi
[ -n "${BENCH_SHAPES:-}" ] && IFS=, read -r -a shapes <<<"$BENCH_SHAPES"
# BENCH_MIN_FLOP: the shapes of at least that many FLOP (2MNK), the ones the targets count
if [ -n "${BENCH_MIN_FLOP:-}" ]; then
    mapfile -t shapes < <(printf '%s\n' "${shapes[@]}" |
        awk -v min="$BENCH_MIN_FLOP" '2 * $1 * $2 * $3 >= min + 0')
fi

# rungs_and_peer TYPE: the rungs and the library that type's sweep runs
rungs_and_peer() {
    if [ ${#target[@]} -eq 0 ]; then
        rungs=10,11,12,13 peer=openblas
    elif [ "$1" = float ]; then
        rungs=14,15,16,17,18 peer=cublas
    else
        rungs=19,20 peer=cublaslt
    fi
    rungs=${BENCH_RUNGS:-$rungs}
}

for type in $types; do
    rungs_and_peer "$type"
    files=()
    for s in "${shapes[@]}"; do
        read -r m n k <<<"$s"
        name="$out/shapes/gemm_${type}_${m}x${n}x${k}"
        opts=(--m "$m" --n "$n" --k "$k" --type "$type" --rung "$rungs" "${target[@]}"
            --compare "$peer" "${proto[@]}" "$@")
        echo "\$ kladder gemm ${opts[*]}"
        if "$kl" gemm "${opts[@]}" --json "$name.json" >"$name.txt" 2>&1; then
            files+=("$name.json")
            sed -n '/^fastest verified rung/,/^$/p' "$name.txt"
        else
            echo "  failed: $(tail -n 1 "$name.txt")"
        fi
    done
    page=$out/shapes_$type
    "$kl" report "${files[@]}" -o "$page.html" &&
        "$kl" report "${files[@]}" --format svg --chart shapes -o "$page.svg" &&
        grep -o '<li><b>[^<]*</b>: at [^<]*' "$page.html" | sed 's/<[^>]*>//g'
    echo "wrote $page.html and $page.svg"
done
