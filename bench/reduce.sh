#!/usr/bin/env bash
# The reduction ladder on an NVIDIA GPU: every rung through CUDA beside CUB's
# DeviceReduce (the same data) and torch.sum (2^30 elements of its own),
# float and int; the ladder through NVIDIA's OpenCL; the top rung's
# parameters searched by the tuner; compute-sanitizer's memcheck and
# racecheck. Not a test: a benchmark for docs/RESULTS.md. Each step's output goes to $OUT (default bench/out)
# as it finishes, the most wanted first, so a run cut short keeps them.
#
#   bench/reduce.sh [N]   (default 1073741824 elements)
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
    print("  %-16s %-8s %8.1f GB/s  %7.3f ms  %s" % (x["rung"], x["status"], gbps,
          (x.get("median_s") or 0) * 1e3, "" if x["status"] == "verified" else x.get("note", "")[:200]))
PY
}

# ladder NAME SIZE ARGS...: one kladder reduce process, its table and JSON kept, its rows printed
ladder() {
    local name=$1 size=$2
    shift 2
    timeout 120 "$kl" reduce --size "$size" "$@" --warmup 3 --repeats 20 --min-time 0.2 \
        --json "$out/$name.json" >"$out/$name.txt" 2>&1
    stamp "$name: exit $?"
    [ -s "$out/$name.json" ] && rows "$out/$name.json"
}

ladder cuda_float "$n" --backend cuda --rung 01,02,03,04,05,06,07,08,09,10 --compare cub
python3 - "$n" >"$out/torch.txt" 2>&1 <<'PY'
import sys, torch
n = int(sys.argv[1])
for dt in (torch.float32, torch.int32):
    x = (torch.rand(n, device="cuda") * 2 - 1).to(dt) if dt == torch.float32 else \
        torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=dt)
    for _ in range(3):
        x.sum()
    ts = []
    for _ in range(20):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); x.sum(); b.record(); b.synchronize()
        ts.append(a.elapsed_time(b) * 1e-3)
    ts.sort()
    med = ts[len(ts) // 2]
    print("torch.sum %s: median %.3f ms, %.1f GB/s (torch %s)" % (
        str(dt).split(".")[1], med * 1e3, n * 4 / med * 1e-9, torch.__version__))
PY
stamp "torch"; cat "$out/torch.txt"
ladder cuda_int "$n" --backend cuda --type int --rung 07,08,09,10 --compare cub
ladder opencl_float $((n / 4)) --rung 01,02,03,04,06,07,08,09,10 # no sub-groups there
timeout 60 "$kl" tune reduce --backend cuda --size "$n" --rung 10 --budget 15s >"$out/tune.txt" 2>&1
stamp "tune: exit $?"; grep -E "^(best|tried|space):" "$out/tune.txt"
q=(--backend cuda --warmup 0 --repeats 1 --min-time 0)
for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 97 --print-limit 10 \
        "$kl" reduce --size 100003 --compare cub "${q[@]}" >"$out/$tool.txt" 2>&1
    stamp "$tool: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool.txt" | head -n 1)"
done
tar -C "$out" -czf "$out/reduce.tgz" --exclude cache --exclude reduce.tgz . 2>/dev/null
