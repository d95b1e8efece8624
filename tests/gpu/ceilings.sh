#!/usr/bin/env bash
# `kladder peak`'s ceilings on a real NVIDIA GPU (CI has none; run this on the
# GPU machine): `bash tests/gpu/ceilings.sh [build-dir]`. Outputs go to $OUT
# (default tests/gpu/out).
#
#  1. Through CUDA, `peak --quick` under compute-sanitizer's memcheck: every
#     tensor-core row of the device's compute capability (mma.sync on 8.0 and
#     later, wgmma on 9.0) and every hierarchy row verified, and the sanitizer
#     reports nothing.
#  2. Through NVIDIA's OpenCL, `peak --quick`: the mma.sync rows verified, the
#     wgmma rows skipped with the reason (never a build error).
#  3. A full `peak` through CUDA: every row verified, measured or skipped with
#     a reason, the ceilings cached, and the cached file read back by
#     `kladder peak --format json` with every tensor figure above zero.
# Exit status: 0 when all pass, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build=${1:-build}
out=${OUT:-tests/gpu/out}
mkdir -p "$out"
kl=$build/kladder
[ -x "$kl" ] || { echo "no $kl: build kladder first" >&2; exit 2; }
export KLADDER_CACHE_DIR=$out/cache
status=0
quick=(peak --quick --bytes 1048576 --warmup 0 --repeats 1 --min-time 0)

# check JSON BACKEND: every row as expected for the device in the file.
check() {
    python3 - "$1" "$2" <<'PY'
import json, sys
path, backend = sys.argv[1], sys.argv[2]
r = json.load(open(path))
bad, seen = [], 0
for x in r["results"]:
    n, st, note = x["rung"], x["status"], x.get("note", "")
    if n.startswith(("mma_", "wgmma_")):
        seen += 1
        if n.startswith("wgmma_") and backend == "opencl":
            if st != "skipped" or "CUDA" not in note:
                bad.append(f"{n}: {st} ({note!r}), expected skipped naming CUDA")
            continue
        if st != "verified":
            bad.append(f"{n}: {st} ({note!r})")
    elif st not in ("verified", "measured") and not (st == "skipped" and note):
        bad.append(f"{n}: {st} ({note!r})")
if seen != 13:
    bad.append(f"{seen} tensor rows, expected 13")
print("\n".join(bad) if bad else f"ok: {path}")
sys.exit(1 if bad else 0)
PY
}

echo "== 1. peak --quick through CUDA under compute-sanitizer"
compute-sanitizer --tool memcheck --print-limit 20 --error-exitcode 9 \
    "$kl" "${quick[@]}" --backend cuda --format json --output "$out/quick_cuda.json" \
    >"$out/sanitizer.txt" 2>&1
rc=$?
tail -3 "$out/sanitizer.txt"
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc under memcheck"; status=1; }
check "$out/quick_cuda.json" cuda || status=1

echo "== 2. peak --quick through NVIDIA's OpenCL"
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd
OCL_ICD_VENDORS=/tmp/icd "$kl" "${quick[@]}" --device gpu --format json \
    --output "$out/quick_opencl.json" 2>"$out/quick_opencl.err" ||
    { echo "FAIL: OpenCL peak: $(tail -2 "$out/quick_opencl.err")"; status=1; }
check "$out/quick_opencl.json" opencl || status=1

echo "== 3. a full peak through CUDA, cached and read back"
start=$(date +%s.%N)
"$kl" peak --refresh --backend cuda --json "$out/peak_cuda.json" >"$out/peak_cuda.txt" 2>&1 ||
    { echo "FAIL: peak exit $?"; status=1; }
echo "peak took $(awk "BEGIN {print $(date +%s.%N) - $start}") s"
"$kl" peak --backend cuda --format json >"$out/cached.json" 2>&1 || status=1
python3 - "$out/cached.json" <<'PY' || status=1
import json, sys
c = json.load(open(sys.argv[1]))
keys = ["tf32_gflops", "f16_tc_gflops", "f16acc_tc_gflops", "bf16_gflops", "fp8_gflops",
        "fp8e5m2_gflops", "i8_giops", "f64_tc_gflops", "l2_gbps", "shared_gbps", "mem_ns"]
bad = [k for k in keys if not c.get(k, 0) > 0]
print(f"FAIL: cached ceilings without {bad}" if bad else "ok: the cache holds every figure")
sys.exit(1 if bad else 0)
PY
exit $status
