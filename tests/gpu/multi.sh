#!/usr/bin/env bash
# Fleets, links and the multi-GPU GEMM on a GPU machine (CI has none):
# `bash tests/gpu/multi.sh [build-dir]`. Outputs go to $OUT (default
# tests/gpu/out). Runs with one GPU or more; NCCL is found as
# libnccl.so.2, or at $KLADDER_NCCL. NVLink multicast stays off.
#
#  1. kladder mgemm at awkward sizes (1000³ with 256-wide panels; 1536×1000×777
#     on rung 14 with cuBLAS beside): every row, NCCL's included (one rank per
#     GPU), verified against the reference and row 0 in full.
#     At 4096³ and above the reference is cuBLAS DGEMM on the first GPU, spot-checked on
#     the host: the header says so and rows 0 and 3 verify against it.
#  2. compute-sanitizer memcheck over a small mgemm: no error of kladder's
#     (API errors NCCL makes and handles itself while probing are not counted).
#  3. kladder peak --p2p: the copy and latency rows verified, the all-reduce
#     verified; with one GPU, NCCL's send/receive row is skipped with its reason.
#  4. --device all through CUDA and through NVIDIA's OpenCL: one fleet file,
#     every member verified, the PCI bus id of each member's device given.
#  5. kladder-mpi (where mpirun is there): two ranks gathered into one fleet.
#  6. kladder soak for a minute on every GPU (CUDA, GEMM rung 10_tiled at 4096³, the copy):
#     every iteration of every member verified, a trace with clocks and temperatures; exit
#     0, or 5 with the event or straggler it names.
#  7. kladder-mpi peak --collectives, one rank per GPU (where mpirun is there): NCCL between
#     the ranks, every collective from 8 B to 256 MiB verified on every rank.
#  8. kladder-mpi mgemm, one rank per GPU (one GPU: one rank): NCCL's communicator from an id
#     MPI broadcasts, every row verified at 1536×1000×777 and at 4096³, the ranks named.
#  9. kladder-mpi peak --p2p, one rank per GPU: each device's copy and latency verified, NCCL's
#     send/receive between every pair of ranks (two GPUs or more) and the all-reduce verified.
# Exit status: 0 when all pass, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build=${1:-build}
out=${OUT:-tests/gpu/out}
mkdir -p "$out"
kl=$build/kladder
[ -x "$kl" ] || { echo "no $kl: build kladder first" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0 KLADDER_CACHE_DIR=$out/cache
status=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; status=1; }

# rows FILE EXPR: python's verdict on a run's or a fleet's rows (rows: rung -> row; allrows:
# every member's rows; j: the file).
rows() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"no report: {e}")
    sys.exit(1)
runs = [m["run"] for m in j["members"]] if "members" in j else [j]
allrows = [r for run in runs if run for r in run["results"]]  # every member's
rows = {r["rung"]: r for r in allrows}
sys.exit(0 if eval(sys.argv[2]) else print({k: (r["status"], r["note"][:200]) for k, r in rows.items()}) or 1)
EOF
}

echo "== 1. mgemm at awkward sizes"
"$kl" mgemm --size 1000 --panel 256 --json "$out/mgemm_1000.json" >"$out/mgemm_1000.txt" 2>&1
rows "$out/mgemm_1000.json" 'len(rows) == 4 and all(r["status"] == "verified" for r in rows.values())' &&
    ok "mgemm 1000³: rows 0-3 verified" || bad "mgemm 1000³ (see $out/mgemm_1000.txt)"
"$kl" mgemm --m 1536 --n 1000 --k 777 --panel 128 --local 14 --compare cublas \
    --json "$out/mgemm_odd.json" >"$out/mgemm_odd.txt" 2>&1
rows "$out/mgemm_odd.json" 'len(rows) == 5 and all(r["status"] == "verified" for r in rows.values())' &&
    ok "mgemm 1536×1000×777 on rung 14, cuBLAS beside: verified" || bad "mgemm odd (see $out/mgemm_odd.txt)"
"$kl" mgemm --size 4096 --rung 0,3 --json "$out/mgemm_4096.json" >"$out/mgemm_4096.txt" 2>&1
rows "$out/mgemm_4096.json" 'len(rows) == 2 and all(r["status"] == "verified" for r in rows.values()) and "cuBLAS DGEMM on CUDA device" in j["reference"]' &&
    ok "mgemm 4096³ against cuBLAS DGEMM's reference: verified" || bad "mgemm 4096³ (see $out/mgemm_4096.txt)"

echo "== 2. compute-sanitizer"
compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "$kl" mgemm --size 300 \
    --panel 64 --local 14 --warmup 0 --repeats 1 --min-time 0 >"$out/mgemm_memcheck.txt" 2>&1
[ $? -eq 0 ] && grep -q "ERROR SUMMARY: 0 errors" "$out/mgemm_memcheck.txt" &&
    ok "mgemm under memcheck: no errors" || bad "mgemm under memcheck (see $out/mgemm_memcheck.txt)"

echo "== 3. peak --p2p"
"$kl" peak --p2p --bytes 67108864 --json "$out/p2p.json" >"$out/p2p.txt" 2>&1
rows "$out/p2p.json" 'rows["copy 0>0"]["status"] == "verified" and rows["latency 0>0"]["status"] == "verified" and rows["allreduce"]["status"] == "verified"' &&
    ok "peak --p2p: copies, latency and all-reduce verified" || bad "peak --p2p (see $out/p2p.txt)"

echo "== 4. --device all"
"$kl" gemm --device cuda:all --size 2048 --rung 14,18 --json "$out/fleet_cuda.json" \
    >"$out/fleet_cuda.txt" 2>&1
rows "$out/fleet_cuda.json" 'allrows and all(r["status"] == "verified" for r in allrows) and all(m["run"]["device"]["pci_bus_id"] for m in j["members"])' &&
    ok "--device cuda:all: every member verified, bus ids given" || bad "--device cuda:all (see $out/fleet_cuda.txt)"
if [ -z "${OCL_ICD_VENDORS:-}" ]; then
    mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd
    export OCL_ICD_VENDORS=/tmp/icd
fi
"$kl" gemm --device all --size 2048 --rung 10,12 --json "$out/fleet_opencl.json" \
    >"$out/fleet_opencl.txt" 2>&1
rows "$out/fleet_opencl.json" 'len(rows) == 2 and all(r["status"] == "verified" for r in allrows)' &&
    ok "--device all (NVIDIA OpenCL): every member verified" || bad "--device all, OpenCL (see $out/fleet_opencl.txt)"

echo "== 5. kladder-mpi"
if command -v mpirun >/dev/null && [ -x "$build/kladder-mpi" ]; then
    mpirun --allow-run-as-root -n 2 --oversubscribe "$build/kladder-mpi" gemm --device cuda:all \
        --size 2048 --rung 14 --json "$out/mpi.json" >"$out/mpi.txt" 2>&1
    rows "$out/mpi.json" 'len(j["members"]) == 2 and [m["rank"] for m in j["members"]] == [0, 1] and len(allrows) == 2 and all(r["status"] == "verified" for r in allrows)' &&
        ok "mpirun -n 2 kladder-mpi: both ranks gathered, verified" || bad "kladder-mpi (see $out/mpi.txt)"
else
    echo "skipped: no mpirun or no kladder-mpi"
fi

echo "== 6. soak on every GPU"
"$kl" soak --device cuda:all --time 60 --size 4096 --json "$out/soak.json" \
    --report "$out/soak.html" >"$out/soak.txt" 2>&1
rc=$?
{ [ $rc -eq 0 ] || { [ $rc -eq 5 ] && grep -q "kladder: soak: " "$out/soak.txt"; }; } &&
    rows "$out/soak.json" 'all(r["status"] == "verified" for r in allrows) and all(len(x["trace"]) > 3 and all(p["sm_mhz"] and p["temperature_c"] for p in x["trace"]) for x in runs)' &&
    ok "soak a minute on every GPU: verified, traced (exit $rc)" || bad "soak (exit $rc; see $out/soak.txt)"

echo "== 7. collectives between ranks, one a GPU"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if command -v mpirun >/dev/null && [ -x "$build/kladder-mpi" ] && [ "$gpus" -ge 1 ]; then
    mpirun --allow-run-as-root -n "$gpus" "$build/kladder-mpi" peak --collectives --backend cuda \
        --bytes 268435456 --json "$out/collectives.json" >"$out/collectives.txt" 2>&1
    rows "$out/collectives.json" 'j["params"]["ranks"] == '"$gpus"' and "NCCL" in j["ceilings"] and len(allrows) == 7 * 26 and all(r["status"] == "verified" for r in allrows)' &&
        ok "collectives on $gpus rank(s) through NCCL: 182 rows verified" ||
        bad "collectives (see $out/collectives.txt)"
else
    echo "skipped: no mpirun, no kladder-mpi or no GPU"
fi
echo "== 8. mgemm between ranks, one a GPU (NCCL's communicator from MPI)"
named="'$gpus rank$([ "$gpus" = 1 ] || echo s): rank 0 on ' in j['ceilings']"
if command -v mpirun >/dev/null && [ -x "$build/kladder-mpi" ] && [ "$gpus" -ge 1 ]; then
    mpirun --allow-run-as-root -n "$gpus" "$build/kladder-mpi" mgemm --m 1536 --n 1000 --k 777 \
        --panel 128 --local 14 --compare cublas --json "$out/mpi_mgemm_odd.json" \
        >"$out/mpi_mgemm_odd.txt" 2>&1
    rows "$out/mpi_mgemm_odd.json" 'len(rows) == 5 and all(r["status"] == "verified" for r in rows.values()) and '"$named" &&
        ok "mgemm 1536×1000×777 on $gpus rank(s): every row verified, the ranks named" ||
        bad "mgemm between ranks (see $out/mpi_mgemm_odd.txt)"
    mpirun --allow-run-as-root -n "$gpus" "$build/kladder-mpi" mgemm --size 4096 --rung 0,3 \
        --json "$out/mpi_mgemm_4096.json" >"$out/mpi_mgemm_4096.txt" 2>&1
    rows "$out/mpi_mgemm_4096.json" 'len(rows) == 2 and all(r["status"] == "verified" for r in rows.values()) and "cuBLAS DGEMM on CUDA device" in j["reference"]' &&
        ok "mgemm 4096³ between ranks against cuBLAS DGEMM's reference: verified" ||
        bad "mgemm 4096³ between ranks (see $out/mpi_mgemm_4096.txt)"
else
    echo "skipped: no mpirun, no kladder-mpi or no GPU"
fi
echo "== 9. peak --p2p between ranks, one a GPU"
if command -v mpirun >/dev/null && [ -x "$build/kladder-mpi" ] && [ "$gpus" -ge 1 ]; then
    mpirun --allow-run-as-root -n "$gpus" "$build/kladder-mpi" peak --p2p --bytes 67108864 \
        --json "$out/mpi_p2p.json" >"$out/mpi_p2p.txt" 2>&1
    g=$gpus
    rows "$out/mpi_p2p.json" 'all(rows[f"{w} {d}>{d}"]["status"] == "verified" for w in ("copy", "latency") for d in range('$g')) and all(rows[f"nccl {i}>{k}"]["status"] == "verified" for i in range('$g') for k in range('$g') if i != k) and ('$g' > 1 or rows["nccl"]["status"] == "skipped") and rows["allreduce"]["status"] == "verified" and len(rows) == 2 * '$g' + max(1, '$g' * ('$g' - 1)) + 1 and '"$named" &&
        ok "peak --p2p on $g rank(s): every device's copies, NCCL's pairs and the all-reduce verified" ||
        bad "peak --p2p between ranks (see $out/mpi_p2p.txt)"
else
    echo "skipped: no mpirun, no kladder-mpi or no GPU"
fi
exit $status
