#!/usr/bin/env bash
# `kladder peak --quick` at the smallest buffer: every row it promises is
# there (bandwidth copy/read/write for each vector width, FMA rates, every
# tensor-core precision, the memory hierarchy, launch latency, transfers),
# every row is verified (the tensor rows skipped with their reason off
# NVIDIA's GPUs), every bandwidth row has GB/s > 0 and every FMA row
# GFLOP/s > 0, each bandwidth row moves the bytes its kind does over the
# buffer, each FMA and tensor-core row counts the operations its kernel's
# shape does over its work-items and iterations, the numbers agree with each other, the hierarchy's sweeps are
# ordered curves whose summary rows are among their points, the atomics' rows
# count operations, the JSON carries every ceiling with its unit and method,
# --vec restricts the widths, and --quick leaves the ceiling cache alone.
# usage: check_peak.sh KLADDER
set -u
kladder=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Ceilings go to a private, empty cache: --quick must neither read nor write it.
export KLADDER_CACHE_DIR=$tmp/cache
mkdir "$KLADDER_CACHE_DIR"
quick=(--quick --bytes 65536 --warmup 0 --repeats 1 --min-time 0)
fails=0

# The default device has fp64 when `kladder devices` says so for it.
source "$(dirname "$0")/device_facts.sh"
device_facts "$kladder"
fp64=0
[ "$(fact 'Double precision (fp64)')" = yes ] && fp64=1

# check NAME VECS JSON RC STDERR: the report of one run.
check() {
    local name=$1 vecs=$2 json=$3 rc=$4 err=$5
    if [ "$rc" -ne 0 ]; then
        printf 'FAIL (%s): exit %s, expected 0\n%s\n' "$name" "$rc" "$err"
        fails=$((fails + 1))
        return
    fi
    if ! python3 - "$json" "$vecs" "$fp64" "$name" <<'PY'; then
import json, re, sys
path, vecs, fp64, name = sys.argv[1], sys.argv[2].split(","), sys.argv[3] == "1", sys.argv[4]
bad = []
try:
    r = json.load(open(path))
except Exception as e:
    print(f"FAIL ({name}): the report is not JSON: {e}")
    sys.exit(1)
tensor = ["mma_tf32", "mma_f16", "mma_f16acc", "mma_bf16", "mma_i8", "mma_f64", "wgmma_tf32",
          "wgmma_f16", "wgmma_f16acc", "wgmma_bf16", "wgmma_e4m3", "wgmma_e5m2", "wgmma_i8"]
want = [f"{k}_v{v}" for k in ("copy", "read", "write") for v in vecs]
want += ["fma_f32"] + (["fma_f64"] if fp64 else []) + ["fma_i32", "fma_f16x2"] + tensor
want += ["local_bw", "cache_sweep", "l1_bw", "l2_bw", "chase", "l1_latency", "l2_latency",
         "mem_latency", "atomic_one", "atomic_spread", "atomic_local"]
want += ["launch_latency", "launch_host", "empty_kernel"]
xfer = ["write_pageable", "read_pageable", "write_pinned", "read_pinned", "map_read", "unmap_write"]
want += xfer
rows = r.get("results", [])
got = [x["rung"] for x in rows]
# A sweep is several rows of one name: compare the names with repeats folded.
folded = [n for i, n in enumerate(got) if i == 0 or n != got[i - 1]]
if folded != want:
    bad.append(f"rows {folded}\n  expected {want}")
for sweep in ("cache_sweep", "chase"):
    xs = [x.get("x") for x in rows if x["rung"] == sweep]
    if len(xs) < 2 or any(not a or a >= b for a, b in zip(xs, xs[1:])):
        bad.append(f"{sweep}: working sets {xs}, expected 2 or more, increasing")
# The summary rows are points of their curves: l1/l2 bandwidth among cache_sweep's, the
# latencies among chase's (their x, the working set, is one the sweep measured).
for summary, sweep in (("l1_bw", "cache_sweep"), ("l2_bw", "cache_sweep"),
                       ("l1_latency", "chase"), ("l2_latency", "chase"), ("mem_latency", "chase")):
    s = [x for x in rows if x["rung"] == summary]
    if s and s[0]["status"] == "verified" and s[0].get("x") not in [x.get("x") for x in rows if x["rung"] == sweep]:
        bad.append(f"{summary}: working set {s[0].get('x')} is not a point of {sweep}")
# Bytes a launch against the buffer: a copy reads and writes it, a write writes it, a read
# reads it and writes one partial sum per work-item (a word of them for each word read, at
# most).
buf = r.get("params", {}).get("bytes", 0)
for x in rows:
    n, b = x["rung"], x.get("bytes") or 0
    if x["status"] != "verified" or not re.match(r"(copy|read|write)_v[0-9]+$", n):
        continue
    if (n.startswith("copy") and b != 2 * buf) or (n.startswith("write") and b != buf) or \
            (n.startswith("read") and not buf < b <= 2 * buf):
        bad.append(f"{n}: {b} bytes a launch over a buffer of {buf}")
# The operations a launch does (the denominators of every compute % roof), from the shapes
# of the kernels and what each row ran (its note: work-items and iterations): an FMA row
# 2·VEC·CHAINS a work-item an iteration; packed halves 2·2·CHAINS; mma.sync CHAINS products
# of m×n×k a warp an iteration, wgmma one a warpgroup.
for x in rows:
    ran = re.search(r"(\d+) work-items, (\d+) iterations", x.get("note") or "")
    cfg, n = x.get("config") or "", x["rung"]
    if x["status"] != "verified" or not ran or not (n.startswith("fma_") or n in tensor):
        continue
    items, iters = int(ran.group(1)), int(ran.group(2))
    chains = re.search(r"CHAINS=(\d+)", cfg)
    mnk = re.search(r"m(\d+)n(\d+)k(\d+)", cfg)
    if n == "fma_f16x2":
        ops = 2 * 2 * int(chains.group(1)) * iters * items
    elif n.startswith("fma_"):
        ops = 2 * int(re.search(r"VEC=(\d+)", cfg).group(1)) * int(chains.group(1)) * iters * items
    else:
        product = 2 * int(mnk.group(1)) * int(mnk.group(2)) * int(mnk.group(3))
        ops = (items // 32 * int(chains.group(1)) if n.startswith("mma_") else items // 128) \
            * iters * product
    if abs((x.get("flops") or 0) - ops) > 1e-9 * ops:
        bad.append(f"{n}: {x.get('flops')} operations a launch; {cfg} over {items} work-items "
                   f"and {iters} iterations do {ops}")
for x in rows:
    if x["rung"].startswith("atomic_") and x["status"] == "verified" and not (x.get("flops") or 0) > 0:
        bad.append(f"{x['rung']}: no count of operations (flops {x.get('flops')})")
# Every ceiling in the JSON, with its unit and method (null values: not measured by --quick).
figs = r.get("ceiling_figures") or []
keys = {f["key"] for f in figs}
for k in ("copy_gbps", "tf32_gflops", "bf16_gflops", "fp8_gflops", "i8_giops", "f64_tc_gflops",
          "shared_gbps", "l2_gbps", "l1_ns", "mem_ns", "atomic_one_gops", "launch_us"):
    if k not in keys:
        bad.append(f"ceiling_figures lacks {k}")
for f in figs:
    if not f.get("unit") or not f.get("method") or "spec" not in f:
        bad.append(f"ceiling figure {f.get('key')} without unit, method or spec: {f}")
if r.get("workload") != "peak":
    bad.append(f"workload {r.get('workload')!r}, expected 'peak'")
p = r.get("params", {})
if p.get("bytes") != 65536 or p.get("quick") is not True:
    bad.append(f"params {p}: expected bytes 65536 and quick true")
for x in r.get("results", []):
    n = x["rung"]
    # Latency and transfer rows have no result to check: they are "measured".
    want_status = "measured" if n in xfer or n.startswith(("launch", "empty")) else "verified"
    # CUDA's events time a launch whole: launch_latency is that, and empty_kernel says why not.
    if n == "empty_kernel" and r.get("provenance", {}).get("backend") == "cuda":
        want_status = "skipped"
    # Tensor cores: NVIDIA GPUs of compute capability 8.0 or more (wgmma: 9.0, through CUDA);
    # elsewhere each row says why.
    if n in tensor and "nvidia" not in r["device"]["vendor"].lower():
        want_status = "skipped"
        if not re.match(r"no (TF32|FP16|BF16|INT8|FP64|FP8) tensor cores", x.get("note", "")):
            bad.append(f"{n}: skipped without saying why: {x.get('note')!r}")
    # A chase whose two timings noise reversed (a busy host) is skipped, saying so.
    if n == "chase" and x["status"] == "skipped":
        want_status = "skipped"
        if "noise" not in x.get("note", ""):
            bad.append(f"{n}: skipped without saying why: {x.get('note')!r}")
    # A level the sweep did not reach (mem_latency on a small --quick sweep) says why.
    if n in ("l1_bw", "l2_bw", "l1_latency", "l2_latency", "mem_latency") and x["status"] == "skipped":
        want_status = "skipped"
        if not x.get("note"):
            bad.append(f"{n}: skipped without saying why")
    # Packed halves: issued as PTX on NVIDIA GPUs of compute capability 8.0 or more.
    if n == "fma_f16x2" and "nvidia" not in r["device"]["vendor"].lower():
        want_status = "skipped"
        if not x.get("note", "").startswith("no packed-half arithmetic"):
            bad.append(f"{n}: skipped without saying why: {x.get('note')!r}")
    if x.get("status") != want_status:
        bad.append(f"{n}: status {x.get('status')!r}, expected {want_status!r} ({x.get('note')!r})")
        continue
    if want_status == "skipped":
        continue
    if not (0 <= x["min_s"] <= x["median_s"] <= x["max_s"]):
        bad.append(f"{n}: min/median/max {x['min_s']} {x['median_s']} {x['max_s']} out of order")
    if n.split("_")[0] in ("copy", "read", "write") and "_v" in n or n in xfer:
        # Bandwidth rows: GB/s > 0, = bytes / median, and a configuration.
        if not (x.get("gbps") or 0) > 0 or not (x.get("bytes") or 0) > 0:
            bad.append(f"{n}: gbps {x.get('gbps')}, bytes {x.get('bytes')}: expected > 0")
        elif abs(x["gbps"] - x["bytes"] / x["median_s"] * 1e-9) > 2e-3 * x["gbps"]:
            bad.append(f"{n}: gbps {x['gbps']} != bytes / median_s {x['bytes'] / x['median_s'] * 1e-9}")
        if not x.get("config"):
            bad.append(f"{n}: no configuration")
        if n.split("_")[0] in ("copy", "read", "write") and "_v" in n:
            v = n.split("_v")[1]
            if not x["config"].startswith("uint" + ("" if v == "1" else v) + " "):
                bad.append(f"{n}: config {x['config']!r} is not a uint{v} one")
    elif n.startswith(("fma_", "mma_", "wgmma_")):
        if not (x.get("gflops") or 0) > 0 or not (x.get("flops") or 0) > 0:
            bad.append(f"{n}: gflops {x.get('gflops')}, flops {x.get('flops')}: expected > 0")
        elif abs(x["gflops"] - x["flops"] / x["median_s"] * 1e-9) > 2e-3 * x["gflops"]:
            bad.append(f"{n}: gflops {x['gflops']} != flops / median_s")
        # FMA and mma.sync rows name their chains; wgmma rows their warpgroups and A's source.
        want_cfg = ("WGS=", "A=") if n.startswith("wgmma_") else ("CHAINS=",)
        if not all(w in x.get("config", "") for w in want_cfg):
            bad.append(f"{n}: config {x.get('config')!r} does not name {' and '.join(want_cfg)}")
    elif n == "launch_host" and not x["median_s"] > 0:
        bad.append(f"{n}: median {x['median_s']} s, expected > 0")
if bad:
    print(f"FAIL ({name}):\n  " + "\n  ".join(bad))
    sys.exit(1)
print(f"ok ({name}): {len(want)} rows, all verified, GB/s and GFLOP/s > 0 and consistent")
PY
        fails=$((fails + 1))
    fi
}

# 1. Every vector width, with no compiler chatter ("1 warning generated.") on standard
# error: kladder's output is its own. With KL_TEST_COLD_BUILDS=1 (peak_copy.cmake) the
# kernels are built afresh (PoCL's own cache off), so the compiler does print it.
cold=()
[ "${KL_TEST_COLD_BUILDS:-0}" = 1 ] && cold=(env POCL_KERNEL_CACHE=0)
"${cold[@]}" "$kladder" peak "${quick[@]}" --format json --output "$tmp/all.json" 2>"$tmp/err"
check "peak --quick, every width" 1,2,4,8,16 "$tmp/all.json" $? "$(cat "$tmp/err")"
if grep -q "generated\.$" "$tmp/err"; then
    echo "FAIL: the compiler's chatter reached standard error: $(grep "generated" "$tmp/err" | head -n 3)"
    fails=$((fails + 1))
else
    echo "ok: no compiler chatter on standard error"
fi

# 2. --vec restricts the bandwidth rows to the widths asked for, in order.
"$kladder" peak "${quick[@]}" --vec 8,2 --format json --output "$tmp/some.json" 2>"$tmp/err"
check "peak --quick --vec 8,2" 2,8 "$tmp/some.json" $? "$(cat "$tmp/err")"

# 3. --quick neither reads nor writes the cache.
left=$(ls -A "$KLADDER_CACHE_DIR")
if [ -n "$left" ]; then
    printf 'FAIL: peak --quick wrote to the ceiling cache: %s\n' "$left"
    fails=$((fails + 1))
else
    echo "ok: peak --quick left the ceiling cache empty"
fi

# 4. The table says that nothing was cached.
out=$("$kladder" peak "${quick[@]}" --vec 16 2>&1)
rc=$?
if [ "$rc" -ne 0 ] || ! grep -Eq '^copy_v16 +uint16 .*verified' <<<"$out" ||
    grep -q 'cached in' <<<"$out"; then
    printf 'FAIL (table): exit %s; expected a verified copy_v16 row and no "cached in"\n%s\n' "$rc" "$out"
    fails=$((fails + 1))
else
    echo "ok: peak --quick table has the rows and does not claim a cache"
fi

# 5. --transfers: six copies at every size from 4 KiB by fours to --bytes (each way and both
#    ways at once, from pageable and from pinned memory), each a point of a curve with its
#    bytes (both ways: twice the size); nothing cached; the page draws them against the size.
"$kladder" peak --transfers --bytes 1048576 --warmup 1 --repeats 3 --min-time 0 \
    --json "$tmp/xfer.json" >"$tmp/xfer.txt" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ -z "$(ls -A "$KLADDER_CACHE_DIR")" ] &&
    "$kladder" report "$tmp/xfer.json" -o "$tmp/xfer.html" >/dev/null 2>&1 &&
    grep -q "peak sweep: GB/s against the size of a copy" "$tmp/xfer.html" &&
    python3 -c "
import json, sys
rows = json.load(open(sys.argv[1]))['results']
sizes = [4096 * 4 ** k for k in range(5)]
names = ['h2d_pageable', 'd2h_pageable', 'h2d_pinned', 'd2h_pinned', 'both_pageable', 'both_pinned']
sm = ('sm_h2d_pinned', 'sm_d2h_pinned')  # the SMs' own copies: CUDA's only
assert [(r['rung'], r['x']) for r in rows if r['rung'] not in sm] == \
    [(n, s) for s in sizes for n in names], rows
for r in rows:
    ways = 2 if r['rung'].startswith('both_') else 1
    assert r['status'] == 'measured' and r['bytes'] == ways * r['x'] and r['gbps'] > 0, r
    assert abs(r['gbps'] - r['bytes'] / r['median_s'] * 1e-9) <= 1e-6 * r['gbps'], r
    assert ('each way' in r['config']) == (ways == 2), r['config']
" "$tmp/xfer.json" && grep -q 'both_pinned' "$tmp/xfer.html"; then
    echo "ok: peak --transfers: 4 KiB to 1 MiB, six copies each, a curve on the page, nothing cached"
else
    echo "FAIL: peak --transfers (exit $rc): $(head -c 2000 "$tmp/xfer.txt")"
    fails=$((fails + 1))
fi
exit $((fails > 0))
