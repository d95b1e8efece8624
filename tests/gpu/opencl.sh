#!/usr/bin/env bash
# NVIDIA's OpenCL on a real GPU (CI has none; run this on the GPU machine):
# `bash tests/gpu/opencl.sh [build-dir]`. Outputs go to $OUT (default
# tests/gpu/out). NVIDIA's OpenCL library is registered for the run
# (OCL_ICD_VENDORS) when the system registers only other platforms.
#
#  1. The CTest suite with KLADDER_DEVICE naming the NVIDIA OpenCL device, so
#     every rung of every workload runs through NVIDIA's OpenCL compiler at the
#     awkward sizes of the PoCL tests and is verified; the tensor-core rungs
#     (15cl, 16cl, 13cl: mma.sync through inline PTX) run there instead of being
#     skipped. Left out: oclgrind (a simulator of its own), the private-array
#     bounds (a CPU device's) and the tuner's wrong-kernel test (its wrong
#     candidate, a 16-work-item group, is pruned from a GPU's space).
#  2. The tensor-core rungs and the TF32 peak kernel at the shapes that stress
#     them (K = 1, unaligned rows, partial tiles, many blocks), and the blur's
#     (13cl) at the sizes and radii that stress it, each verified.
# Exit status: 0 when both pass, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build=${1:-build}
out=${OUT:-tests/gpu/out}
mkdir -p "$out"
kl=$build/kladder
[ -x "$kl" ] || { echo "no $kl: build kladder first" >&2; exit 2; }
if [ -e /dev/nvidia0 ] && ! "$kl" devices 2>/dev/null | grep -q 'NVIDIA CUDA'; then
    mkdir -p /tmp/kladder-icd
    echo libnvidia-opencl.so.1 >/tmp/kladder-icd/nvidia.icd
    export OCL_ICD_VENDORS=/tmp/kladder-icd
fi
"$kl" devices >"$out/devices_opencl.txt" 2>&1
dev=$(awk '/^  Device [0-9]+:[0-9]+ .*NVIDIA/ {print $2; exit}' "$out/devices_opencl.txt")
if [ -z "$dev" ]; then
    echo "no NVIDIA OpenCL device (see $out/devices_opencl.txt)" >&2
    exit 2
fi
status=0
export KLADDER_CACHE_DIR=$out/cache_opencl

echo "== 1. CTest through NVIDIA OpenCL ($dev)"
(cd "$build" && KLADDER_DEVICE=$dev ctest -j4 -E 'oclgrind|private_too_big|tune_rejects_wrong' \
    --output-on-failure) >"$out/ctest_opencl.txt" 2>&1 || status=1
tail -n 4 "$out/ctest_opencl.txt"

echo "== 2. tensor-core rungs and the TF32 roof"
quick=(--device "$dev" --warmup 0 --repeats 1 --min-time 0)
shapes=("--m 1 --n 1 --k 1" "--m 1 --n 37 --k 1" "--m 37 --n 1 --k 29" "--m 17 --n 33 --k 9"
        "--m 129 --n 130 --k 131" "--m 300 --n 265 --k 67" "--m 1024 --n 1024 --k 3"
        "--m 260 --n 264 --k 96 --param BM=32 --param BN=32 --param BK=16 --param WM=32 --param WN=16")
for s in "${shapes[@]}"; do
    # shellcheck disable=SC2086
    "$kl" gemm $s --rung 15cl,16cl "${quick[@]}" >"$out/tmp.txt" 2>&1
    rc=$?
    n=$(grep -Ec '^1[56]cl_mma_[0-9a-z]+ +verified' "$out/tmp.txt")
    if [ "$rc" -eq 0 ] && [ "$n" -eq 2 ]; then
        echo "ok    gemm $s: 15cl and 16cl verified"
    else
        echo "FAIL  gemm $s: exit $rc, $n of 2 verified"
        status=1
    fi
    { echo "\$ kladder gemm $s --rung 15cl,16cl ${quick[*]}"; cat "$out/tmp.txt"; } >>"$out/tensor_opencl.txt"
done
# The blur's tensor-core rung: single pixels, one row, one column, odd sizes, radius 0 and 1,
# a radius larger than the picture, every channel count, short strips, a large picture.
blurs=("--width 1 --height 1" "--width 1 --height 9" "--width 9 --height 1"
       "--width 17 --height 13" "--width 100 --height 37" "--width 100 --height 37 --radius 0"
       "--width 100 --height 37 --radius 1" "--width 20 --height 17 --radius 30"
       "--width 301 --height 70 --param CW=1 --param WX=2 --param SH=20" "--width 300 --height 70 --param CW=2 --param WX=3"
       "--width 4095 --height 4097 --sigma 8")
for s in "${blurs[@]}"; do
    # shellcheck disable=SC2086
    "$kl" blur $s --pixel uchar4 --rung 13cl "${quick[@]}" >"$out/tmp.txt" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ] && grep -Eq '^13cl_mma .*verified' "$out/tmp.txt"; then
        echo "ok    blur $s: 13cl verified"
    else
        echo "FAIL  blur $s: exit $rc, 13cl not verified"
        status=1
    fi
    { echo "\$ kladder blur $s --pixel uchar4 --rung 13cl ${quick[*]}"; cat "$out/tmp.txt"; } >>"$out/tensor_opencl.txt"
done
"$kl" peak --device "$dev" --bytes 16777216 --refresh --format json --output "$out/peak_opencl.json" \
    >"$out/tmp.txt" 2>&1
if python3 - "$out/peak_opencl.json" <<'PY'; then
import json, sys
r = {x["rung"]: x for x in json.load(open(sys.argv[1]))["results"]}
for name, prec in (("mma_tf32", "tf32"), ("fma_f16x2", "fp16")):
    m = r.get(name, {})
    assert m.get("status") == "verified" and m.get("precision") == prec and m.get("gflops", 0) > 0, m
    print(f"ok    peak: {name} verified, {m['gflops']:.0f} GFLOP/s ({m['config']})")
PY
    :
else
    echo "FAIL  peak: no verified mma_tf32 or fma_f16x2 row"
    status=1
fi
rm -f "$out/tmp.txt"
exit $status
