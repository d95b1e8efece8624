#!/usr/bin/env bash
# The schedules against the plain one and the library (not a test: a benchmark
# for docs/RESULTS.md): at each shape, each rung once plain (SK=0, SPLITK=1)
# and once with stream-K (SK=1) or split-K (SPLITK=S), the library beside it
# in the same process, so that the ratios of one row hold up against each
# other.
#
#   bench/gemm_schedule.sh
#
# On a GPU that CUDA runs: rungs 17 and 18 beside cuBLAS (SGEMM and TF32),
# rung 20 in half, fp8 (promoted) and int8 beside cuBLASLt, rung 22 beside
# cuBLAS SGEMM, each plain and with SK=1; rung 20 in half and fp8 and rungs
# 17 and 18 with C stored from registers (EPI=0) and by TMA (EPI=1); rung 21 beside cuBLAS
# DGEMM at its defaults, with one set of fragments (PREFETCH=0) and so on
# 128 x 128 blocks, and with A's fragments in a ring (PREFETCH=2) at its
# defaults and on 64 x 32 warp tiles of 128 x 128 and 128 x 64 blocks (an option's
# comma-separated values are one run's); rungs
# 17 and 18 with unaligned rows padded first (PAD=1) and read by cp.async (PAD=0);
# rung 14 beside cuBLAS SGEMM plain and with each of SPLITS (default
# "2 4 8"). The shapes (SHAPES="M N K,..."
# replaces them): the partial waves and short or skinny sides issue 63 and 64
# name, 4096^3 as the square reference. Elsewhere (PoCL on a CPU): rung 13
# plain and split beside OpenBLAS at small skinny shapes. CONFIGS replaces the
# runs, ';' between them, each "rungs|type|peer|every run's values|the plain
# run's option, then the others'" (as below), e.g.
# CONFIGS="14|float|cublas||SPLITK=1 BM=64,WM=32,TM=4".
# Each run's table and JSON go to $OUT (default bench/out)/schedule/ (names end
# in the plain run's option, SK0, and the scheduled run's after it, SK1), and
# summary.txt has a line per shape and rung: TFLOP/s plain and scheduled,
# their ratio, and each against the library of the same run.
set -uo pipefail
source "$(dirname "$0")/env.sh"
kl=build/kladder
mkdir -p "$out/schedule"
export KLADDER_CACHE_DIR=$out/cache
read -r -a splits <<<"${SPLITS:-2 4 8}"
if grep -q "^  Device cuda:0" "$out/devices.txt"; then # (env.sh's list)
    target=(--backend cuda)
    shapes=("4096 4096 4096" "4095 4097 4093" "10000 10000 512" "128 8192 8192"
        "8191 8193 257" "4096 4352 4096" "256 16384 8192")
    # rungs|type|peer|every run's values|the plain run's option, then the scheduled runs', one
    # run each. A --param that names a rung's parameter sets aside its preset and stream-K's
    # rule: the plain run says SK=0 (SPLITK=1), and every run carries the preset's values (rung
    # 20's FP8 BN=192).
    configs=("17,18|float|cublas||SK=0 SK=1" "20|half|cublaslt||SK=0 SK=1"
        "20|fp8|cublaslt|BN=192|SK=0 SK=1" "20|int8|cublaslt||SK=0 SK=1"
        "20|half|cublaslt|SK=0|EPI=0 EPI=1" "20|fp8|cublaslt|BN=192 SK=0|EPI=0 EPI=1"
        "17,18|float|cublas|SK=0|EPI=0 EPI=1"
        "21|double|cublas||PREFETCH=1 PREFETCH=0 BM=128,BN=128,WM=32,WN=64,PREFETCH=0 PREFETCH=2 BM=128,BN=128,WM=64,WN=32,PREFETCH=2 BM=128,BN=64,WM=64,WN=32,PREFETCH=2"
        "17,18|float|cublas||PAD=1 PAD=0"
        "22|float|cublas||SK=0 SK=1"
        "14|float|cublas||SPLITK=1 $(printf 'SPLITK=%s ' "${splits[@]}")")
    proto=(--warmup 2 --repeats 5 --min-time 0.2)
else
    target=()
    shapes=("8 256 1024" "16 64 4096" "64 64 64")
    configs=("13|float|openblas||SPLITK=1 $(printf 'SPLITK=%s ' "${splits[@]}")")
    proto=(--warmup 1 --repeats 3 --min-time 0.05)
fi
[ -n "${SHAPES:-}" ] && IFS=, read -r -a shapes <<<"$SHAPES"
[ -n "${CONFIGS:-}" ] && IFS=';' read -r -a configs <<<"$CONFIGS"

# params OPTION: into array p, --param for each of an option's NAME=V, comma-separated
params() {
    local v
    p=()
    for v in ${1//,/ }; do p+=(--param "$v"); done
}

# summarize PLAIN.json SCHEDULED.json WHAT: a line per rung of both runs
summarize() {
    python3 - "$@" <<'PY'
import json, sys
def rows(path):
    try:
        return {x["rung"]: x for x in json.load(open(path))["results"]}
    except (OSError, ValueError) as e:
        return {}
def tflops(x):
    return x["gflops"] / 1e3 if x and x.get("status") == "verified" else None
plain, sched, what = rows(sys.argv[1]), rows(sys.argv[2]), sys.argv[3]
peers = [k for k in plain if k.startswith("peer:")]
for rung in [k for k in plain if not k.startswith("peer:")]:
    a, b = tflops(plain[rung]), tflops(sched.get(rung))
    line = "  %-18s %-10s" % (rung, what)
    line += " plain %8s" % ("%.4g" % a if a else plain[rung].get("status"))
    line += "  scheduled %8s" % ("%.4g" % b if b else (sched.get(rung) or {}).get("status", "-"))
    if a and b:
        line += "  x%.3f" % (b / a)
    for p in peers:
        pa, pb = tflops(plain[p]), tflops(sched.get(p))
        if pa and a:
            line += "  | %s: plain %.3f" % (p[5:], a / pa)
        if pb and b:
            line += ", scheduled %.3f" % (b / pb)
    print(line)
PY
}

{
    for s in "${shapes[@]}"; do
        read -r m n k <<<"$s"
        echo "${m}x${n}x${k} (TFLOP/s; ratios to the library of the same run)"
        for c in "${configs[@]}"; do
            IFS='|' read -r rungs type peer values options <<<"$c"
            read -r plain options <<<"$options"
            name="$out/schedule/${m}x${n}x${k}_r${rungs//,/_}_${type}_${plain//=/}"
            opts=(--m "$m" --n "$n" --k "$k" --type "$type" --rung "$rungs" "${target[@]}"
                --compare "$peer" "${proto[@]}")
            for v in $values; do opts+=(--param "$v"); done
            params "$plain"
            timeout 600 "$kl" gemm "${opts[@]}" "${p[@]}" --json "$name.json" >"$name.txt" 2>&1
            for option in $options; do
                sched="${name}_$(tr ',' '_' <<<"${option//=/}")"
                params "$option"
                timeout 600 "$kl" gemm "${opts[@]}" "${p[@]}" --json "$sched.json" \
                    >"$sched.txt" 2>&1
                summarize "$name.json" "$sched.json" "$type $option"
            done
        done
    done
} | tee "$out/schedule/summary.txt"
