#!/usr/bin/env bash
# `kladder peak --quick` at the smallest buffer: every row it promises is
# there (bandwidth copy/read/write for each vector width, FMA rates, launch
# latency, transfers), every row is verified, every bandwidth row has
# GB/s > 0 and every FMA row GFLOP/s > 0, the numbers agree with each other,
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
import json, sys
path, vecs, fp64, name = sys.argv[1], sys.argv[2].split(","), sys.argv[3] == "1", sys.argv[4]
bad = []
try:
    r = json.load(open(path))
except Exception as e:
    print(f"FAIL ({name}): the report is not JSON: {e}")
    sys.exit(1)
want = [f"{k}_v{v}" for k in ("copy", "read", "write") for v in vecs]
want += ["fma_f32"] + (["fma_f64"] if fp64 else []) + ["fma_i32", "mma_tf32", "fma_f16x2"]
want += ["launch_latency", "launch_host", "empty_kernel"]
xfer = ["write_pageable", "read_pageable", "write_pinned", "read_pinned", "map_read", "unmap_write"]
want += xfer
got = [x["rung"] for x in r.get("results", [])]
if got != want:
    bad.append(f"rows {got}\n  expected {want}")
if r.get("workload") != "peak":
    bad.append(f"workload {r.get('workload')!r}, expected 'peak'")
p = r.get("params", {})
if p.get("bytes") != 65536 or p.get("quick") is not True:
    bad.append(f"params {p}: expected bytes 65536 and quick true")
for x in r.get("results", []):
    n = x["rung"]
    # Latency and transfer rows have no result to check: they are "measured".
    want_status = "measured" if n in xfer or n.startswith(("launch", "empty")) else "verified"
    # CUDA's events cannot see a launch being queued: that row says so instead.
    if n == "launch_latency" and r.get("provenance", {}).get("backend") == "cuda":
        want_status = "skipped"
    # TF32 tensor cores: NVIDIA GPUs of compute capability 8.0 or more; elsewhere the row says why.
    if n == "mma_tf32" and "nvidia" not in r["device"]["vendor"].lower():
        want_status = "skipped"
        if not x.get("note", "").startswith("no TF32 tensor cores"):
            bad.append(f"{n}: skipped without saying why: {x.get('note')!r}")
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
    elif n.startswith(("fma_", "mma_")):
        if not (x.get("gflops") or 0) > 0 or not (x.get("flops") or 0) > 0:
            bad.append(f"{n}: gflops {x.get('gflops')}, flops {x.get('flops')}: expected > 0")
        elif abs(x["gflops"] - x["flops"] / x["median_s"] * 1e-9) > 2e-3 * x["gflops"]:
            bad.append(f"{n}: gflops {x['gflops']} != flops / median_s")
        if "CHAINS=" not in x.get("config", ""):
            bad.append(f"{n}: config {x.get('config')!r} does not name the chains")
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

# 1. Every vector width.
"$kladder" peak "${quick[@]}" --format json --output "$tmp/all.json" 2>"$tmp/err"
check "peak --quick, every width" 1,2,4,8,16 "$tmp/all.json" $? "$(cat "$tmp/err")"

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
exit $((fails > 0))
