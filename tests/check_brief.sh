#!/usr/bin/env bash
# The brief search of the first run (`kladder peak --brief`), against the
# full one, in a private cache:
# - three brief runs: each exits 0, has one verified row a kind of memory
#   traffic (copy, read, write), one a FMA type and local_bw, and no latency,
#   transfer or sweep rows; the cache says "source the first run's brief
#   search", and so does the JSON;
# - a plain `kladder peak` then measures every figure (a cached brief search
#   is not the full one), says why, and caches "source kladder peak";
# - the median of the three brief figures is within 10% of the full
#   search's for the FMA units (FP32, FP64 where the device has it, INT32),
#   and within 25% for memory (copy, read, write): on the 2-core virtual
#   machines of CI, memory bandwidth drifts by up to a quarter between runs
#   seconds apart (copy 19.8 to 26.0 GB/s in three brief runs in a row),
#   while a poor configuration costs more (vectors of one word: 2.5x). Local
#   memory is printed, not asserted: PoCL's runs land near 100 or near 200
#   GB/s, in either search, from one run to the next. Outside the bounds, the
#   four runs are measured once more and must agree then (CI once saw copy
#   at 18.8 GB/s in the brief runs and 31.0 in the full one, a minute apart);
# - --brief with --wide or --quick is refused (exit 2).
# Timing-sensitive: registered RUN_SERIAL, and not under the sanitizers.
# usage: check_brief.sh KLADDER
set -u
kladder=$1
. "$(dirname "$0")/lib.sh" # $tmp, ok, fail
export KLADDER_CACHE_DIR=$tmp/cache
source "$(dirname "$0")/device_facts.sh"
device_facts "$kladder"
fp64=0
[ "$(fact 'Double precision (fp64)')" = yes ] && fp64=1

for i in 1 2 3; do
    t0=$(date +%s%N)
    "$kladder" peak --brief --refresh --format json -o "$tmp/brief$i.json" 2>"$tmp/brief$i.err"
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    if [ "$rc" -ne 0 ]; then
        fail "peak --brief (run $i): exit $rc" "$tmp/brief$i.err"
        continue
    fi
    if ! python3 - "$tmp/brief$i.json" "$fp64" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
want = ["copy", "read", "write", "fma_f32", "fma_i32", "local_bw"] + (["fma_f64"] if sys.argv[2] == "1" else [])
rows = {r["rung"]: r for r in d["results"]}
bad = [w + " missing or not verified" for w in want if rows.get(w, {}).get("status") != "verified"]
extra = [r for r in rows if r.startswith(("copy_v", "launch", "write_p", "read_p", "cache_sweep", "chase", "atomic", "fma_f16x2"))]
bad += ["unexpected row " + r for r in extra]
src = d["ceiling_values"].get("source")
if src != "the first run's brief search":
    bad.append("ceiling_values.source is %r" % src)
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
        fail "peak --brief (run $i): the rows or the source above" "$tmp/brief$i.json"
    else
        ok "peak --brief (run $i): every brief row verified, source recorded, ${ms} ms"
    fi
done
if grep -q "^source the first run's brief search\$" "$KLADDER_CACHE_DIR"/ceilings-*.txt 2>/dev/null; then
    ok "the cache records its source: the brief search"
else
    fail "the cache does not say it came from the brief search" "$KLADDER_CACHE_DIR"/ceilings-*.txt
fi

# A plain peak over a brief cache measures everything.
t0=$(date +%s%N)
"$kladder" peak --format json -o "$tmp/full.json" 2>"$tmp/full.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$rc" -ne 0 ] || ! grep -q "come from the first run's brief search; measuring every figure" "$tmp/full.err" ||
    ! grep -q '"rung": "copy_v4"' "$tmp/full.json" ||
    ! grep -q "^source kladder peak\$" "$KLADDER_CACHE_DIR"/ceilings-*.txt; then
    fail "plain peak over a brief cache: exit $rc; expected a full measurement, said and cached" \
        "$tmp/full.err" "$KLADDER_CACHE_DIR"/ceilings-*.txt
else
    ok "plain peak over a brief cache measures every figure and caches them (${ms} ms)"
fi

# compare B1 B2 B3 FULL: the brief medians against the full search's, printed; 0 when within.
compare() {
    python3 - "$fp64" "$@" <<'PY'
import json, statistics, sys
fp64, paths = sys.argv[1] == "1", sys.argv[2:]
try:
    runs = [json.load(open(p))["ceiling_values"] for p in paths]
except (OSError, ValueError) as e:
    print("  cannot read the runs: %s" % e)
    sys.exit(1)
brief, full = runs[:3], runs[3]
within = {"f32_gflops": 0.10, "i32_giops": 0.10, "copy_gbps": 0.25, "read_gbps": 0.25,
          "write_gbps": 0.25, "shared_gbps": None}
if fp64:
    within["f64_gflops"] = 0.10
bad = 0
for k, tol in within.items():
    vals = [b.get(k) or 0 for b in brief]
    med, ref = statistics.median(vals), full.get(k) or 0
    ratio = med / ref if ref > 0 else 0
    off = tol is not None and not 1 - tol <= ratio <= 1 + tol
    bad += off
    print("  %-12s brief %s, median %.4g; full %.4g: %.3f (%s)" % (
        k, ", ".join("%.4g" % v for v in vals), med, ref, ratio,
        "printed only" if tol is None else "OUT OF %d%%" % (tol * 100) if off else "within %d%%" % (tol * 100)))
sys.exit(1 if bad else 0)
PY
}

# The bounds allow the drift of memory bandwidth between runs seconds apart; where a noisy
# moment of the machine still puts a figure outside them, the three brief runs and the full
# one are measured once more and must agree then (a search that finds poor configurations
# fails both times).
if compare "$tmp"/brief1.json "$tmp"/brief2.json "$tmp"/brief3.json "$tmp/full.json"; then
    ok "the brief search's medians agree with the full search's"
else
    echo "  outside the bounds: measuring the four runs once more"
    for i in 1 2 3; do
        "$kladder" peak --brief --refresh --format json -o "$tmp/again$i.json" 2>/dev/null
    done
    "$kladder" peak --refresh --format json -o "$tmp/again_full.json" 2>/dev/null
    if compare "$tmp"/again1.json "$tmp"/again2.json "$tmp"/again3.json "$tmp/again_full.json"; then
        ok "the brief search's medians agree with the full search's (on the second measurement)"
    else
        fail "the brief search's medians are not within their bounds of the full search's, twice"
    fi
fi

for other in --wide --quick; do
    "$kladder" peak --brief "$other" >"$tmp/both.out" 2>"$tmp/both.err"
    rc=$?
    if [ "$rc" -ne 2 ] || ! grep -q "are different searches: choose one" "$tmp/both.err"; then
        fail "peak --brief $other: exit $rc; expected 2 and \"choose one\"" "$tmp/both.err"
    else
        ok "peak --brief $other refused: $(cat "$tmp/both.err")"
    fi
done
[ "$fails" -eq 0 ] || exit 1
