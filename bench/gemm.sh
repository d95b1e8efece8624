#!/usr/bin/env bash
# GEMM ladder benchmark (not a test). On a machine with an NVIDIA GPU it
# registers NVIDIA's OpenCL library if needed and runs the ladder at the
# seed's 2000³ and at 4096³; otherwise (PoCL on a CPU) at 512³ and 1024³.
# Tables and JSON go to $OUT (default bench/out). Builds without installing
# anything (KLADDER_NO_INSTALL=1) so it works on machines without network.
#
#   bench/gemm.sh [extra kladder options, e.g. --device 1:0]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/out}
mkdir -p "$out"

if [ ! -x build/kladder ]; then
    opts=()
    # Some machines ship only libOpenCL.so.1 (no development symlink).
    lib=$(ldconfig -p 2>/dev/null | awk '/libOpenCL\.so\.1 /{print $NF; exit}')
    [ -n "$lib" ] && [ ! -e "$(dirname "$lib")/libOpenCL.so" ] && opts+=("-DOpenCL_LIBRARY=$lib")
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${opts[@]}" >/dev/null
    cmake --build build -j"$(nproc)" >/dev/null
fi

if [ -e /dev/nvidia0 ] && ! build/kladder devices 2>/dev/null | grep -qi nvidia; then
    mkdir -p /tmp/kladder-icd
    echo libnvidia-opencl.so.1 >/tmp/kladder-icd/nvidia.icd
    export OCL_ICD_VENDORS=/tmp/kladder-icd
fi

build/kladder devices >"$out/devices.txt" 2>&1 || true
if build/kladder devices 2>/dev/null | grep -q 'Type *GPU'; then
    sizes=(2000 4096)
    proto=(--warmup 1 --repeats 3 --min-time 0.3)
else
    sizes=(512 1024)
    proto=(--warmup 1 --repeats 3 --min-time 0.2 --host-rungs)
fi
for s in "${sizes[@]}"; do
    echo "== kladder gemm --size $s ${proto[*]} $*" | tee "$out/gemm_$s.txt"
    build/kladder gemm --size "$s" "${proto[@]}" "$@" --format json --output "$out/gemm_$s.json" || true
    # The table again from the same binary would re-run everything: render the JSON instead.
    python3 - "$out/gemm_$s.json" >>"$out/gemm_$s.txt" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
d = r["device"]
print(f'device: {d["name"]} ({d["platform"]}; {d["version"]}; driver {d["driver"]}); {r["provenance"]["date"]}')
print(f'reference: {r["reference"]}')
print(f'{"rung":18} {"status":9} {"median ms":>10} {"GFLOP/s":>10} {"x first":>8} {"e2e ms":>10}')
for x in r["results"]:
    ok = x["status"] == "verified"
    f = lambda v, p: f"{v:.{p}f}" if (ok and v is not None) else "-"
    print(f'{x["rung"]:18} {x["status"]:9} {f(x["median_s"] and x["median_s"]*1e3, 3):>10} '
          f'{f(x["gflops"], 1):>10} {f(x["speedup_first"], 2):>8} {f(x["total_s"] and x["total_s"]*1e3, 2):>10}')
    if not ok:
        print(f'    {x["note"]}')
PY
    cat "$out/gemm_$s.txt"
done
