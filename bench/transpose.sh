#!/usr/bin/env bash
# The transpose ladder on an NVIDIA GPU (rung 06 on compute capability 9.0):
# the copy ceiling measured first (kladder peak --brief, which the rows' %
# roof divide by); every rung through CUDA verified at awkward shapes, out of place and in place, for
# 4-, 8- and 2-byte elements; the ladder beside cuBLAS's geam (the same
# matrix) and torch's x.t().contiguous() (a matrix of its own); in place;
# the top rung's parameters searched by the tuner; the ladder through
# NVIDIA's OpenCL; compute-sanitizer's memcheck and racecheck.
# Not a test: a benchmark for docs/RESULTS.md. Each step's output goes to
# $OUT (default bench/out) as it finishes, the most wanted first.
#
#   bench/transpose.sh [SIDE]   (default 16384: SIDE x SIDE matrices)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-bench/out}
mkdir -p "$out"
side=${1:-16384}
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

# rows JSON: each row as "rung status GB/s % roof note"
rows() {
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for x in r["results"]:
    print("  %-14s %-8s %8.1f GB/s %6.1f %%  %8.3f ms  %s" % (x["rung"], x["status"],
          x.get("gbps") or 0, x.get("pct_ceiling") or 0, (x.get("median_s") or 0) * 1e3,
          x.get("note", "")[:110]))
PY
}

# ladder NAME ARGS...: one kladder transpose process, its table and JSON kept, its rows printed
ladder() {
    local name=$1
    shift
    timeout 150 "$kl" transpose "$@" --warmup 3 --repeats 20 --min-time 0.2 \
        --json "$out/tr_$name.json" >"$out/tr_$name.txt" 2>&1
    stamp "$name: exit $?"
    [ -s "$out/tr_$name.json" ] && rows "$out/tr_$name.json"
}

timeout 120 "$kl" peak --backend cuda --brief >"$out/tr_peak.txt" 2>&1
stamp "peak: exit $?"; grep -iE "copy" "$out/tr_peak.txt" | head -n 3

q=(--backend cuda --warmup 0 --repeats 1 --min-time 0 -q --format csv)
for type in float double half; do
    for size in 1,1 1,1000 1000,1 17,33 1023,1025 4095,33 8,8 1020,1028 4096,40; do
        "$kl" transpose "${q[@]}" --type "$type" --size "$size" >"$out/tr_a.txt" 2>&1
        echo "$type $size out: exit $? $(grep -c ',failed,' "$out/tr_a.txt") failed, $(grep -c ',verified,' "$out/tr_a.txt") verified"
    done
    for size in 1 33 1024 1000; do
        "$kl" transpose "${q[@]}" --type "$type" --size "$size,$size" --place in >"$out/tr_a.txt" 2>&1
        echo "$type $size in: exit $? $(grep -c ',failed,' "$out/tr_a.txt") failed, $(grep -c ',verified,' "$out/tr_a.txt") verified"
    done
done >"$out/tr_awkward.txt"
# every rung verified; 06_tma skipped (saying why) in place and where a row is not whole
# 16-byte pieces
stamp "awkward: $(grep -c 'exit 0 0 failed' "$out/tr_awkward.txt") of $(wc -l <"$out/tr_awkward.txt") without a failure"
grep -v 'exit 0 0 failed' "$out/tr_awkward.txt" | head

ladder float --backend cuda --size "$side,$side" --rung 01,02,03,04,05,06 --compare cublas
ladder half --backend cuda --size "$side,$side" --type half --rung 02,03,04,05,06
ladder double --backend cuda --size "$side,$side" --type double --rung 03,04,05,06 --compare cublas
ladder double_tiles --backend cuda --size "$side,$side" --type double --rung 05 --param TILE=32 --param ROWS=8
ladder in_place --backend cuda --size "$side,$side" --place in --rung 02,03,04,05
ladder odd --backend cuda --size 16383,16385 --rung 04,05 --compare cublas
python3 - "$side" >"$out/tr_torch.txt" 2>&1 <<'PY'
import sys, torch
s = int(sys.argv[1])
for dt in (torch.float32, torch.float16, torch.float64):
    x = torch.rand((s, s), device="cuda").to(dt)
    for _ in range(3):
        x.t().contiguous()
    ts = []
    for _ in range(20):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); x.t().contiguous(); b.record(); b.synchronize()
        ts.append(a.elapsed_time(b) * 1e-3)
    ts.sort()
    med = ts[len(ts) // 2]
    print("torch x.t().contiguous() %s %dx%d: median %.3f ms, %.1f GB/s (torch %s)" % (
        dt, s, s, med * 1e3, 2 * x.numel() * x.element_size() / med * 1e-9, torch.__version__))
PY
stamp "torch"; cat "$out/tr_torch.txt"
timeout 90 "$kl" tune transpose --backend cuda --size "$((side / 2)),$((side / 2))" --type double --rung 05 --budget 45s >"$out/tr_tune.txt" 2>&1
stamp "tune: exit $?"; grep -E "^(best|tried|space):" "$out/tr_tune.txt"
ladder opencl --size 8192,8192 --rung 01,02,03,04,05
for tool in memcheck racecheck; do
    for place in out in; do
        timeout 90 compute-sanitizer --tool "$tool" --error-exitcode 97 --print-limit 10 \
            "$kl" transpose --size 260,260 --place "$place" --backend cuda \
            --warmup 0 --repeats 1 --min-time 0 >"$out/tr_${tool}_$place.txt" 2>&1
        stamp "$tool $place: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/tr_${tool}_$place.txt" | head -n 1)"
    done
done
