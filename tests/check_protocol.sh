#!/usr/bin/env bash
# The protocol's conditions on a device without NVML (PoCL): --shuffle runs the rows in an
# order drawn from the seed and lists them in the ladder's; --warm-cold gives each rung a warm
# and a cold row, kept together when shuffled; --cooldown waits its whole time
# before each row where there is no temperature to watch; --min-clock and --lock-clocks say
# that there is no clock here rather than pretend; the JSON's conditions say why NVML told
# nothing and how the inputs were drawn. On a GPU (KLADDER_DEVICE=cuda:0, tests/gpu/cuda.sh)
# the same runs show the clocks instead: every launch's, and the lock held or refused.
# usage: check_protocol.sh KLADDER
set -u
. "$(dirname "$0")/lib.sh"
kladder=$1
export KLADDER_CACHE_DIR=$tmp/cache
q=(rowdot --rows 64 --d 32 --warmup 0 --repeats 3 --min-time 0)

for s in 3 3 4; do
    n=$((${n:-0} + 1))
    "$kladder" "${q[@]}" --rung 01,02,03,04 --shuffle --seed "$s" --json "$tmp/shuffle$n.json" \
        >"$tmp/shuffle$n.txt" 2>&1 || fail "--shuffle --seed $s" "$tmp/shuffle$n.txt"
done
python3 - "$tmp" <<'PY' && ok "--shuffle: a permutation from the seed, the rows in ladder order" ||
import json, sys
runs = [json.load(open(f"{sys.argv[1]}/shuffle{n}.json")) for n in (1, 2, 3)]
ladder = ["01_naive", "02_local_v", "03_group_row", "04_group_vec4"]
orders = [r["protocol"]["run_order"].split(", ") for r in runs]
for r, order in zip(runs, orders):
    assert [x["rung"] for x in r["results"]] == ladder, [x["rung"] for x in r["results"]]
    assert all(x["status"] == "verified" for x in r["results"]), [x["status"] for x in r["results"]]
    assert r["protocol"]["shuffle"] is True and sorted(order) == ladder, order
assert orders[0] == orders[1], f"seed 3 twice: {orders[0]} and {orders[1]}"
assert orders[0] != ladder or orders[2] != ladder, f"neither seed shuffled: {orders}"
PY
    fail "--shuffle" "$tmp/shuffle1.txt"
grep -q "rows in a random order (0" "$tmp/shuffle1.txt" || fail "--shuffle's header" "$tmp/shuffle1.txt"

"$kladder" "${q[@]}" --rung 01,02,03 --warm-cold --shuffle --seed 3 --json "$tmp/wc.json" \
    >"$tmp/wc.txt" 2>&1 && python3 - "$tmp/wc.json" <<'PY' && ok "--warm-cold: a warm and a cold row a rung, together when shuffled" ||
import json, sys
r = json.load(open(sys.argv[1]))
rows = [(x["rung"], x["config"].split()[-1], x["status"]) for x in r["results"]]
want = [(g, c, "verified") for g in ("01_naive", "02_local_v", "03_group_row") for c in ("warm", "cold")]
assert rows == want, rows
assert r["protocol"]["cold"] is True and r["protocol"]["warm_and_cold"] is True, r["protocol"]
PY
    fail "--warm-cold" "$tmp/wc.txt" "$tmp/wc.json"

start=$(date +%s%N)
"$kladder" "${q[@]}" --rung 01,02 --cooldown 0.4 >"$tmp/cool.txt" 2>&1 || fail "--cooldown" "$tmp/cool.txt"
took=$((($(date +%s%N) - start) / 1000000))
# NVML's clocks in the header: a GPU, whose temperature the cool-down watches.
nvml=0
grep -q "^machine:   clocks free to move\|^machine:   SM clock locked" "$tmp/cool.txt" && nvml=1
if ! grep -q "before each row a cool-down of up to 0.4 s" "$tmp/cool.txt"; then
    fail "--cooldown 0.4: the header does not say it" "$tmp/cool.txt"
elif [ $nvml = 0 ] && [ "$took" -ge 800 ]; then
    ok "--cooldown 0.4 without a temperature: two rows took $took ms"
elif [ $nvml = 1 ]; then
    ok "--cooldown 0.4 watching a GPU's temperature: two rows took $took ms"
else
    fail "--cooldown 0.4 with two rows took $took ms (at least 800 expected)" "$tmp/cool.txt"
fi

# Without a clock (PoCL) the header and the conditions say so; with one (a GPU through NVML)
# every launch has its clock and the row its cycles.
"$kladder" "${q[@]}" --rung 01 --min-clock 75 --json "$tmp/clock.json" --report "$tmp/clock.html" \
    >"$tmp/clock.txt" 2>&1 || fail "--min-clock 75 (exit $?)" "$tmp/clock.txt"
if [ $nvml = 1 ]; then
    grep -q "launches under 75 % of the highest SM clock taken again$" "$tmp/clock.txt" &&
        python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
x = r['results'][0]
assert r['protocol']['min_clock'] == 0.75 and x['retaken'] >= 0 and x['cycles'] > 0, x
assert len(x['sample_clocks_mhz']) == x['repeats'] and min(x['sample_clocks_mhz']) > 0, x
assert 'ecc' in r['conditions'] and 'temperature_start_c' in r['conditions'], r['conditions']
" "$tmp/clock.json" && ok "--min-clock with a clock: every launch's clock, the row's cycles" ||
        fail "--min-clock with a clock" "$tmp/clock.txt" "$tmp/clock.json"
else
    grep -q "<dt>inputs</dt><dd>v, M1 and M2 uniform in \[-1, 1), seed 1</dd>" "$tmp/clock.html" &&
        grep -q "<dt>GPU conditions</dt><dd>no clocks or power: " "$tmp/clock.html" &&
        grep -q "under 75 % of the highest SM clock taken again (this device reports no clock: none was)" "$tmp/clock.txt" &&
        python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
x = r['results'][0]
assert r['protocol']['min_clock'] == 0.75 and x['retaken'] is None and x['cycles'] is None, x
c = r['conditions']
assert 'NVML' in c['note'] and 'uniform in [-1, 1), seed 1' in c['inputs'] and 'ecc' not in c, c
" "$tmp/clock.json" && ok "--min-clock without a clock says so; the conditions say why, on the page too" ||
        fail "--min-clock without a clock" "$tmp/clock.txt" "$tmp/clock.json"
fi

"$kladder" "${q[@]}" --rung 01 --lock-clocks 1500 >"$tmp/lock.txt" 2>&1 &&
    grep -q "^01_naive *verified" "$tmp/lock.txt" &&
    if [ $nvml = 0 ]; then
        grep -q "warning: --lock-clocks: no clocks or power: .*; the clocks stay free to move" "$tmp/lock.txt"
    else # held, or refused (no right to) with a warning and the header's reason
        grep -q "^machine:   SM clock locked at 1500 MHz (--lock-clocks)" "$tmp/lock.txt" ||
            grep -q "warning: --lock-clocks" "$tmp/lock.txt"
    fi && ok "--lock-clocks: $(grep -m1 '^machine:' "$tmp/lock.txt")" ||
    fail "--lock-clocks (NVML: $nvml)" "$tmp/lock.txt"

[ "$fails" -eq 0 ]
