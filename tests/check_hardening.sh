#!/usr/bin/env bash
# kladder under concurrency, interruptions and runaway kernels, on the
# default device (PoCL in CI), each mode in its own temporary directory and
# cache (KLADDER_CACHE_DIR).
# usage: check_hardening.sh KLADDER MODE [USER_KERNELS_DIR]
#   tune_lock   three `kladder tune` at once on one cache, each a different
#               rung: every one's entry is in the cache afterwards (twice over)
#   peak_race   two `kladder peak` at once on one cache: one valid cache file,
#               read back without a warning, and no temporary file left
#   interrupt   SIGINT and SIGTERM mid-ladder: exit 130 within seconds, the
#               rows measured so far in the table, JSON ("interrupted": true,
#               parsed by `kladder report`) and HTML; SIGINT mid-tune: exit
#               130, nothing cached
#   killed      SIGKILL mid-ladder: --output, --json and --report files from
#               an earlier run are left byte for byte as they were
#   timeout     a kernel that never ends (USER_KERNELS_DIR/endless.cl) with
#               --kernel-timeout 2: its row says timeout, the rows before it
#               are written, exit 4, all within seconds
# One "ok" line per check; FAIL lines and exit 1 on any failure.
set -u
kladder=$1
mode=$2
kernels=${3:-}
. "$(dirname "$0")/lib.sh" # $tmp, ok, fail
cd "$tmp" || exit 1
export KLADDER_CACHE_DIR=$tmp/cache

# json_check FILE EXPR: python's verdict on the parsed JSON (j), as "ok" or the reason.
json_check() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"not valid JSON: {e}")
    sys.exit()
rows = {r["rung"]: r for r in j.get("results", [])}
status = {k: r["status"] for k, r in rows.items()}
print("ok" if eval(sys.argv[2]) else f"expected {sys.argv[2]}; interrupted={j.get('interrupted')} "
      f"stopped_by={j.get('stopped_by')} statuses={status}")
EOF
}

# A ladder long enough to stop in the middle on any device: host rungs, each timed for 3 s
# of the host's clock (device rungs would take as long as their device's launches do).
long_run=(gemm --size 64 --rung host_ijk,host_ikj,host_jik,host_jki,host_kij --host-rungs
    --warmup 0 --min-time 3)

# stop_mid SIGNAL NAME: the long ladder, sent SIGNAL once its first rung is measured (as long
# after its start as a run of that rung alone takes, and 1.5 s more: the second under way);
# sets $rc and $stop_ms (signal to exit).
stop_mid() {
    local sig=$1 name=$2 t0
    "$kladder" "${long_run[@]}" --output "$name.txt" --json "$name.json" \
        --report "$name.html" 2>"$name.err" &
    local pid=$!
    sleep "$first_s"
    t0=$(date +%s%N)
    kill "-$sig" "$pid"
    wait "$pid"
    rc=$?
    stop_ms=$((($(date +%s%N) - t0) / 1000000))
}

case $mode in
tune_lock)
    # (The lock's unit test, test_tune, stores from four processes at once and fails without
    # it; this is the command line's side. The budget leaves room for a slow device start;
    # KLADDER_STORE_PAUSE_MS holds each store 2 s between its read and its write, so the
    # three stores overlap every time and only the lock keeps all three entries.)
    for round in 1 2; do
        for r in 01 03 10; do
            KLADDER_STORE_PAUSE_MS=2000 "$kladder" tune gemm --size 16 --rung $r --budget 8s \
                >"tune$r.out" 2>"tune$r.err" &
        done
        wait
        entries=$(grep -c '^entry ' cache/tuned-*.txt 2>/dev/null)
        rungs=$(sed -n 's/^entry .* rung=\([^ ]*\) .*/\1/p' cache/tuned-*.txt | sort | tr '\n' ' ')
        if [ "$entries" = 3 ] && [ "$rungs" = "01_naive 03_private_acc 10_tiled " ]; then
            ok "round $round: three tunes at once keep all three entries ($rungs)"
        else
            fail "round $round: $entries entries ($rungs), expected 01_naive 03_private_acc 10_tiled" \
                cache/tuned-*.txt tune01.err tune03.err tune10.err
        fi
    done
    "$kladder" tune --show >show.out 2>show.err
    if [ $? = 0 ] && ! grep -qi "corrupt\|warning" show.err; then
        ok "the cache reads back without a warning"
    else
        fail "tune --show after concurrent tunes" show.out show.err
    fi
    ;;
peak_race)
    for i in 1 2; do
        "$kladder" peak --refresh --bytes 65536 --vec 4 --warmup 0 --repeats 1 --min-time 0 \
            >"peak$i.out" 2>"peak$i.err" &
    done
    wait
    files=$(ls cache)
    if [ "$(ls cache | grep -c '^ceilings-.*\.txt$')" = 1 ] && ! ls cache | grep -q 'tmp'; then
        ok "one ceilings file, no temporary file left ($files)"
    else
        fail "cache directory after two peaks: $files" peak1.err peak2.err
    fi
    "$kladder" peak >cached.out 2>cached.err
    if [ $? = 0 ] && grep -q "cached in" cached.out && ! grep -qi "corrupt\|warning" cached.err; then
        ok "the cache reads back whole (kladder peak prints it without remeasuring)"
    else
        fail "reading the cache after two peaks" cached.out cached.err
    fi
    ;;
interrupt)
    # How long the first rung takes here, start-up included (devices and loads differ).
    t0=$(date +%s%N)
    "$kladder" "${long_run[@]:0:4}" host_ijk "${long_run[@]:5}" >/dev/null 2>&1
    first_s=$(awk -v ns=$(($(date +%s%N) - t0)) 'BEGIN { printf "%.1f", ns / 1e9 + 1.5 }')
    for sig in INT TERM; do
        stop_mid $sig $sig
        if [ "$rc" = 130 ] && [ "$stop_ms" -lt 5000 ]; then
            ok "SIG$sig: exit 130, $stop_ms ms after the signal"
        else
            fail "SIG$sig: exit $rc after $stop_ms ms (expected 130 within 5 s)" "$sig.err"
        fi
        # The rows before the stop verified; the last one too, or (the signal came while it
        # was measured) skipped as interrupted; fewer than the five rungs asked for.
        verdict=$(json_check "$sig.json" "j.get('interrupted') is True and j.get('stopped_by') == 'SIG$sig' and status.get('host_ijk') == 'verified' and len(status) < 5 and all(v == 'verified' for v in list(status.values())[:-1]) and (list(status.values())[-1] == 'verified' or (list(status.values())[-1] == 'skipped' and 'interrupted' in list(rows.values())[-1]['note']))")
        [ "$verdict" = ok ] && ok "SIG$sig: JSON marked interrupted, the rows before the stop verified" ||
            fail "SIG$sig: $verdict" "$sig.json" "$sig.err"
        if grep -q "^host_ijk  *verified" "$sig.txt" && grep -q "^INTERRUPTED (SIG$sig)" "$sig.txt"; then
            ok "SIG$sig: the table has the rows so far and says INTERRUPTED"
        else
            fail "SIG$sig: the table" "$sig.txt"
        fi
        if grep -q "host_ijk" "$sig.html" && grep -q "</html>" "$sig.html" &&
            "$kladder" report "$sig.json" --output "re$sig.html" 2>"re$sig.err"; then
            ok "SIG$sig: the HTML report is whole, and the JSON reads back through kladder report"
        else
            fail "SIG$sig: the HTML report" "$sig.html" "re$sig.err"
        fi
        if ls | grep -q 'tmp-'; then
            fail "SIG$sig: a temporary file is left: $(ls | grep tmp-)"
        fi
    done
    "$kladder" tune gemm --size 32 --rung 01 --budget 60s --min-time 1 >tune.out 2>tune.err &
    pid=$!
    sleep 4
    kill -INT $pid
    wait $pid
    rc=$?
    if [ "$rc" = 130 ] && ! ls cache/tuned-*.txt >/dev/null 2>&1; then
        ok "SIGINT mid-tune: exit 130, nothing cached"
    else
        fail "SIGINT mid-tune: exit $rc (expected 130), cache: $(ls cache 2>/dev/null)" tune.err
    fi
    ;;
killed)
    "$kladder" gemm --size 8 --rung 01 --warmup 0 --repeats 1 --min-time 0 --no-host-rungs \
        --output k.txt --json k.json --report k.html 2>k.err || fail "the first run" k.err
    for f in k.txt k.json k.html; do cp "$f" "old.$f"; done
    "$kladder" "${long_run[@]}" --output k.txt --json k.json --report k.html 2>k2.err &
    pid=$!
    sleep 5
    kill -KILL $pid
    wait $pid 2>/dev/null
    same=1
    for f in k.txt k.json k.html; do cmp -s "$f" "old.$f" || same=0; done
    if [ $same = 1 ]; then
        ok "SIGKILL mid-run: the earlier --output, --json and --report files are unchanged"
    else
        fail "SIGKILL mid-run changed an earlier file" k.txt k.json
    fi
    ;;
timeout)
    t0=$(date +%s)
    "$kladder" copy --n 4096 --rung ilp1,endless --kernel "$kernels/endless.cl" \
        --kernel-timeout 2 --json t.json >t.out 2>t.err
    rc=$?
    secs=$(($(date +%s) - t0))
    if [ "$rc" = 4 ] && [ "$secs" -lt 60 ] && grep -q "endless: a launch ran past --kernel-timeout 2 s" t.err; then
        ok "a kernel that never ends: exit 4 after $secs s, with the message"
    else
        fail "the endless kernel: exit $rc after $secs s (expected 4 within a minute)" t.err
    fi
    verdict=$(json_check t.json "j.get('interrupted') is True and 'kernel-timeout' in j.get('stopped_by', '') and status == {'ilp1': 'verified', 'endless': 'timeout'}")
    [ "$verdict" = ok ] && ok "JSON: ilp1 verified, endless timeout, marked interrupted" ||
        fail "timeout JSON: $verdict" t.json t.err
    grep -q "^endless  *timeout" t.out && ok "the table's row says timeout" ||
        fail "the table has no timeout row" t.out
    ;;
*)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
[ $fails = 0 ] || exit 1
