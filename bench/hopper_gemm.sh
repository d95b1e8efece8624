#!/usr/bin/env bash
# Hopper's GEMM rungs (17_wgmma_tf32, 18_wgmma_3xtf32) on an H100, each
# choice of their machinery against cuBLAS in the same process, and checked
# at awkward shapes first. Not a test: a benchmark for docs/RESULTS.md.
#
#   bench/hopper_gemm.sh [verify|bench|all]   (default all)
#
# verify: both rungs at every cluster size, at the shapes that break tiling
#         (1x1x1 ... 8191x8193x257), each row verified against the reference;
#         then clusters of 2 under compute-sanitizer memcheck and racecheck.
# bench:  4096^3, 8192^3, 4095x4097x4093 and 8191x8193x257, each awkward
#         shape beside its nearest aligned one, the rungs at every cluster
#         size, cuBLAS SGEMM and TF32 in each run (--compare).
# VERIFY_SHAPES, BENCH_SHAPES="M N K,M N K,..." replace the shapes.
# Tables, JSON and a summary (summary.txt) go to $OUT (default bench/out).
set -uo pipefail
source "$(dirname "$0")/env.sh"
kl=build/kladder
mode=${1:-all}
export KLADDER_CACHE_DIR=$out/cache
clusters=(1 2)
status=0

# shape M N K -> the --m/--n/--k options
dims() { echo "--m $1 --n $2 --k $3"; }

# rows JSON status|tflops: each row of a report as rung:status, or rung TFLOP/s
rows() {
    python3 - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
if sys.argv[2] == "status":
    print(" ".join(x["rung"][:2] + ":" + x["status"] for x in r["results"]))
else:
    print(" | ".join("%s %s" % (x["rung"], "%.1f" % (x["gflops"] / 1e3)
                                if x["status"] == "verified" else x["status"])
                     for x in r["results"]))
PY
}

verify() {
    local shapes=("1 1 1" "37 41 1" "17 33 9" "129 130 131" "300 265 67" "1031 1337 97"
        "4095 4097 4093" "8191 8193 257")
    [ -n "${VERIFY_SHAPES:-}" ] && IFS=, read -r -a shapes <<<"$VERIFY_SHAPES"
    for c in "${clusters[@]}"; do
        for s in "${shapes[@]}"; do
            local name="verify_c${c}_${s// /x}"
            # shellcheck disable=SC2046,SC2086
            timeout 120 "$kl" gemm --backend cuda $(dims $s) --rung 17,18 --param "CLUSTER=$c" \
                --warmup 0 --repeats 1 --min-time 0 --json "$out/$name.json" >"$out/$name.txt" 2>&1
            local rc=$?
            local rows
            rows=$(rows "$out/$name.json" status)
            echo "CLUSTER=$c ${s}: exit $rc; $rows"
            if [ "$rc" -ne 0 ] || [ "$(grep -o verified <<<"$rows" | wc -l)" -ne 2 ]; then
                status=1
                tail -n 5 "$out/$name.txt"
            fi
        done
    done
    for run in "memcheck 129 130 131" "racecheck 37 41 5"; do
        local tool=${run%% *} s=${run#* }
        {
            # shellcheck disable=SC2046,SC2086
            timeout 180 compute-sanitizer --tool "$tool" --print-limit 10 --error-exitcode 9 \
                "$kl" gemm --backend cuda $(dims $s) --rung 17,18 --param CLUSTER=2 \
                --warmup 0 --repeats 1 --min-time 0 >"$out/${tool}_${s// /x}.txt" 2>&1
            local rc=$?
            echo "$tool CLUSTER=2 ${s}: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' \
                "$out/${tool}_${s// /x}.txt" | head -n 1)"
            [ "$rc" -eq 0 ] || status=1
        }
    done
    return "$status"
}

bench() {
    local shapes=("4096 4096 4096" "8192 8192 8192" "4095 4097 4093" "4096 4096 4096"
        "8191 8193 257" "8192 8192 256")
    [ -n "${BENCH_SHAPES:-}" ] && IFS=, read -r -a shapes <<<"$BENCH_SHAPES"
    for s in "${shapes[@]}"; do
        for c in "${clusters[@]}"; do
            local name="bench_c${c}_${s// /x}"
            # shellcheck disable=SC2046,SC2086
            timeout 150 "$kl" gemm --backend cuda $(dims $s) --rung 17,18 --param "CLUSTER=$c" \
                --compare cublas --warmup 2 --repeats 5 --min-time 0.2 \
                --json "$out/$name.json" >"$out/$name.txt" 2>&1 || status=1
            echo "CLUSTER=$c ${s}: $(rows "$out/$name.json" tflops 2>&1 | tail -n 1)"
        done
    done
    return "$status"
}

case $mode in
verify) verify ;;
bench) bench ;;
all) verify; v=$?; bench && exit "$v" ;;
*) echo "usage: $0 [verify|bench|all]" >&2; exit 2 ;;
esac 2>&1 | tee "$out/summary.txt"
rc=${PIPESTATUS[0]}
# Every table and JSON in one archive beside the summary (fewer files to fetch).
tar -C "$out" -czf "$out/hopper_gemm.tgz" --exclude cache --exclude hopper_gemm.tgz . 2>/dev/null
exit "$rc"
