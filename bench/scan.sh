#!/usr/bin/env bash
# The prefix-scan ladder on an NVIDIA GPU: every rung through CUDA verified at
# awkward sizes; the ladder beside CUB's DeviceScan (the same data) and
# torch.cumsum (2^30 elements of its own), int and float, counting 2n words;
# the ladder through NVIDIA's OpenCL; compute-sanitizer's memcheck and
# racecheck; the look-back verified on 100 runs in a row at 2^30 + 7 elements. Not a test: a benchmark
# for docs/RESULTS.md. Each step's output goes to $OUT (default bench/out) as
# it finishes, the most wanted first, so a run cut short keeps them.
#
#   bench/scan.sh [N]   (default 1073741824 elements)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-bench/out}
mkdir -p "$out"
n=${1:-1073741824}
t0=$SECONDS
stamp() { echo "[$((SECONDS - t0)) s] $*"; }

# Only what this needs: the command line and the CUB shim (bench/env.sh builds everything).
if [ ! -x build/kladder ]; then
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >"$out/cmake.txt" 2>&1
    cmake --build build -j"$(nproc)" --target kladder-cli kladder_cub >>"$out/cmake.txt" 2>&1 ||
        { tail -n 30 "$out/cmake.txt"; exit 1; }
fi
stamp "built"
source bench/env.sh # registers NVIDIA's OpenCL
kl=build/kladder
export KLADDER_CACHE_DIR=$out/cache
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv >"$out/gpu.txt" 2>&1

# rows JSON: each row as "rung status GB/s note"
rows() {
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for x in r["results"]:
    gbps = x.get("gbps") or 0
    print("  %-18s %-8s %8.1f GB/s  %8.3f ms  %s" % (x["rung"], x["status"], gbps,
          (x.get("median_s") or 0) * 1e3, x.get("note", "")[:160]))
PY
}

# ladder NAME SIZE ARGS...: one kladder scan process, its table and JSON kept, its rows printed
ladder() {
    local name=$1 size=$2
    shift 2
    timeout 300 "$kl" scan --size "$size" "$@" --warmup 3 --repeats 20 --min-time 0.2 \
        --json "$out/$name.json" >"$out/$name.txt" 2>&1
    stamp "$name: exit $?"
    [ -s "$out/$name.json" ] && rows "$out/$name.json"
}

# every rung verified through CUDA at awkward sizes, both modes (quick: one timed launch)
q=(--backend cuda --warmup 0 --repeats 1 --min-time 0 -q --format csv)
for t in int float; do
    for mode in inclusive exclusive; do
        for size in 1 31 1025 1000007 16777259; do
            "$kl" scan "${q[@]}" --type "$t" --mode "$mode" --size "$size" >"$out/awkward.txt" 2>&1
            echo "$t $mode $size: exit $? $(grep -c ',verified,' "$out/awkward.txt") verified $(grep -c ',failed,' "$out/awkward.txt") failed"
        done
    done
done >"$out/awkward_all.txt"
stamp "awkward sizes: $(grep -c 'exit 0' "$out/awkward_all.txt") of $(wc -l <"$out/awkward_all.txt") exit 0"
grep -v ' 0 failed' "$out/awkward_all.txt" | grep -v 'exit 0 6 verified' | head

ladder cuda_int "$n" --backend cuda --type int --rung 03,04,05 --compare cub
python3 - "$n" >"$out/torch.txt" 2>&1 <<'PY'
import sys, torch
n = int(sys.argv[1])
for dt in (torch.int32, torch.float32):
    x = (torch.rand(n, device="cuda") * 2 - 1) if dt == torch.float32 else \
        torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=dt)
    y = torch.empty_like(x)
    for _ in range(3):
        torch.cumsum(x, 0, dtype=dt, out=y)
    ts = []
    for _ in range(20):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); torch.cumsum(x, 0, dtype=dt, out=y); b.record(); b.synchronize()
        ts.append(a.elapsed_time(b) * 1e-3)
    ts.sort()
    med = ts[len(ts) // 2]
    print("torch.cumsum %s: median %.3f ms, %.1f GB/s counting 2n words (torch %s)" % (
        str(dt).split(".")[1], med * 1e3, 2 * n * 4 / med * 1e-9, torch.__version__))
PY
stamp "torch"; cat "$out/torch.txt"
ladder cuda_float "$n" --backend cuda --rung 05 --compare cub
ladder cuda_exclusive "$n" --backend cuda --type int --mode exclusive --rung 05 --compare cub
ladder cuda_small $((n / 64)) --backend cuda --type int --compare cub # 01 and 02: one work-group
ladder opencl_int $((n / 16)) --type int --rung 01,02,03,05 # no sub-groups there
for tool in memcheck racecheck; do
    timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 97 --print-limit 10 \
        "$kl" scan --size 100003 --type int --compare cub --backend cuda --warmup 0 --repeats 1 \
        --min-time 0 >"$out/$tool.txt" 2>&1
    stamp "$tool: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool.txt" | head -n 1)"
done
# last, the longest (SKIP_CHECKS=1 leaves it out): the look-back verified on 100 runs after the
# timed one (each a poisoned output written, the scan, the output read back and compared with
# the first verified one)
[ "${SKIP_CHECKS:-0}" = 1 ] && exit 0
timeout 300 "$kl" scan --backend cuda --type int --size $((n + 7)) --rung 05 --checks 100 \
    --warmup 0 --repeats 1 --min-time 0 >"$out/checks100.txt" 2>&1
stamp "the look-back verified on 100 runs after the timed one at $((n + 7)): exit $?"
grep -E "^05_look_back +(verified|failed)" "$out/checks100.txt"
