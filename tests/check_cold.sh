#!/usr/bin/env bash
# --cold: a copy of 512 KiB (inside the last-level cache) timed warm and with the cache
# flushed before every launch, four runs of each in the order cold, warm, warm, cold, cold,
# warm, warm, cold; the cold runs' fastest launch must take at least 1.3 times the warm runs'
# fastest (each the best of its four runs: another process on a shared CPU only ever adds
# time, and a single warm run was once seen slower than a cold one), the header and the
# JSON's protocol say cold, each cold run counts a flush for every timed launch
# (cold_flushes), and a warm run says nothing of it. Every warm run lies between two cold
# ones, so that a stretch of contention long enough to slow every cold run slows every warm
# run too; even so, contention once let a --cold that flushed nothing pass the timing alone
# (mutation cold_flush_skipped), which the count now catches whatever the timing. Timing
# against timing: run alone (RUN_SERIAL), and not under the sanitizers.
# usage: check_cold.sh KLADDER
set -u
kladder=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KLADDER_CACHE_DIR=$tmp/cache
q=(copy --n 131072 --rung ilp4 --warmup 2 --repeats 31 --min-time 0)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run KIND R: run R of KIND (warm or cold) into $tmp/KIND.txt and KIND$R.json
run() {
    local opt=()
    [ "$1" = cold ] && opt=(--cold)
    "$kladder" "${q[@]}" "${opt[@]}" --json "$tmp/$1$2.json" >"$tmp/$1.txt" 2>&1 ||
        fail "$1 run: $(cat "$tmp/$1.txt")"
}
for r in 1 3; do
    run cold "$r"
    run warm "$r"
    run warm $((r + 1))
    run cold $((r + 1))
done
grep -q "cold: the last-level cache flushed before every timed launch (device rungs; [1-9][0-9]* flushes)" "$tmp/cold.txt" ||
    fail "the cold run's header does not say so: $(head -6 "$tmp/cold.txt")"
! grep -q "cold:" "$tmp/warm.txt" || fail "the warm run's header says cold"
python3 - "$tmp" <<'PY' || fails=$((fails + 1))
import json, sys
runs = {kind: [json.load(open(f"{sys.argv[1]}/{kind}{r}.json")) for r in (1, 2, 3, 4)]
        for kind in ("warm", "cold")}
rows = {kind: [next(x for x in run["results"] if x["rung"] == "ilp4") for run in rs]
        for kind, rs in runs.items()}
bad = []
for run, row in zip(runs["cold"], rows["cold"]):
    if run["protocol"].get("cold") is not True:
        bad.append(f"cold run's protocol: {run['protocol']}")
    elif not run["protocol"].get("cold_flushes", 0) >= row["repeats"]:
        bad.append(f"cold run flushed {run['protocol'].get('cold_flushes')} times for "
                   f"{row['repeats']} timed launches")
for run in runs["warm"]:
    if "cold" in run["protocol"]:
        bad.append(f"warm run's protocol: {run['protocol']}")
statuses = [x["status"] for rs in rows.values() for x in rs]
if any(s != "verified" for s in statuses):
    bad.append(f"statuses {statuses}")
else:
    w, c = (min(x["min_s"] for x in rows[kind]) for kind in ("warm", "cold"))
    if not c >= 1.3 * w:
        bad.append(f"cold fastest launch {c * 1e6:.1f} us is not 1.3x the warm "
                   f"{w * 1e6:.1f} us: the flush did not evict")
for b in bad:
    print("FAIL:", b)
if not bad:
    print(f"ok: 512 KiB copy, fastest launch of four runs warm {w * 1e6:.1f} us, cold "
          f"{c * 1e6:.1f} us ({c / w:.2f}x)")
sys.exit(1 if bad else 0)
PY
[ "$fails" -eq 0 ]
