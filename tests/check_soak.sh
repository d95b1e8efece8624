#!/usr/bin/env bash
# kladder soak on PoCL: a short soak verifies every iteration, keeps each one's median as a
# sample and a trace point, and exits 0; a GEMM kernel wrong in one element fails its row
# in every iteration and exits 1; bad requests exit 2; two devices (PoCL's "pthread
# pthread") make a fleet whose summary has both rungs. The JSON follows the run schema
# where python3-jsonschema is installed.
# usage: check_soak.sh KLADDER
set -u
. "$(dirname "$0")/lib.sh"
kladder=$1
here=$(cd "$(dirname "$0")" && pwd)
export KLADDER_CACHE_DIR=$tmp/cache
q=(soak --size 64 --copy-n 65536 --repeats 3 --min-time 0)

"$kladder" "${q[@]}" --time 2 --json "$tmp/soak.json" --report "$tmp/soak.html" >"$tmp/soak.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && python3 - "$tmp/soak.json" "$here/../docs/kladder-run.schema.json" "$tmp/soak.html" <<'PY' &&
import json, sys
r = json.load(open(sys.argv[1]))
rows = r["results"]
assert r["workload"] == "soak" and [x["config"].split()[0] for x in rows] == ["gemm", "copy"], rows
n = len(r["trace"])
assert n >= 2 and all(x["status"] == "verified" and x["repeats"] == n == len(x["samples"])
                      for x in rows), (n, [(x["status"], x["repeats"]) for x in rows])
t = [p["t_s"] for p in r["trace"]]
assert t == sorted(t) and t[-1] < 2 and not any(p["wrong"] for p in r["trace"]), t
assert all(p["gemm_s"] > 0 and p["copy_s"] > 0 for p in r["trace"])
assert r["health"] == "" and r["params"]["seconds"] == 2, (r["health"], r["params"])
# The page's trace chart: a point per iteration for each rate, and for the SM clock where
# NVML reads one (a GPU; PoCL has none).
import re
page = open(sys.argv[3]).read()
points = re.findall(r'class="trace-point" data-series="(\w+)" data-t="([^"]*)" data-share="([^"]*)"', page)
clocked = any(p.get("sm_mhz") for p in r["trace"])
for s in ("gemm_s", "copy_s") + (("sm_mhz",) if clocked else ()):
    mine = [p for p in points if p[0] == s]
    assert len(mine) == n and all(0 < float(p[2]) <= 1 for p in mine), (s, len(mine), n)
    assert max(float(p[2]) for p in mine) == 1, s
if not clocked:
    assert not any(p[0] == "sm_mhz" for p in points) and "SM clock: not measured" in page
assert "0 iterations wrong" in page
try:
    import jsonschema
except ImportError:
    sys.exit(0)
jsonschema.validate(r, json.load(open(sys.argv[2])))
PY
    ok "a 2 s soak: every iteration verified, a sample and a trace point each" ||
    fail "a 2 s soak (exit $rc)" "$tmp/soak.txt" "$tmp/soak.json"

"$kladder" "${q[@]}" --time 1 --kernel "$here/user_kernels/wrong_gemm.cl" --rung wrong_gemm \
    --report "$tmp/wrong.html" >"$tmp/wrong.txt" 2>&1
rc=$?
iterations=$(grep -o "^wrong_gemm failed: [0-9]* of" "$tmp/wrong.txt" | grep -o "[0-9]*")
[ $rc -eq 1 ] && [ "$(grep -c 'class="trace-wrong"' "$tmp/wrong.html")" = "${iterations:-x}" ] &&
    grep -q "$iterations iterations\? wrong" "$tmp/wrong.html" && grep -q "^wrong_gemm failed: \([0-9]*\) of \1 iterations wrong, the first at iteration 1 (0.0 s in): 1 of 4096 elements differ" "$tmp/wrong.txt" &&
    grep -q "^ilp4 .* verified" "$tmp/wrong.txt" &&
    ok "a kernel wrong in one element: every iteration caught, exit 1" ||
    fail "a wrong kernel in a soak: exit $rc" "$tmp/wrong.txt"

for bad in "--time 0" "--time 2x" "--rung 10,11"; do
    # shellcheck disable=SC2086
    "$kladder" soak $bad >"$tmp/bad.txt" 2>&1
    rc=$?
    [ $rc -eq 2 ] && grep -q "kladder: " "$tmp/bad.txt" && ok "soak $bad: exit 2" ||
        fail "soak $bad: exit $rc" "$tmp/bad.txt"
done

case ${KLADDER_DEVICE:-pocl} in
pocl*) ;;
*) echo "the fleet of two PoCL devices is PoCL's (tests/gpu/multi.sh soaks every GPU)"
   exit $((fails > 0)) ;;
esac
POCL_DEVICES="pthread pthread" "$kladder" "${q[@]}" --time 2 --device all --json "$tmp/fleet.json" \
    >"$tmp/fleet.txt" 2>&1
rc=$?
{ [ $rc -eq 0 ] || [ $rc -eq 5 ]; } && python3 -c "
import json, sys
f = json.load(open(sys.argv[1]))
assert f['command'] == 'soak' and len(f['members']) == 2, f['command']
assert [r['rung'] for r in f['summary']] == ['10_tiled', 'ilp4'], f['summary']
assert all(m['run']['workload'] == 'soak' for m in f['members'])
assert (int(sys.argv[2]) == 5) == any(r['stragglers'] for r in f['summary']), sys.argv[2]
" "$tmp/fleet.json" "$rc" && ok "soak on two devices: a fleet (exit $rc)" ||
    fail "soak on two devices: exit $rc" "$tmp/fleet.txt"

[ "$fails" -eq 0 ]
