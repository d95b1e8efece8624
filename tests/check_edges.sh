#!/usr/bin/env bash
# The edges a new user hit (issue 57) whose check reads a run back:
#   noise      gemm --noise: every device row's noise is in the JSON and met, the
#              table says so (no "nan"), and no row is said to have stopped short
#   narrow     an FMA rung given bf16 is an FMA row (JSON tensor false) with a
#              line of its own in the summary of the fastest rungs
#   folded     on a CPU the nine CUDA rungs are one line of the table and one note,
#              and the machine table lists no host rung
#   outputs    report a.json -o a.json is refused and a.json stays JSON
#   compare    a new run that lost a rung fails the gate; a run whose medians were
#              changed without its launch times is refused (exit 2)
#   peak_stop  peak stopped by SIGINT keeps the rates of the rows it measured
# usage: check_edges.sh KLADDER
set -u
kladder=$1
. "$(dirname "$0")/lib.sh" # $tmp, ok, fail
export KLADDER_CACHE_DIR=$tmp/cache
quick=(--warmup 0 --repeats 3 --min-time 0)

"$kladder" gemm --size 32 --rung 03,10 --noise 5 --max-time 1 --json "$tmp/noise.json" \
    >"$tmp/noise.out" 2>&1
if python3 - "$tmp/noise.json" <<'PY' && ! grep -q "nan" "$tmp/noise.out" &&
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["results"] if r["status"] == "verified" and not r["on_host"]]
assert rows and all(r["noise"] is not None and r["noise"] >= 0 for r in rows), rows
PY
    grep -Eq "^noise: (every timed row reached 5 %|[0-9]+ of [0-9]+ timed rows stopped at 1 s)" "$tmp/noise.out"; then
    ok "gemm --noise: each row's noise in the JSON, the table's note true to it"
else
    fail "gemm --noise" "$tmp/noise.out" "$tmp/noise.json"
fi

"$kladder" gemm --size 32 --rung 10 --type bf16 "${quick[@]}" --json "$tmp/bf16.json" \
    >"$tmp/bf16.out" 2>&1
if grep -q '"tensor": false' "$tmp/bf16.json" && ! grep -q '"tensor": true' "$tmp/bf16.json" &&
    grep -Eq "^  bf16 +10_tiled " "$tmp/bf16.out"; then
    ok "an FMA rung given bf16: an FMA row, with its line among the fastest"
else
    fail "an FMA rung given bf16" "$tmp/bf16.out" "$tmp/bf16.json"
fi

"$kladder" gemm --size 16 --rung 01,host_ikj,14,15,16,17,18,19 "${quick[@]}" >"$tmp/cpu.out" 2>&1
if ! grep -q "CUDA C++: runs with --backend cuda" "$tmp/cpu.out"; then
    ok "CUDA rungs ran here (a CUDA device): nothing to fold"
elif grep -Eq "^14\.\.19, 6 rungs +skipped" "$tmp/cpu.out" &&
    [ "$(grep -c "CUDA C++: runs with --backend cuda" "$tmp/cpu.out")" = 1 ] &&
    ! grep -Eq "^host_ikj +(latency|-) " "$tmp/cpu.out"; then
    ok "CUDA rungs on a CPU: one line and one note; no host rung in the machine table"
else
    fail "CUDA rungs on a CPU" "$tmp/cpu.out"
fi

"$kladder" gemm --size 16 --rung 01,03 "${quick[@]}" --json "$tmp/a.json" >/dev/null 2>&1
"$kladder" report "$tmp/a.json" -o "$tmp/a.json" >"$tmp/self.out" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -q "would overwrite the input it reads" "$tmp/self.out" &&
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/a.json"; then
    ok "report a.json -o a.json refused, a.json still JSON"
else
    fail "report a.json -o a.json: exit $rc" "$tmp/self.out"
fi

python3 - "$tmp/a.json" "$tmp/lost.json" "$tmp/tripled.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lost = dict(d, results=[r for r in d["results"] if r["rung"] != "03_private_acc"])
json.dump(lost, open(sys.argv[2], "w"))
for r in d["results"]:
    if r.get("median_s"):
        r["median_s"] *= 3
json.dump(d, open(sys.argv[3], "w"))
PY
"$kladder" compare "$tmp/a.json" "$tmp/lost.json" --fail-on-regression 5 >"$tmp/lost.out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "REGRESSION: only in old" "$tmp/lost.out" &&
    grep -q "^FAIL: 1 regression .* or lost" "$tmp/lost.out"; then
    ok "compare: a rung the new run lost fails the gate"
else
    fail "compare with a lost rung: exit $rc, expected 1" "$tmp/lost.out"
fi
"$kladder" compare "$tmp/a.json" "$tmp/tripled.json" >"$tmp/tripled.out" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -q "is not the median of its launch times" "$tmp/tripled.out"; then
    ok "compare: medians changed without their launch times refused"
else
    fail "compare with tripled medians: exit $rc, expected 2" "$tmp/tripled.out"
fi

# Stopped 4, 8, 16 or 32 s in, until a row was measured first (a sanitizer's build, or a
# loaded machine, is slow; one vector width, so the first rows need few builds).
stopped=""
for wait in 4 8 16 32; do
    "$kladder" peak --quick --bytes 64K --vec 1 --format json -o "$tmp/stop.json" >/dev/null \
        2>"$tmp/stop.err" &
    pid=$!
    sleep "$wait"
    kill -INT "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
    if [ "$rc" = 0 ]; then
        stopped="finished"
        break
    fi
    if [ "$rc" = 130 ] && python3 - "$tmp/stop.json" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if any(r["status"] == "verified" for r in d["results"]) else 1)
PY
        stopped="after $wait s"
        break
    fi
    [ "$rc" = 130 ] || break
done
if [ "$stopped" = finished ]; then
    ok "peak finished before the signal (a fast machine): nothing to check"
elif [ -n "$stopped" ] && python3 - "$tmp/stop.json" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if r["status"] == "verified":
        assert (r["gbps"] or 0) > 0 or (r["gflops"] or 0) > 0, r["rung"]
PY
    ok "peak stopped by SIGINT $stopped: exit 130, its measured rows with their rates"
else
    fail "peak stopped by SIGINT: exit $rc, no measured row with its rate" "$tmp/stop.err" "$tmp/stop.json"
fi

[ "$fails" -eq 0 ] || exit 1
