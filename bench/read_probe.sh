#!/usr/bin/env bash
# Why the read-only ceiling stops where it does (not a test): torch.sum (CUB's
# reduction) at 1, 2 and 3 GiB as a peer; Nsight Compute on two of kladder's
# read kernels (the bytes they move and DRAM's share of its peak); and
# `kladder peak --vec 8` with 2 and 3 GiB buffers. Outputs go to $OUT.
set -uo pipefail
source "$(dirname "$0")/env.sh" >/dev/null 2>&1
py=/opt/torch/.venv/bin/python3
[ -x $py ] || py=python3
PYTHONUNBUFFERED=1 $py - <<'PY' >"$out/torch_sum.txt" 2>&1
import torch
for gib in (1, 2, 3):
    n = gib * (1 << 30) // 4
    for dt in (torch.int32, torch.float32):
        x = torch.randint(0, 1000, (n,), device="cuda", dtype=torch.int32).to(dt)
        for _ in range(5): x.sum()
        torch.cuda.synchronize()
        ts = []
        for _ in range(20):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); x.sum(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b) / 1e3)
        t = sorted(ts)[10]
        print(f"torch.sum {dt} {gib} GiB: {n * 4 / t * 1e-9:.1f} GB/s (median of 20, {t*1e3:.3f} ms)")
        del x
PY
cat "$out/torch_sum.txt"
export KLADDER_CACHE_DIR=$out/cache
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum.per_second,dram__bytes_write.sum.per_second,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active
timeout 200 ncu --clock-control none --kernel-name regex:'bw_read|bw_fill' --launch-skip 60 --launch-count 2 --metrics $metrics build/kladder peak --backend cuda --vec 8 --refresh >"$out/ncu.txt" 2>&1
grep -E 'bw_read|bw_fill|dram__|gpu__time|lts__|warps' "$out/ncu.txt" | head -40
for gib in 2 3; do
    build/kladder peak --backend cuda --vec 8 --bytes $((gib << 30)) >"$out/peak_${gib}g.txt" 2>&1
    echo "$gib GiB: exit $?"
    grep -E '^(read|copy|write)_v8 ' "$out/peak_${gib}g.txt"
done
