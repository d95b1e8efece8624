#!/usr/bin/env bash
# FP8 GEMM sums on Hopper: rung 20 with its sums promoted to fp32 every
# PROMOTE elements of K, and in the fast mode (PROMOTE=0), beside cuBLASLt
# in its two modes (promoted, the default, and fast accumulation). Not a
# test: a benchmark for docs/RESULTS.md.
#
#   bench/fp8_sums.sh [verify|error|bench|all]   (default all)
#
# verify: both formats, PROMOTE 0, 128 and 384, at shapes whose K ends in a
#         partial span; then memcheck and racecheck at an odd shape.
# error:  each row's normwise error against K (512 to 32768, M = N = 2048),
#         both formats: rungs 19 and 20 (its preset: PROMOTE=128) beside
#         cuBLASLt's two modes, then rung 20 with PROMOTE 0 and 512.
# bench:  e4m3 at 4096^3 and 8192^3: rung 20's tiles and intervals, each run
#         beside cuBLASLt's two modes.
# CONFIGS="NAME=V NAME=V,..." replaces bench's configurations of rung 20.
# Tables, JSON and a summary (summary.txt) go to $OUT (default bench/out).
set -uo pipefail
source "$(dirname "$0")/env.sh"
kl=build/kladder
mode=${1:-all}
export KLADDER_CACHE_DIR=$out/cache
status=0

dims() { echo "--m $1 --n $2 --k $3"; }

# rows JSON: each row as "rung status error TFLOP/s"
rows() {
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for x in r["results"]:
    err = x.get("error")
    tf = x.get("gflops", 0) / 1e3 if x["status"] == "verified" else 0
    print("  %-16s %-8s error %-9s %7.1f TFLOP/s  span %s" % (
        x["rung"], x["status"], "%.2e" % err if err is not None else "-", tf,
        x.get("sum_span", "-")))
    if x["status"] != "verified":
        print("    " + x.get("note", "")[:300])
PY
}

# run NAME ARGS...: one process, its table and JSON kept, its rows printed
run() {
    local name=$1
    shift
    timeout 300 "$kl" gemm --backend cuda "$@" --json "$out/$name.json" >"$out/$name.txt" 2>&1
    local rc=$?
    echo "$name: exit $rc"
    [ -s "$out/$name.json" ] && rows "$out/$name.json"
    [ "$rc" -eq 0 ] || { status=1; tail -n 3 "$out/$name.txt"; }
}

verify() {
    local quick=(--warmup 0 --repeats 1 --min-time 0)
    for t in fp8 fp8e5m2; do
        for p in 0 128 384; do
            for s in "1 1 1" "37 41 129" "300 265 67" "129 130 1031" "4095 4097 4093"; do
                # shellcheck disable=SC2046,SC2086
                run "verify_${t}_p${p}_${s// /x}" --type "$t" $(dims $s) --rung 20 \
                    --param "PROMOTE=$p" --param BN=192 "${quick[@]}"
            done
        done
    done
    for tool in memcheck racecheck; do
        for p in 128 384; do
            timeout 300 compute-sanitizer --tool "$tool" --print-limit 10 --error-exitcode 9 \
                "$kl" gemm --backend cuda --type fp8 --m 129 --n 200 --k 1031 --rung 20 \
                --param "PROMOTE=$p" --param BN=192 "${quick[@]}" >"$out/${tool}_p$p.txt" 2>&1
            local rc=$?
            echo "$tool PROMOTE=$p: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' \
                "$out/${tool}_p$p.txt" | head -n 1)"
            [ "$rc" -eq 0 ] || status=1
        done
    done
    return "$status"
}

error() {
    local quick=(--warmup 0 --repeats 1 --min-time 0)
    for t in fp8 fp8e5m2; do
        for k in 512 2048 8192 32768; do
            local d=(--type "$t" --m 2048 --n 2048 --k "$k" "${quick[@]}")
            run "error_${t}_k${k}" "${d[@]}" --rung 19,20 --compare cublaslt
            for p in 0 512; do
                run "error_${t}_k${k}_p$p" "${d[@]}" --rung 20 --param "PROMOTE=$p" --param BN=192
            done
        done
    done
    return "$status"
}

bench() {
    local configs=("BN=256 PROMOTE=0" "BN=192 PROMOTE=128" "BN=192 PROMOTE=256"
        "BN=192 PROMOTE=512" "BN=128 PROMOTE=128" "BN=128 PROMOTE=128 STAGES=6")
    [ -n "${CONFIGS:-}" ] && IFS=, read -r -a configs <<<"$CONFIGS"
    for n in 4096 8192; do
        for c in "${configs[@]}"; do
            local params=()
            for v in $c; do params+=(--param "$v"); done
            run "bench_${n}_${c//[= ]/_}" --type fp8 --size "$n" --rung 20 "${params[@]}" \
                --compare cublaslt --warmup 2 --repeats 10 --min-time 0.3
        done
    done
    return "$status"
}

case $mode in
verify) verify ;;
error) error ;;
bench) bench ;;
all) verify; a=$?; error; b=$?; bench; c=$?; exit $((a | b | c)) ;;
*) echo "usage: $0 [verify|error|bench|all]" >&2; exit 2 ;;
esac 2>&1 | tee "$out/summary.txt"
rc=${PIPESTATUS[0]}
tar -C "$out" -czf "$out/fp8_sums.tgz" --exclude cache --exclude fp8_sums.tgz . 2>/dev/null
exit "$rc"
