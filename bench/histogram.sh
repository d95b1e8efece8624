#!/usr/bin/env bash
# The histogram ladder on an NVIDIA GPU: every rung through CUDA verified at
# awkward sizes and bin counts; the ladder beside CUB's DeviceHistogram (the
# same bytes) and torch.bincount (2^30 bytes of its own), on uniform, skewed
# and constant bytes; the top rung's parameters searched by the tuner; the
# ladder through NVIDIA's OpenCL; compute-sanitizer's memcheck and racecheck.
# Not a test: a benchmark for docs/RESULTS.md. Each step's output goes to
# $OUT (default bench/out) as it finishes, the most wanted first.
#
#   bench/histogram.sh [N]   (default 1073741824 bytes)
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

# rows JSON: each row as "rung status GB/s note"
rows() {
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for x in r["results"]:
    gbps = x.get("gbps") or 0
    print("  %-18s %-8s %8.1f GB/s  %8.3f ms  %s" % (x["rung"], x["status"], gbps,
          (x.get("median_s") or 0) * 1e3, x.get("note", "")[:120]))
PY
}

# ladder NAME ARGS...: one kladder histogram process, its table and JSON kept, its rows printed
ladder() {
    local name=$1
    shift
    timeout 120 "$kl" histogram "$@" --warmup 3 --repeats 20 --min-time 0.2 \
        --json "$out/hist_$name.json" >"$out/hist_$name.txt" 2>&1
    stamp "$name: exit $?"
    [ -s "$out/hist_$name.json" ] && rows "$out/hist_$name.json"
}

q=(--backend cuda --warmup 0 --repeats 1 --min-time 0 -q --format csv)
for bins in 2 7 256; do
    for data in uniform skewed constant; do
        for size in 1 31 1000007; do
            "$kl" histogram "${q[@]}" --bins "$bins" --data "$data" --size "$size" >"$out/hist_a.txt" 2>&1
            echo "$bins $data $size: exit $? $(grep -c ',verified,' "$out/hist_a.txt") verified"
        done
    done
done >"$out/hist_awkward.txt"
stamp "awkward: $(grep -c 'exit 0 5 verified' "$out/hist_awkward.txt") of $(wc -l <"$out/hist_awkward.txt")"
grep -v 'exit 0 5 verified' "$out/hist_awkward.txt" | head

ladder uniform --backend cuda --size "$n" --compare cub
ladder skewed --backend cuda --size "$n" --data skewed --rung 02,03,04 --compare cub
ladder constant --backend cuda --size "$n" --data constant --rung 02,03,04 --compare cub
python3 - "$n" >"$out/hist_torch.txt" 2>&1 <<'PY'
import sys, torch
n = int(sys.argv[1])
x = torch.randint(0, 256, (n,), device="cuda", dtype=torch.uint8)
for _ in range(3):
    torch.bincount(x, minlength=256)
ts = []
for _ in range(20):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record(); torch.bincount(x, minlength=256); b.record(); b.synchronize()
    ts.append(a.elapsed_time(b) * 1e-3)
ts.sort()
med = ts[len(ts) // 2]
print("torch.bincount uint8, 256 bins: median %.3f ms, %.1f GB/s (torch %s)" % (
    med * 1e3, n / med * 1e-9, torch.__version__))
PY
stamp "torch"; cat "$out/hist_torch.txt"
timeout 60 "$kl" tune histogram --backend cuda --size $((n / 4)) --rung 04 --budget 30s >"$out/hist_tune.txt" 2>&1
stamp "tune: exit $?"; grep -E "^(best|tried|space):" "$out/hist_tune.txt"
ladder opencl --size $((n / 4))
for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 97 --print-limit 10 \
        "$kl" histogram --size 100003 --bins 7 --data skewed --compare cub --backend cuda \
        --warmup 0 --repeats 1 --min-time 0 >"$out/hist_$tool.txt" 2>&1
    stamp "$tool: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/hist_$tool.txt" | head -n 1)"
done
