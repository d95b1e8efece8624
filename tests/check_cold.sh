#!/usr/bin/env bash
# --cold: a copy of 1 MiB (inside the last-level cache) timed warm and then with the cache
# flushed before every launch; the cold median must be at least 1.3 times the warm one, the
# header and the JSON's protocol say cold, and a warm run says nothing of it. Timing
# against timing: run alone (RUN_SERIAL), and not under the sanitizers.
# usage: check_cold.sh KLADDER
set -u
kladder=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KLADDER_CACHE_DIR=$tmp/cache
q=(copy --n 262144 --rung ilp4 --warmup 2 --repeats 31 --min-time 0)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$kladder" "${q[@]}" --json "$tmp/warm.json" >"$tmp/warm.txt" 2>&1 || fail "warm run: $(cat "$tmp/warm.txt")"
"$kladder" "${q[@]}" --cold --json "$tmp/cold.json" >"$tmp/cold.txt" 2>&1 || fail "cold run: $(cat "$tmp/cold.txt")"
grep -q "cold: the last-level cache flushed before every timed launch" "$tmp/cold.txt" ||
    fail "the cold run's header does not say so: $(head -6 "$tmp/cold.txt")"
! grep -q "cold:" "$tmp/warm.txt" || fail "the warm run's header says cold"
python3 - "$tmp/warm.json" "$tmp/cold.json" <<'PY' || fails=$((fails + 1))
import json, sys
warm, cold = (json.load(open(p)) for p in sys.argv[1:3])
bad = []
if cold["protocol"].get("cold") is not True:
    bad.append(f"cold run's protocol: {cold['protocol']}")
if "cold" in warm["protocol"]:
    bad.append(f"warm run's protocol: {warm['protocol']}")
w, c = (next(x for x in r["results"] if x["rung"] == "ilp4") for r in (warm, cold))
if w["status"] != "verified" or c["status"] != "verified":
    bad.append(f"statuses {w['status']}, {c['status']}")
elif not c["median_s"] >= 1.3 * w["median_s"]:
    bad.append(f"cold median {c['median_s'] * 1e6:.1f} us is not 1.3x the warm "
               f"{w['median_s'] * 1e6:.1f} us: the flush did not evict")
for b in bad:
    print("FAIL:", b)
if not bad:
    print(f"ok: 1 MiB copy warm {w['median_s'] * 1e6:.1f} us, cold {c['median_s'] * 1e6:.1f} us "
          f"({c['median_s'] / w['median_s']:.2f}x)")
sys.exit(1 if bad else 0)
PY
[ "$fails" -eq 0 ]
