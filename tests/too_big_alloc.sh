#!/usr/bin/env bash
# A matrix larger than the device's largest allocation is refused before
# anything runs. Only testable where some matrix within the kernels' 32-bit
# indexing (2^31 elements, 8 GiB of float) exceeds that limit.
set -u
kladder=$1
expect=$(dirname "$0")/expect.sh
source "$(dirname "$0")/device_facts.sh"
device_facts "$kladder"
bytes=$(bytes_of "Max allocation")
if [ -z "$bytes" ] || [ "$bytes" -ge $((8 << 30)) ]; then
    echo "the default device allocates ${bytes:-?} bytes at once: no float matrix can exceed it; skipped"
    exit 77
fi
# A square C of side s with s*s*4 > max allocation, still below 2^31 elements.
side=$(awk -v b="$bytes" 'BEGIN {s = int(sqrt(b / 4)) + 1; print s}')
exec "$expect" 2 "largest allocation" "$kladder" gemm --m "$side" --n "$side" --k 1
