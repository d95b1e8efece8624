#!/usr/bin/env bash
# The softmax ladder on an NVIDIA GPU (rung 05 on compute capability 9.0):
# the copy ceiling measured first (kladder peak --brief, which the rows' %
# roof divide by); every rung and op through CUDA verified at awkward
# shapes, with the overflow and tiny-variance rows, for float, half and
# bf16; the ladders at 4k, 32k and 256k columns (1 GiB of input) for
# softmax, layer norm and RMS norm beside torch (the same shapes, its own
# data) and cuDNN (--compare cudnn: the same rows); the rungs that hold a row at other
# block shapes (how the rule in
# src/workloads/softmax/rungs.c was chosen); the ladder through NVIDIA's
# OpenCL; compute-sanitizer's memcheck and racecheck; on request (step profile), ncu's
# issue, exp-unit and DRAM figures for rungs 04 and 05.
# Not a test: a benchmark for docs/RESULTS.md. Each step's output goes to
# $OUT (default bench/out) as it finishes.
#
#   bench/softmax.sh [STEP...]   (steps: check float narrow sweep opencl profile sanitize;
#                                default all but profile)
#   RUNGS=04,05, COLS=4096 and OPS=softmax narrow the ladders (RUNGS and COLS the sweep too);
#   SIZES="33,1031 3,262147" the shapes of the check; TORCH=0 leaves torch out; BUDGET=45:
#   the tuner's seconds a search; TYPES="half bf16" the sweep's types (default float).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-bench/out}
mkdir -p "$out"
steps=${*:-check float narrow sweep opencl sanitize}
t0=$SECONDS
stamp() { echo "[$((SECONDS - t0)) s] $*"; }

# Only what this needs: the command line (bench/env.sh builds everything).
if [ ! -x build/kladder ]; then
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >"$out/cmake.txt" 2>&1
    cmake --build build -j"$(nproc)" --target kladder-cli >>"$out/cmake.txt" 2>&1 ||
        { tail -n 30 "$out/cmake.txt"; exit 1; }
fi
stamp "built"
source bench/env.sh # registers NVIDIA's OpenCL
kl=build/kladder
export KLADDER_CACHE_DIR=$out/cache
GIB=$((1 << 30))

# rows JSON: each row as "rung status GB/s % roof ms config note"
rows() {
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for x in r["results"]:
    print("  %-14s %-8s %8.1f GB/s %6.1f %%  %8.3f ms  %-28s %s" % (x["rung"], x["status"],
          x.get("gbps") or 0, x.get("pct_ceiling") or 0, (x.get("median_s") or 0) * 1e3,
          x.get("config", "")[:28], x.get("note", "")[:90]))
PY
}

# ladder NAME ARGS...: one kladder softmax process, its table and JSON kept, its rows printed
ladder() {
    local name=$1
    shift
    timeout 200 "$kl" softmax "$@" --warmup 3 --repeats 20 --min-time 0.2 \
        --json "$out/sm_$name.json" >"$out/sm_$name.txt" 2>&1
    stamp "$name: exit $?"
    [ -s "$out/sm_$name.json" ] && rows "$out/sm_$name.json"
}

# torch TYPE: F.softmax, F.layer_norm, F.rms_norm over 1 GiB rows of 4k, 32k and 256k columns
torch_rows() {
    python3 - "$1" <<'PY'
import sys, torch
import torch.nn.functional as F
dt = {"float": torch.float32, "half": torch.float16, "bf16": torch.bfloat16}[sys.argv[1]]
es = torch.tensor([], dtype=dt).element_size()
for cols in (4096, 32768, 262144):
    rows = (1 << 30) // es // cols
    x = torch.randn((rows, cols), device="cuda", dtype=dt)
    ops = {"softmax": lambda: F.softmax(x, dim=-1),
           "layernorm": lambda: F.layer_norm(x, (cols,), eps=1e-5),
           "rmsnorm": lambda: F.rms_norm(x, (cols,), eps=1e-5)}
    for name, f in ops.items():
        for _ in range(3):
            f()
        ts = []
        for _ in range(20):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); f(); b.record(); b.synchronize()
            ts.append(a.elapsed_time(b) * 1e-3)
        ts.sort()
        med = ts[len(ts) // 2]
        print("torch %-9s %s %6d x %6d: median %8.3f ms, %7.1f GB/s (torch %s)" % (
            name, sys.argv[1], rows, cols, med * 1e3, 2 * x.numel() * es / med * 1e-9,
            torch.__version__))
    del x
PY
}

# rows_for TYPE COLS: the rows of 1 GiB
rows_for() {
    local es=4
    [ "$1" != float ] && es=2
    echo $((GIB / es / $2))
}

timeout 120 "$kl" peak --backend cuda --brief >"$out/sm_peak.txt" 2>&1
stamp "peak: exit $?"; grep -iE "copy" "$out/sm_peak.txt" | head -n 3

for step in $steps; do
    case $step in
    check) # every rung and op verified at awkward shapes through CUDA
        q=(--backend cuda --warmup 0 --repeats 1 --min-time 0 -q --format csv)
        for type in float half bf16; do
            for op in softmax layernorm rmsnorm; do
                for size in ${SIZES:-1,1 33,31 1000,33 33,1031 4,100003 2,70001 5,32768 3,262147 3,262144 2,524288}; do
                    "$kl" softmax "${q[@]}" --type "$type" --op "$op" --size "$size" >"$out/sm_a.txt" 2>&1
                    echo "$type $op $size: exit $? $(grep -c ',failed,' "$out/sm_a.txt") failed, $(grep -c ',verified,' "$out/sm_a.txt") verified, $(grep -c ',skipped,' "$out/sm_a.txt") skipped"
                done
            done
        done >"$out/sm_awkward.txt"
        stamp "awkward: $(grep -c 'exit 0 0 failed' "$out/sm_awkward.txt") of $(wc -l <"$out/sm_awkward.txt") without a failure"
        grep -v 'exit 0 0 failed, 5 verified' "$out/sm_awkward.txt" | head -n 20
        ;;
    float | narrow) # the ladders at 1 GiB, beside torch
        types=float
        [ "$step" = narrow ] && types="half bf16"
        for type in $types; do
            for cols in ${COLS:-4096 32768 262144}; do
                for op in ${OPS:-softmax layernorm rmsnorm}; do
                    rungs=03,04,05
                    [ "$op" = softmax ] && [ "$type" = float ] && rungs=01,02,03,04,05
                    rungs=${RUNGS:-$rungs}
                    ladder "${type}_${op}_$cols" --backend cuda --type "$type" --op "$op" \
                        --size "$(rows_for "$type" "$cols"),$cols" --rung "$rungs" --compare cudnn
                done
            done
            [ "${TORCH:-1}" = 0 ] && continue
            torch_rows "$type" >"$out/sm_torch_$type.txt" 2>&1
            stamp "torch $type"; cat "$out/sm_torch_$type.txt"
        done
        ;;
    sweep) # the rungs that hold a row: their spaces searched by the tuner at each length
        sweep_rungs=${RUNGS:-04,05}
        for type in ${TYPES:-float}; do
            for cols in ${COLS:-4096 32768 262144}; do
                for rung in ${sweep_rungs//,/ }; do
                    name=sm_tune_${type}_${rung}_$cols
                    timeout 100 "$kl" tune softmax --backend cuda --type "$type" \
                        --size "$(rows_for "$type" "$cols"),$cols" --rung "$rung" \
                        --budget "${BUDGET:-60}s" >"$out/$name.txt" 2>&1
                    stamp "tune $type $rung $cols: exit $?"
                    grep -E "^(best|tried|default):" "$out/$name.txt"
                done
            done
        done
        ;;
    opencl) # NVIDIA's OpenCL: the ladder without rung 05
        ladder opencl_4096 --size 65536,4096 --rung 03,04
        ladder opencl_32768 --size 8192,32768 --rung 03,04
        ;;
    profile) # ncu on the rows that hold a row: issue and the exp unit against DRAM
        # (rows of 128 MiB in all; ncu takes the third launch, after the first verified
        # and the warm-up)
        targets="half 4096 04,half 32768 05,half 262144 05,bf16 262144 05,float 4096 04,float 262144 05"
        metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
        metrics+=,sm__inst_issued.avg.pct_of_peak_sustained_active
        metrics+=,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active
        metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
        for op in ${OPS:-softmax}; do
            IFS=, read -ra list <<<"$targets"
            for row in "${list[@]}"; do
                read -r type cols rung <<<"$row"
                name=sm_ncu_${op}_${type}_${cols}_$rung
                timeout 120 ncu --clock-control none -k softmax -s 2 -c 1 --metrics "$metrics" \
                    "$kl" softmax --backend cuda --op "$op" --type "$type" --rung "$rung" \
                    --size "$(($(rows_for "$type" "$cols") / 8)),$cols" --warmup 1 --repeats 1 \
                    --min-time 0 >"$out/$name.txt" 2>&1
                stamp "ncu $op $type $cols rung $rung: exit $?"
                grep -E '^ +(gpu__|dram__|sm__|launch__)' "$out/$name.txt"
            done
        done
        ;;
    sanitize)
        for tool in memcheck racecheck; do
            for size in 37,1031 3,262147 3,262144; do
                timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 97 --print-limit 10 \
                    "$kl" softmax --size "$size" --op layernorm --backend cuda \
                    --warmup 0 --repeats 1 --min-time 0 >"$out/sm_${tool}_$size.txt" 2>&1
                stamp "$tool $size: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sm_${tool}_$size.txt" | head -n 1)"
            done
        done
        ;;
    esac
done
