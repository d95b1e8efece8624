#!/usr/bin/env bash
# --runs on every ladder (PoCL): `--runs 3` measures each timed row in three runs, interleaved
# across the rows (every row's first run, then every row's second, ...), as the JSON's runs
# say (their seq and launches, which add up to the row's samples); the row's time is the
# median of the runs' medians; and kladder compare reads them, three runs a row a side.
# usage: check_runs.sh KLADDER
set -u
kladder=$1
. "$(dirname "$0")/lib.sh" # $tmp, ok, fail
small=(--warmup 0 --repeats 5 --min-time 0 --runs 3)
for ladder in "gemm --size 9 --rung 07,09,10" "copy --n 1000" "rowdot --rows 37 --d 11" \
    "gemv --m 45 --n 29" "blur --width 37 --height 11 --rung 01,03,07"; do
    w=${ladder%% *}
    # shellcheck disable=SC2086 # the ladder's options, split
    if ! "$kladder" $ladder "${small[@]}" --json "$tmp/$w.json" >"$tmp/$w.out" 2>&1 ||
        ! "$kladder" $ladder "${small[@]}" --json "$tmp/$w.2.json" >>"$tmp/$w.out" 2>&1; then
        fail "$w --runs 3" "$tmp/$w.out"
        continue
    fi
    if python3 - "$tmp/$w.json" <<'PY'; then
import json, statistics, sys
rows = [r for r in json.load(open(sys.argv[1]))["results"] if r["status"] == "verified"]
assert rows, "no verified row"
order = []
for k, r in enumerate(rows):
    runs = r.get("runs")
    assert runs and len(runs) == 3, "%s: runs %r" % (r["rung"], runs)
    assert sum(x["launches"] for x in runs) == len(r["samples"]), r["rung"]
    assert r["median_s"] == statistics.median(x["median_s"] for x in runs), r["rung"]
    order += [(x["seq"], r["rung"], n) for n, x in enumerate(runs)]
# interleaved: ordered by seq, every row's run 1 comes before any row's run 2, and so on
order.sort()
passes = [n for _, _, n in order]
assert passes == sorted(passes), "runs not interleaved: %r" % order
print("ok: %d rows, three runs each, interleaved" % len(rows))
PY
        ok "$w --runs 3: every verified row three runs, interleaved, its median theirs"
    else
        fail "$w --runs 3: the runs in the JSON" "$tmp/$w.json"
    fi
    if "$kladder" compare "$tmp/$w.json" "$tmp/$w.2.json" >"$tmp/$w.cmp" 2>&1 &&
        grep -q "^old: .*; 3 runs a row)" "$tmp/$w.cmp"; then
        ok "$w: compare reads three runs a row"
    else
        fail "$w: compare of two --runs 3 runs" "$tmp/$w.cmp"
    fi
done
[ "$fails" -eq 0 ] || exit 1
