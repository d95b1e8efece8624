#!/usr/bin/env bash
# peak --collectives: between kladder-mpi's ranks, here two ranks on PoCL, so MPI on host
# memory carries them (no CUDA device, no NCCL) and the header says why. Every collective at
# every size from 8 B to 64 KiB is checked on both ranks; each row's GB/s is nccl-tests' bus
# bandwidth of its median, its note the algorithm bandwidth; the ceilings line names each
# rank's host and device; the text is the size-by-collective matrix and the page its chart.
# Plain kladder refuses the command, and kladder-mpi refuses mgemm and peak --p2p on ranks
# without a CUDA device, each with a message and exit 2.
# usage: check_collectives.sh KLADDER KLADDER_MPI
set -u
. "$(dirname "$0")/lib.sh"
kladder=$1 mpi_kladder=$2
here=$(cd "$(dirname "$0")" && pwd)
export KLADDER_CACHE_DIR=$tmp/cache
mpirun=(mpirun -n 2 --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)
cd "$tmp" || exit 1

"${mpirun[@]}" "$mpi_kladder" peak --collectives --bytes 65536 --repeats 3 --json coll.json \
    >coll.txt 2>coll.err
rc=$?
[ $rc -eq 0 ] && ok "mpirun -n 2 kladder-mpi peak --collectives: exit 0" ||
    fail "peak --collectives under MPI: exit $rc" coll.err coll.txt
python3 - coll.json "$here/../docs/kladder-run.schema.json" <<'PY' &&
import json, sys
r = json.load(open(sys.argv[1]))
rows = r["results"]
ops = ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "all_to_all",
       "send_recv"]
factor = {"all_reduce": 1.0, "all_gather": 0.5, "reduce_scatter": 0.5, "all_to_all": 0.5}
sizes = [8 << k for k in range(14)]  # 8 B to 64 KiB by twos
assert r["workload"] == "collectives" and r["params"]["ranks"] == 2, r["params"]
assert [(x["rung"], x["x"]) for x in rows] == [(o, s) for s in sizes for o in ops], \
    [(x["rung"], x["x"]) for x in rows][:9]
for x in rows:
    assert x["status"] == "verified" and x["repeats"] == 3 and len(x["samples"]) == 3, x
    busbw = x["x"] * factor.get(x["rung"], 1.0) / x["median_s"] * 1e-9
    assert abs(x["gbps"] - busbw) <= 1e-6 * busbw, (x["rung"], x["x"], x["gbps"], busbw)
    assert f"busbw = algbw x {factor.get(x['rung'], 1.0):.3g}" in x["note"], x["note"]
    assert x["note"].startswith("algbw ") and x["config"] == f"{int(x['x'])} B, 2 ranks", x
assert "MPI on host memory" in r["ceilings"] and "NCCL needs" in r["ceilings"], r["ceilings"]
assert "; 2 ranks: rank 0 on " in r["ceilings"] and "; rank 1 on " in r["ceilings"], r["ceilings"]
assert r["protocol"]["timing"].startswith("the host clock around each loop"), r["protocol"]
try:
    import jsonschema
except ImportError:
    sys.exit(0)
jsonschema.validate(r, json.load(open(sys.argv[2])))
PY
    ok "98 rows, each verified, GB/s the bus bandwidth of its median" ||
    fail "the collectives' rows" coll.json
grep -q "^       bytes all_reduce all_gather reduce_scatter broadcast    reduce all_to_all send_recv$" coll.txt &&
    [ "$(grep -c '^ *[0-9]\+ ' coll.txt)" = 14 ] && grep -q "^GB/s: the bus bandwidth, nccl-tests' busbw" coll.txt &&
    grep -q "^protocol: .*timed by the host clock around each loop of iterations" coll.txt &&
    ok "the table: fourteen sizes by seven collectives" || fail "the collectives' table" coll.txt
"$kladder" report coll.json --output coll.html >report.txt 2>&1 &&
    grep -q "GB/s (bus bandwidth, as nccl-tests' busbw)" coll.html &&
    ok "the page charts the bus bandwidth over sizes" || fail "the collectives' page" report.txt

# Bad requests: each a message and exit 2.
refused() { # WHAT PATTERN COMMAND...
    local what=$1 pattern=$2
    shift 2
    "$@" >bad.txt 2>&1
    local rc=$?
    [ $rc -eq 2 ] && grep -q "$pattern" bad.txt && ok "$what: exit 2" || fail "$what: exit $rc" bad.txt
}
refused "kladder peak --collectives (no ranks)" "run it as mpirun -n N kladder-mpi peak --collectives" \
    "$kladder" peak --collectives
refused "--collectives with --transfers" "one at a time" "$kladder" peak --collectives --transfers
# mgemm between ranks needs a CUDA device a rank (NCCL moves its panels): on PoCL every rank
# refuses together, rank 0 naming the first rank without one; a rank with no device at all too.
refused "kladder-mpi mgemm on PoCL" "mgemm moves its panels by NCCL between CUDA devices, one a rank; rank 0: its device is opencl:" \
    "${mpirun[@]}" "$mpi_kladder" mgemm --device opencl:0:0 --size 64
[ "$(grep -c 'mgemm moves its panels' bad.txt)" = 1 ] && ok "kladder-mpi mgemm: said once, by rank 0" ||
    fail "kladder-mpi mgemm's refusal said more than once" bad.txt
refused "kladder-mpi mgemm with no CUDA device" "rank 0: it has no device (its message above)" \
    "${mpirun[@]}" "$mpi_kladder" mgemm --device cuda:0 --size 64
# (by default mgemm and peak --p2p take every CUDA device, as in one process)
refused "kladder-mpi mgemm takes CUDA devices by default" "rank 0: --device cuda:all: no cuda device" \
    "${mpirun[@]}" "$mpi_kladder" mgemm --size 64
refused "kladder-mpi peak --p2p on PoCL" "peak --p2p moves its copies by NCCL between CUDA devices, one a rank; rank 0: its device is opencl:" \
    "${mpirun[@]}" "$mpi_kladder" peak --p2p --device opencl:0:0
refused "kladder-mpi peak --p2p with no CUDA device" "rank 0: it has no device (its message above)" \
    "${mpirun[@]}" "$mpi_kladder" peak --p2p --device cuda:0
[ "$fails" -eq 0 ]
