#!/usr/bin/env bash
# Fleets on PoCL: two CPU devices (POCL_DEVICES="pthread pthread") stand in
# for two GPUs, each mode in its own temporary directory and cache.
# usage: check_fleet.sh KLADDER MODE [KLADDER_MPI]
#   devices    --device all and lists: one fleet file whose members are whole
#              runs, a summary (min, median, max, stragglers) that agrees with
#              the members' own rows, the table, CSV and the fleet page (also
#              from `kladder report`), peak on a fleet, and the mistakes: a
#              device listed twice, one that does not exist, tune on a fleet,
#              a member's failure in the exit code with its messages prefixed
#   stragglers a member made 20 % slower in a fleet file: flagged, on the page
#              and by the summary's rule; a 3 % slower one is not
#   interrupt  SIGTERM to the fleet mid-run: each member stops, exit 130, and
#              the rows measured are in the fleet file
#   mpi        mpirun -n 2 kladder-mpi: rank 0 gathers both ranks (host,
#              device, rank) into one fleet file; two ranks on one device share
#              it and say so; kladder-mpi refuses commands it does not run,
#              and prints the help and the version once
# One "ok" line per check; FAIL lines and exit 1 on any failure.
set -u
kladder=$1
mode=$2
mpi_kladder=${3:-}
docs=$(cd "$(dirname "$0")/../docs" && pwd)
kernels=$(cd "$(dirname "$0")/user_kernels" && pwd)
. "$(dirname "$0")/lib.sh" # $tmp, ok, fail
cd "$tmp" || exit 1
export KLADDER_CACHE_DIR=$tmp/cache
export POCL_DEVICES="pthread pthread"

# fleet_check FILE EXPR: python's verdict on the fleet file (f), "ok" or the reason.
fleet_check() {
    python3 - "$1" "$2" <<'EOF'
import json, math, statistics, sys
try:
    f = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"not valid JSON: {e}")
    sys.exit()
members = f.get("members", [])
runs = [m["run"] for m in members]

def value(run, rung):
    """A member's timed rate of a rung, as the summary takes it: its first row of that name
    (a sweep's first point); None when that row was not timed."""
    for r in (run or {}).get("results", []):
        if r["rung"] != rung:
            continue
        if r["status"] not in ("verified", "measured"):
            return None
        if r["flops"] > 0:
            return r["gflops"]
        if r["bytes"] > 0:
            return r["gbps"]
        return r["median_s"] * 1e6
    return None

def failed(run, rung):
    return any(r["rung"] == rung and r["status"] in ("failed", "timeout")
               for r in (run or {}).get("results", []))

def agrees(row):
    """The summary row recomputed from the members' own rows."""
    if row["failed"] != [i for i, run in enumerate(runs) if failed(run, row["rung"])]:
        return False
    vals = [value(run, row["rung"]) for run in runs]
    have = [v for v in vals if v is not None]
    if row["members"] != len(have):
        return False
    if not have:
        return row["median"] is None
    med = statistics.median(have)
    slower = (lambda v: v > med * 1.05) if row["unit"] == "µs" else (lambda v: v < med * 0.95)
    flagged = [i for i, v in enumerate(vals) if v is not None and slower(v)]
    close = lambda a, b: abs(a - b) <= 1e-6 * max(abs(a), abs(b))
    # Past the margin: a straggler, or within noise where its launch times do not show it.
    return (close(row["min"], min(have)) and close(row["max"], max(have)) and
            close(row["median"], med) and
            sorted(row["stragglers"] + row["within_noise"]) == flagged and
            not set(row["stragglers"]) & set(row["within_noise"]))

print("ok" if eval(sys.argv[2]) else f"expected {sys.argv[2]}; members="
      f"{[(m['device'], m['exit_code'], bool(m['run'])) for m in members]} "
      f"summary={f.get('summary')}")
EOF
}

# expect NAME FILE EXPR: one check of a fleet file.
expect() {
    local v
    v=$(fleet_check "$2" "$3")
    if [ "$v" = ok ]; then ok "$1"; else fail "$1: $v" "$2"; fi
}

# page_check NAME FILE: a well-formed fleet page with both members' bars and runs.
page_check() {
    if ! python3 -c "import xml.dom.minidom, sys; xml.dom.minidom.parse(sys.argv[1])" "$2" 2>/dev/null; then
        fail "$1: the page is not well-formed" "$2"
    elif ! grep -q 'data-members="2"' "$2" || [ "$(grep -c 'class="bar"' "$2")" -lt 2 ] ||
        ! grep -q 'id="member-1"' "$2"; then
        fail "$1: the page lacks the fleet's members, bars or runs" "$2"
    else
        ok "$1"
    fi
}

small=(gemm --size 48 --rung 01,03 --repeats 3 --min-time 0.02)

case $mode in
devices)
    "$kladder" "${small[@]}" --device all --json all.json --report all.html >all.txt 2>all.err
    rc=$?
    [ $rc -eq 0 ] && ok "--device all: exit 0" || fail "--device all: exit $rc" all.err
    expect "--device all: two whole runs, one per device" all.json \
        'f["fleet_version"] == 1 and f["command"] == "gemm" and [m["device"] for m in members] == ["opencl:0:0", "opencl:0:1"] and all(r["workload"] == "gemm" and len(r["results"]) == 2 for r in runs)'
    expect "--device all: each rung's min, median, max and stragglers agree with the rows" all.json \
        'len(f["summary"]) == 2 and all(agrees(r) for r in f["summary"])'
    python3 - "$docs" all.json <<'EOF' && ok "--device all: the file follows docs/kladder-fleet.schema.json" ||
import json, sys
try:
    import jsonschema, referencing
except ImportError:
    print("python3-jsonschema is not installed (scripts/setup.sh --tests installs it): not validated")
    sys.exit(0)
fleet = json.load(open(f"{sys.argv[1]}/kladder-fleet.schema.json"))
run = json.load(open(f"{sys.argv[1]}/kladder-run.schema.json"))
registry = referencing.Registry().with_resources(
    [(s["$id"], referencing.Resource.from_contents(s)) for s in (fleet, run)])
v = jsonschema.Draft202012Validator(fleet, registry=registry)
f = json.load(open(sys.argv[2]))
errors = [f"{'/'.join(map(str, e.path))}: {e.message[:160]}" for e in v.iter_errors(f)]
assert not errors, errors[:3]
f["members"][0]["run"]["results"][0]["status"] = "fine"   # not vacuous: a broken member fails
assert not v.is_valid(f), "the schema accepts a member run with an unknown status"
EOF
        fail "--device all: the schema" all.json
    grep -q "kladder fleet: gemm on 2 devices" all.txt && grep -q "03_private_acc" all.txt &&
        ok "--device all: the table" || fail "--device all: the table" all.txt
    page_check "--device all: the fleet page" all.html
    "$kladder" report all.json -o again.html && page_check "kladder report FLEET.json" again.html
    "$kladder" report all.json all.json -o two.html 2>two.err
    [ $? -eq 2 ] && grep -q "give it alone" two.err && ok "report: a fleet file alone" ||
        fail "report: a fleet file with another" two.err

    "$kladder" "${small[@]}" --device 1,0 --format csv >csv.txt 2>csv.err
    [ $? -eq 0 ] && [ "$(wc -l <csv.txt)" -eq 5 ] && sed -n 2p csv.txt | grep -q "^0,opencl:0:1," &&
        ok "--device 1,0: CSV, a line per member and rung, in the list's order" ||
        fail "--device 1,0: CSV" csv.txt csv.err
    "$kladder" "${small[@]}" --device opencl:0:0,0:1 --format json --quiet >list.json 2>list.err
    expect "--device opencl:0:0,0:1: the prefix holds for the list" list.json \
        '[m["device"] for m in members] == ["opencl:0:0", "opencl:0:1"]'

    "$kladder" peak --quick --device all --json peak.json >peak.txt 2>peak.err
    rc=$?
    expect "peak --device all: every member measured (exit $rc)" peak.json \
        'all(r and r["workload"] == "peak" for r in runs) and any(r["rung"].startswith("copy") for r in f["summary"]) and all(agrees(r) for r in f["summary"])'

    start=$(date +%s)
    "$kladder" "${small[@]}" --device all --output /nonexistent/fleet.txt 2>unwritable.err
    rc=$?
    [ $rc -eq 2 ] && grep -q "cannot write /nonexistent/fleet.txt" unwritable.err &&
        [ $(($(date +%s) - start)) -le 2 ] && ! grep -q "at once" unwritable.err &&
        ok "an --output that cannot be written: exit 2 before any member starts" ||
        fail "an unwritable --output: exit $rc" unwritable.err
    "$kladder" "${small[@]}" --device 0,0 2>twice.err
    [ $? -eq 2 ] && grep -q "in the list \"0,0\" twice" twice.err && ok "a device listed twice: exit 2" ||
        fail "a device listed twice" twice.err
    "$kladder" "${small[@]}" --device 0,7 2>none.err
    [ $? -eq 2 ] && grep -q "no device 7 in the list" none.err && ok "a device that is not there: exit 2" ||
        fail "a device that is not there" none.err
    "$kladder" tune gemm --device all 2>tune.err
    [ $? -eq 2 ] && grep -q "one device at a time" tune.err && ok "tune on a fleet: exit 2" ||
        fail "tune on a fleet" tune.err
    "$kladder" rowdot --rows 256 --d 64 --rung 01,wrong_result --device all \
        --kernel "$kernels/wrong_result.cl" --json wrong.json >wrong.txt 2>wrong.err
    rc=$?
    [ $rc -eq 1 ] && grep -q "d0 failed, d1 failed" wrong.txt &&
        ok "a rung that fails on every member: exit 1, the table names them" ||
        fail "a failing rung: exit $rc" wrong.txt wrong.err
    expect "a failing rung: the summary lists the members, with no value" wrong.json \
        'all(agrees(r) for r in f["summary"]) and f["summary"][1]["failed"] == [0, 1] and f["summary"][1]["median"] is None'
    "$kladder" gemm --size 48 --rung 03 --param TS=7 --device all --json bad.json >bad.txt 2>bad.err
    rc=$?
    [ $rc -eq 2 ] && grep -q '^\[opencl:0:1\] kladder: ' bad.err &&
        ok "a member's mistake: exit 2, its message prefixed with its name" ||
        fail "a member's mistake: exit $rc" bad.err
    expect "a member's mistake: the fleet file says so" bad.json \
        'all(m["exit_code"] == 2 and m["run"] is None for m in members)'
    ;;
stragglers)
    "$kladder" "${small[@]}" --device all --json base.json >/dev/null 2>base.err ||
        fail "the base fleet" base.err
    # d1's rates made 20 % slower on 01 and 3 % on 03, its launch times with them: one
    # straggler, one within the margin. d0's launches are made steady (40, within 0.4 %):
    # on a loaded machine its real ones can spread so far that 20 % slower is rightly
    # within noise, which the "within noise" case below tests on purpose. Each member's
    # device has a measured run-to-run spread of 2 % (as kladder peak would find it): a
    # member of one run is a straggler only beyond it; without it (unspread.json), never.
    python3 - base.json slow.json unspread.json <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))
for m in f["members"]:
    c = m["run"].get("ceiling_values") or {"copy_gbps": 1.0, "f32_gflops": 1.0,
                                            "f64_gflops": 1.0, "i32_giops": 1.0,
                                            "date": "2026-12-03T00:00:00Z"}
    c.update(spread_memory_pct=2.0, spread_fma_pct=2.0, spread_tensor_pct=2.0)
    m["run"]["ceiling_values"] = c
d0 = {r["rung"]: r for r in f["members"][0]["run"]["results"]}
for r in d0.values():
    r["samples"] = [r["median_s"] * (1 + 0.001 * (k % 5)) for k in range(40)]
for r in f["members"][1]["run"]["results"]:
    scale = 0.8 if r["rung"] == "01_naive" else 0.97
    r["gflops"] = d0[r["rung"]]["gflops"] * scale
    r["median_s"] = d0[r["rung"]]["median_s"] / scale
    r["samples"] = [t / scale for t in d0[r["rung"]]["samples"]]
json.dump(f, open(sys.argv[2], "w"))
for m in f["members"]:
    m["run"]["ceiling_values"] = None
json.dump(f, open(sys.argv[3], "w"))
EOF
    "$kladder" report unspread.json -o unspread.html 2>unspread.err ||
        fail "report of the slowed fleet without spreads" unspread.err
    grep -q "d1 (-11.1%, within noise)" unspread.html &&
        ok "a member of one run 20 % slower, the device's run-to-run spread unknown: within noise" ||
        fail "without a measured spread a one-run straggler is flagged" unspread.html
    "$kladder" report slow.json -o slow.html 2>slow.err || fail "report of the slowed fleet" slow.err
    python3 - slow.html <<'EOF' && ok "a member 20 % slower is a straggler; 3 % is not" || fail "stragglers" slow.html
import re, sys
page = open(sys.argv[1]).read()
bars = re.findall(r'<rect class="bar" data-member="(\d)" data-value="[^"]*" data-share="([^"]*)" data-straggler="(\d)"', page)
# 01_naive: d0 full, d1 at 0.8 (median 0.9: 11 % below it); 03: d1 at 0.97 (1.5 % below).
assert [b[2] for b in bars] == ["0", "1", "0", "0"], bars
assert abs(float(bars[1][1]) - 0.8) < 1e-3, bars
assert "d1 (-11.1%)" in page, "the summary names the straggler and by how much"
EOF
    # d1 15 % slower by its median, but its launch times in two clusters (0.6 and 1.7 times
    # d0's, half each): past the margin, yet not slower beyond noise. d0's 40 launches steady.
    python3 - base.json noisy.json <<'EOF'
import json, statistics, sys
f = json.load(open(sys.argv[1]))
d0 = f["members"][0]["run"]["results"][0]
t = d0["median_s"]
d0["samples"] = [t * (1 + 0.001 * (k % 5)) for k in range(40)]
d1 = f["members"][1]["run"]["results"][0]
d1["samples"] = [t * (0.6 if k % 2 else 1.7) for k in range(40)]
d1["median_s"] = statistics.median(d1["samples"])
d1["gflops"] = d0["gflops"] * t / d1["median_s"]
json.dump(f, open(sys.argv[2], "w"))
EOF
    "$kladder" report noisy.json -o noisy.html 2>noisy.err || fail "report of the noisy fleet" noisy.err
    grep -q "d1 (-[0-9.]*%, within noise)" noisy.html &&
        ok "a member past the margin whose launch times do not show it slower: within noise" ||
        fail "within noise" noisy.html
    # d1's first row failed verification: named on the page, no bar, never a value.
    python3 - base.json failed.json <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))
r = f["members"][1]["run"]["results"][0]
r.update(status="failed", median_s=None, min_s=None, max_s=None, gflops=None, gbps=None)
json.dump(f, open(sys.argv[2], "w"))
EOF
    "$kladder" report failed.json -o failed.html 2>failed.err || fail "report of a fleet with a failure" failed.err
    python3 - failed.html <<'EOF' && ok "a member's failed row: named on the page, no bar" || fail "failed row on the page" failed.html
import re, sys
page = open(sys.argv[1]).read()
bars = re.findall(r'<rect class="bar" data-member="(\d)"', page)
assert bars == ["0", "0", "1"], bars   # 01: d0 only; 03: both
assert "d1 failed" in page and '<td class="num failed">failed</td>' in page
EOF
    ;;
interrupt)
    # Host rungs timed for 3 s each: a ladder long enough to stop in its middle.
    "$kladder" gemm --size 64 --rung host_ijk,host_ikj,host_jik --host-rungs --warmup 0 \
        --min-time 3 --device all --json stop.json >stop.txt 2>stop.err &
    pid=$!
    sleep 5
    kill -TERM $pid
    wait $pid
    rc=$?
    [ $rc -eq 130 ] && ok "SIGTERM to a fleet: exit 130" || fail "SIGTERM to a fleet: exit $rc" stop.err
    expect "SIGTERM to a fleet: every member stopped and wrote its rows" stop.json \
        'all(m["exit_code"] == 130 and m["run"]["interrupted"] and 1 <= len(m["run"]["results"]) < 3 for m in members)'
    ;;
mpi)
    mpirun=(mpirun -n 2 --oversubscribe)
    [ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)
    "${mpirun[@]}" "$mpi_kladder" "${small[@]}" --json mpi.json --report mpi.html >mpi.txt 2>mpi.err
    rc=$?
    [ $rc -eq 0 ] && ok "mpirun -n 2: exit 0" || fail "mpirun -n 2: exit $rc" mpi.err mpi.txt
    host=$(python3 -c "import socket; print(socket.gethostname())")
    expect "mpirun -n 2: rank 0 gathered both ranks, each on its node-local device" mpi.json \
        '[(m["rank"], m["device"]) for m in members] == [(0, "opencl:0:0"), (1, "opencl:0:1")] and all(m["host"] and r["workload"] == "gemm" for m, r in zip(members, runs)) and all(agrees(r) for r in f["summary"])'
    grep -q "rank 1 (" mpi.txt && ok "mpirun -n 2: the table names the ranks" || fail "mpi table" mpi.txt
    page_check "mpirun -n 2: the fleet page" mpi.html
    POCL_DEVICES=pthread "${mpirun[@]}" "$mpi_kladder" "${small[@]}" --format json >one.json 2>one.err
    expect "two ranks, one device: both run on it" one.json \
        '[m["device"] for m in members] == ["opencl:0:0", "opencl:0:0"] and all(runs)'
    grep -q "rank 1 shares opencl:0:0" one.err && ok "two ranks, one device: rank 1 says so" ||
        fail "sharing is said" one.err
    "${mpirun[@]}" "$mpi_kladder" tune gemm >tune.txt 2>tune.err
    [ $? -ne 0 ] && grep -q "kladder-mpi runs measurements" tune.err && ok "kladder-mpi tune: refused" ||
        fail "kladder-mpi tune" tune.err
    # The help and the version, as kladder prints them, once (rank 0's).
    "${mpirun[@]}" "$mpi_kladder" help >help.txt 2>help.err
    [ "$(grep -c '^usage: kladder \[COMMAND\]' help.txt)" = 1 ] && ok "kladder-mpi help: rank 0 prints the usage" ||
        fail "kladder-mpi help" help.txt help.err
    "${mpirun[@]}" "$mpi_kladder" gemm --version >version.txt 2>version.err
    [ "$(cat version.txt)" = "$("$kladder" --version)" ] && ok "kladder-mpi --version: $(cat version.txt)" ||
        fail "kladder-mpi --version" version.txt version.err
    "${mpirun[@]}" "$mpi_kladder" completion bash >completion.txt 2>completion.err
    rc=$?
    "$kladder" completion bash >completion_one.txt
    [ $rc -eq 0 ] && cmp -s completion.txt completion_one.txt &&
        ok "kladder-mpi completion bash: rank 0 prints kladder's script once" ||
        fail "kladder-mpi completion bash: exit $rc" completion.err completion.txt
    ;;
*)
    echo "unknown mode $mode"
    exit 2
    ;;
esac
[ $fails -eq 0 ] || exit 1
