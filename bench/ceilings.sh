#!/usr/bin/env bash
# Every ceiling of the machine (not a test): `kladder peak --refresh` through
# CUDA and through NVIDIA's OpenCL, each timed whole; the vendor libraries'
# GEMMs in every tensor-core precision in the same run (bench/tensor_peers.py,
# PyTorch's cuBLAS and cuBLASLt, where /opt/torch/.venv has it); and clpeak
# 1.1.2 where its .deb is carried in .debs/. Outputs go to $OUT.
#   bash bench/ceilings.sh [peak|peers|clpeak]...   (default: all three)
set -uo pipefail
source "$(dirname "$0")/env.sh"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(peak peers clpeak)

for step in "${steps[@]}"; do
    case $step in
    peak)
        for backend in cuda opencl; do
            start=$(date +%s.%N)
            build/kladder peak --refresh --backend $backend --json "$out/peak_$backend.json" \
                >"$out/peak_$backend.txt" 2>&1
            rc=$?
            echo "peak --backend $backend: exit $rc in $(awk "BEGIN {print $(date +%s.%N) - $start}") s" |
                tee -a "$out/peak_$backend.txt"
            build/kladder peak --backend $backend >>"$out/peak_$backend.txt" 2>&1
        done
        ;;
    peers)
        py=/opt/torch/.venv/bin/python3
        [ -x $py ] || py=python3
        PYTHONUNBUFFERED=1 $py bench/tensor_peers.py 8192 16384 >"$out/peers.txt" 2>&1
        ;;
    clpeak)
        deb=$(ls .debs/clpeak_*.deb 2>/dev/null | head -n 1 || true)
        if [ -n "$deb" ]; then
            rm -rf /tmp/clpeak && dpkg -x "$deb" /tmp/clpeak
            dev=$(build/kladder devices | awk '/Default device/ {print $3}')
            /tmp/clpeak/usr/bin/clpeak -p "${dev%%:*}" -d "${dev##*:}" >"$out/clpeak.txt" 2>&1
        fi
        ;;
    esac
done
