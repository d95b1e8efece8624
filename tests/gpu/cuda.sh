#!/usr/bin/env bash
# shellcheck disable=SC2317 # the steps are functions called by name, from STEPS
# The CUDA backend on a real NVIDIA GPU (CI has none; run this on the GPU
# machine): `bash tests/gpu/cuda.sh [build-dir]`. Outputs go to $OUT
# (default tests/gpu/out); STEPS="6 6b" runs those steps alone (default: all,
# in order).
#
#  1. The CTest suite again with KLADDER_DEVICE=cuda:0, so every rung of every
#     workload runs through CUDA at the awkward sizes of the OpenCL tests and
#     is verified; three times over (ROUNDS) with 8 tests at once (no test
#     shares a file with another, tests/CMakeLists.txt). Left out: oclgrind and
#     CLBlast (OpenCL's alone), the private-array bounds (a CPU device's), the
#     tuner's wrong-kernel test (its wrong candidate, a 16-work-item group, is
#     pruned from a GPU's space), the user kernels whose float argument stands
#     where an int goes and whose buffers are __local or __constant (e2e_args:
#     CUDA tells a parameter's size only, so the first runs and fails
#     verification, the __local one fails NVRTC's build, exit 3, and the
#     __constant one runs), the build-log test (its kernel's warning is PoCL's
#     clang's; NVRTC says nothing of it), the fleets (PoCL's two CPU devices
#     stand in for two GPUs there; tests/gpu/multi.sh runs fleets on GPUs),
#     the golden outputs (cli_golden: PoCL's rows, which rungs skip and why) and
#     the cold copy (copy_cold: a 512 KiB copy read cold from a CPU's memory is
#     1.3x slower than from its cache; from an H200's HBM it was 1.25x, and
#     bench/protocol.sh's cache part measures warm against cold on a GPU).
#  2. Every workload at small, awkward sizes under compute-sanitizer's memcheck
#     and racecheck (NVRTC kernels included), which must report nothing.
#  3. NVIDIA NPP's blur as a peer: float pixels verified against the same
#     reference; 8-bit pixels, which NPP rounds down, either verified or failed
#     by less than 1.01 levels (the truncation), never by more (wrong weights,
#     border or layout would be).
#  3b. NVIDIA cuDNN beside the softmax ladder: softmax (legacy API), layer norm
#     and RMS norm (graph API) in float, half and bf16, at 37 x 1031 and
#     3 x 262147, each peer row verified within the ladder's bound (a skipped
#     row fails too: this machine is meant to have cuDNN 9).
#  4. The machine: rung 14's register count in the JSON equals what cuobjdump
#     reads from the very cubin kladder ran (KLADDER_SAVE_CUBIN), and with
#     --energy every row's joules per launch times its launches agrees with its
#     mean power times its window within 10 %.
#  5. Device memory: with all but 6 GiB of the GPU's memory held by another
#     process (tests/gpu/hog.cu), a GEMM whose matrices need 13 GiB is refused
#     before anything is allocated, exit 2, with both sizes in the message.
#  6. Stream-K (SK=1): rung 20 in each type, rungs 17 (alone and in clusters),
#     18, 22 and 14, at awkward shapes and shapes whose last wave, or whole product, is
#     shared by slices of K: verified, and its C after the timed launches the
#     verified one bit for bit; under memcheck and racecheck.
#  6b. Split-K (SPLITK > 1): rungs 14 and 13 in several types at the awkward
#     shapes and a skinny one, verified and bit for bit after the timed
#     launches (rung 14 also at 8 stages, C staged through them, split and
#     not); rung 14 under memcheck.
#  6c. C stored through shared memory by TMA (EPI=1): rung 20 in each type,
#     rung 17 alone and in clusters of two, rung 18, with stream-K and
#     without, at shapes whose C rows TMA can store and at two it cannot
#     (the registers' stores; all three also with EPI=2, rows of 32 sums by
#     each warp), verified and bit for bit after the timed launches; rungs
#     20 and 17 under memcheck and racecheck, with EPI=2 at an odd N too;
#     rung 20 with HINT=3 (its L2 policies) in bf16 and int8 as well.
#  6d. Rung 21 with one set of fragments (PREFETCH=0), at its defaults and on
#     128 x 128 blocks, and with A's fragments in a ring (PREFETCH=2)
#     at its defaults and on 64 x 32 warp tiles, verified at awkward shapes
#     and bit for bit after the timed launches; under memcheck and racecheck.
#  6e. Rungs 17 and 18 reading rows TMA cannot (K or N not a multiple of 4)
#     by cp.async as they are (PAD=0), and rung 18 splitting A in shared
#     memory where TMA reads the rows as they are (the residual's rule's
#     case), verified and bit for bit after the timed launches; rung 17
#     under memcheck and racecheck.
#  6f. The schedule's rules at shapes they were fitted to, each run with no
#     --param: the row's config must name the value the rule chose (rung 14's
#     stream-K, its 128 x 128 blocks and eight splits, rung 17's single blocks,
#     rung 18's PAD=0 and its three stages, rung 20's BN=64 in half and BN=128 in
#     fp8, stream-K for rung 17, rung 21's presets by size), and the row verified and
#     bit for bit after the timed launches.
#  7. The clock filter under a deliberate power cap, where nvidia-smi may set
#     one (root; else the reason is printed): with the GPU held to its lowest
#     power limit, a tensor-core GEMM under --min-clock 90 takes launches again
#     (or keeps them low after 64, and says so) and its header names the cap;
#     the limit is put back after.
# Exit status: 0 when all pass, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build=${1:-build}
out=${OUT:-tests/gpu/out}
mkdir -p "$out"
kl=$build/kladder
[ -x "$kl" ] || { echo "no $kl: build kladder first" >&2; exit 2; }
"$kl" devices >"$out/devices.txt" 2>&1
if ! grep -q '^  Device cuda:0' "$out/devices.txt"; then
    echo "no CUDA device (see $out/devices.txt)" >&2
    exit 2
fi
status=0
export KLADDER_CACHE_DIR=$out/cache

step_1() {
    echo "== 1. CTest through the CUDA backend"
    # NVRTC's first build in a process takes seconds, as a sanitized PoCL's does (tune.cmake):
    # the tuner's budget tests allow that much past the budget.
    export KL_TEST_BUDGET_SLACK_MS=${KL_TEST_BUDGET_SLACK_MS:-10000}
    for round in $(seq 1 "${ROUNDS:-3}"); do
        (cd "$build" && KLADDER_DEVICE=cuda:0 ctest -j8 -E 'oclgrind|clblast|private_too_big|tune_rejects_wrong|cli_user_arg_type|e2e_args|user_build_log|fleet_|cli_golden|copy_cold' \
            --output-on-failure) >"$out/ctest_cuda_$round.txt" 2>&1 || status=1
        echo "round $round: $(grep 'tests passed' "$out/ctest_cuda_$round.txt")"
    done
}

step_2() {
    echo "== 2. compute-sanitizer"
    if ! command -v compute-sanitizer >/dev/null; then
        echo "compute-sanitizer not found" >&2
        status=1
        return
    fi
    quick=(--backend cuda --warmup 0 --repeats 1 --min-time 0)
    runs=(
        "gemm --m 17 --n 13 --k 29"
        "gemm --m 100 --n 37 --k 65 --type double"
        "gemm --m 33 --n 31 --k 35 --type int"
        # The warp-tiled CUDA rung across several blocks: interior blocks with
        # 16-byte copies of B, edge blocks, unaligned rows, and small tiles.
        "gemm --rung 14 --m 300 --n 520 --k 80 --no-tuned"
        "gemm --rung 14 --m 300 --n 265 --k 67"
        "gemm --rung 14 --m 130 --n 200 --k 45 --param BM=32 --param BN=64 --param BK=8 --param WM=32 --param WN=32 --param TM=4 --param TN=8 --param STAGES=2"
        # The tensor-core rungs: aligned rows (16-byte copies), unaligned rows (4-byte copies),
        # one product (K = 1, with the 3xTF32 correction), and small tiles over many blocks.
        "gemm --rung 15,16,15cl,16cl --m 260 --n 264 --k 96"
        "gemm --rung 15,16,15cl,16cl --m 300 --n 265 --k 67"
        "gemm --rung 15,16,15cl,16cl --m 37 --n 41 --k 1"
        "gemm --rung 15,16,15cl,16cl --m 130 --n 100 --k 75 --param BM=32 --param BN=32 --param BK=16 --param WM=32 --param WN=16 --param STAGES=2"
        # Hopper's wgmma rungs (skipped elsewhere): TMA and cp.async paths, K <= 8 (3xTF32 on
        # the FMA units), and more tiles than multiprocessors with the smallest tiles.
        "gemm --rung 17,18 --m 260 --n 264 --k 96"
        "gemm --rung 17,18 --m 300 --n 265 --k 67"
        "gemm --rung 17,18 --m 37 --n 41 --k 1"
        "gemm --rung 17,18 --m 1100 --n 1300 --k 70 --param BM=128 --param BN=64 --param STAGES=2 --param GROUP=2"
        # B's padded copy shared by rung 14 (16-byte pitch) and rung 17 (128-byte pitch), in that order.
        "gemm --rung 14,17 --m 33 --n 35 --k 37"
        "gemm --rung 17 --m 300 --n 265 --k 67 --param INFLIGHT=0"
        "copy --n 100003"
        "rowdot --rows 37 --d 1003"
        "gemv --m 37 --n 1003"
        "gemv --m 100 --n 33 --type double"
        "blur --width 100 --height 37 --sigma 1"
        "blur --width 17 --height 13 --radius 9 --pixel uchar4"
        # The cp.async blur rung over several blocks and strips (16-byte copies inside).
        "blur --rung 09 --width 300 --height 70 --sigma 2 --param BX=8 --param SY=5 --param ST=3"
        "blur --rung 09 --width 301 --height 33 --radius 4 --pixel uchar4 --param BX=16 --param SY=7"
        # The tile rung: interior tiles (16-byte copies, rows in place), edge tiles, uchar4's
        # second array, and a radius whose window leaves registers.
        "blur --rung 10 --width 300 --height 70 --sigma 2 --param WY=2 --param RY=5"
        "blur --rung 10 --width 301 --height 33 --radius 4 --pixel uchar4 --param RY=3"
        "blur --rung 10 --width 260 --height 41 --radius 20"
        # Packed halves on 8-bit pixels: edge tiles, small tiles, two pixels per thread.
        "blur --rung 11 --width 301 --height 33 --radius 4 --pixel uchar4 --param RY=3"
        "blur --rung 11 --width 300 --height 70 --sigma 2 --pixel uchar4 --param WY=2 --param RY=5 --param RX=2"
        # The register-blocked strips: several strips and chunks, uchar4's four channel
        # blocks, tiny strips, and a radius past the unrolled taps.
        "blur --rung 12 --width 301 --height 33 --radius 4 --pixel uchar4"
        "blur --rung 12 --width 1030 --height 200 --sigma 8 --pixel uchar4"
        "blur --rung 12 --width 300 --height 70 --sigma 2 --param TW=8 --param RX=4 --param CH=3 --param CY=1 --param SH=6 --param NT=32"
        "blur --rung 12 --width 260 --height 41 --radius 40"
        # The tensor-core rung: edge strips (4-byte loads), odd widths, every channel count,
        # short strips, and a radius whose window spans seven blocks of 16.
        "blur --rung 13 --width 301 --height 33 --radius 4 --pixel uchar4"
        "blur --rung 13 --width 300 --height 70 --sigma 2 --pixel uchar4 --param CW=2 --param WX=3 --param SH=32"
        "blur --rung 13 --width 77 --height 50 --sigma 8 --pixel uchar4 --param CW=1"
        "blur --rung 13 --width 40 --height 41 --radius 48 --pixel uchar4"
        # Its OpenCL C twin through the CUDA prelude: the same cases.
        "blur --rung 13cl --width 301 --height 33 --radius 4 --pixel uchar4"
        "blur --rung 13cl --width 300 --height 70 --sigma 2 --pixel uchar4 --param CW=2 --param WX=3 --param SH=32"
        "blur --rung 13cl --width 77 --height 50 --sigma 8 --pixel uchar4 --param CW=1"
        "blur --rung 13cl --width 40 --height 41 --radius 48 --pixel uchar4"
        # The float tensor-core rung: the same shapes, float pixels.
        "blur --rung 14 --width 301 --height 33 --radius 4"
        "blur --rung 14 --width 300 --height 70 --sigma 2 --param WX=3 --param SH=37"
        "blur --rung 14 --width 77 --height 50 --sigma 8 --param WX=1"
        "blur --rung 14 --width 40 --height 41 --radius 48"
        # The reduction ladder: every rung and operation, a size that is no multiple of a group,
        # small groups (many passes), and the one-pass rungs' counter over repeated launches;
        # CUB as a peer.
        "reduce --size 1000007 --compare cub"
        "reduce --size 100003 --type double --op min --data skewed"
        "reduce --size 65599 --type int --op max --param WG=32 --param GPC=1 --param U=3"
        "reduce --size 4099 --rung 09,10 --param WG=64"
        "reduce --size 1001 --kernel kernels/templates/reduce.cl --rung reduce"
        # The scan ladder: every rung, inclusive and exclusive, small groups and one vector a
        # work-item (many tiles, long look-backs), repeated checks; CUB as a peer.
        "scan --size 1000007 --type int --compare cub"
        "scan --size 100003 --mode exclusive --data skewed"
        "scan --size 65599 --type int --rung 03,04,05 --param WG=32 --param PER=3 --param V=1 --checks 3"
        "scan --size 1001 --kernel kernels/templates/scan.cl --rung scan"
        # The histogram ladder: every rung, odd bin counts, skewed and constant bytes; CUB.
        "histogram --size 1000007 --compare cub"
        "histogram --size 100003 --bins 7 --data skewed --param WG=32 --param GPC=1"
        "histogram --size 65599 --bins 3 --data constant"
        "histogram --size 1001 --kernel kernels/templates/histogram.cl --rung histogram"
        # The transpose ladder: every rung out of place and in place, 4-, 2- and 8-byte elements,
        # small tiles; cuBLAS geam.
        "transpose --size 1023,1025 --compare cublas"
        "transpose --size 257,257 --place in --type half"
        "transpose --size 130,130 --place in --type double --param TILE=16 --param ROWS=4"
        "transpose --size 33,65 --kernel kernels/templates/transpose.cl --rung transpose"
        # The softmax ladder: every rung and op, 4- and 2-byte elements, a row held by a cluster in
        # registers alone (8 blocks: up to 128k floats, 256k 2-byte elements) and past that in
        # registers and shared memory (filled by cp.async where the rows are whole vectors, by
        # loads where not), a long row streamed.
        "softmax --size 37,1031 --op layernorm"
        "softmax --size 3,262147 --type half"
        "softmax --size 3,262144 --op layernorm"
        "softmax --size 3,262147 --op rmsnorm --rung 05"
        "softmax --size 2,524288 --type half --rung 05"
        "softmax --size 2,524291 --type bf16 --op layernorm --rung 05"
        "softmax --size 2,70000 --type bf16 --rung 05"
        "softmax --size 5,100003 --op rmsnorm --type bf16 --rung 04,05 --param NT=128 --param V=2"
        "softmax --size 33,70 --kernel kernels/templates/softmax.cl --rung softmax"
        # NVIDIA NPP as a peer (its own kernels too).
        "blur --rung 10 --width 300 --height 70 --sigma 2 --compare npp"
        "peak --quick --bytes 1048576 --refresh"
        # The TF32 tensor-core roof alone is not an option: peak --quick runs its kernel small.
        # Users' kernels (every workload's template): counting a kernel's parameters ends in
        # the driver's one refused index, an API error the sanitizer is told not to report.
        "rowdot --rows 37 --d 1003 --kernel kernels/templates/rowdot.cl --rung rowdot"
        "gemm --m 33 --n 17 --k 9 --kernel kernels/templates/gemm.cl --rung gemm"
        "gemv --m 37 --n 1003 --kernel kernels/templates/gemv.cl --rung gemv"
        "copy --n 100003 --kernel kernels/templates/copy.cl --rung copy"
        "blur --width 100 --height 37 --sigma 1 --kernel kernels/templates/blur.cl --rung blur"
    )
    for tool in memcheck racecheck; do
        for r in "${runs[@]}"; do
            api=()
            [[ "$r" == *--kernel* ]] && api=(--report-api-errors no)
            # shellcheck disable=SC2086
            if compute-sanitizer --tool "$tool" "${api[@]}" --error-exitcode 97 --print-limit 20 \
                "$kl" $r "${quick[@]}" >"$out/tmp.txt" 2>&1; then
                echo "ok    $tool  kladder $r"
            else
                echo "FAIL  $tool  kladder $r"
                status=1
            fi
            { echo "\$ compute-sanitizer --tool $tool kladder $r ${quick[*]}"; cat "$out/tmp.txt"; } \
                >>"$out/sanitizer_$tool.txt"
        done
    done
    rm -f "$out/tmp.txt"
}

step_3() {
    echo "== 3. NVIDIA NPP"
    for pix in float uchar4; do
        if ! "$kl" blur --backend cuda --pixel "$pix" --width 1000 --height 997 --sigma 2 --rung 10 \
            --compare npp --warmup 0 --repeats 2 --min-time 0 --json "$out/npp_$pix.json" \
            >"$out/npp_$pix.txt" 2>&1 && [ "$pix" = float ]; then
            echo "FAIL  npp $pix: kladder blur --compare npp failed (see $out/npp_$pix.txt)"
            status=1
            continue
        fi
        python3 - "$out/npp_$pix.json" "$pix" <<'PY' || status=1
import json, re, sys
rows = {r["rung"]: r for r in json.load(open(sys.argv[1]))["results"]}
n = rows.get("peer:npp", {})
if n.get("status") == "skipped":
    print(f"FAIL  npp {sys.argv[2]}: NPP skipped: {n.get('note')}"); sys.exit(1)
if n.get("status") == "verified":
    print(f"ok    npp {sys.argv[2]}: verified, {n['median_s'] * 1e3:.3f} ms"); sys.exit(0)
m = re.search(r"worst ([0-9.e+-]+) at", n.get("note", ""))
if sys.argv[2] == "uchar4" and m and float(m.group(1)) < 1.01:
    print(f"ok    npp uchar4: within {m.group(1)} levels (NPP truncates): {n['note']}"); sys.exit(0)
print(f"FAIL  npp {sys.argv[2]}: {n.get('status')}: {n.get('note')}"); sys.exit(1)
PY
    done
}

step_3b() {
    echo "== 3b. NVIDIA cuDNN: softmax, layer norm, RMS norm"
    for op in softmax layernorm rmsnorm; do
        for type in float half bf16; do
            for size in 37,1031 3,262147; do
                name="$out/cudnn_${op}_${type}_$size"
                "$kl" softmax --backend cuda --op "$op" --type "$type" --size "$size" --rung 04 \
                    --compare cudnn --warmup 0 --repeats 2 --min-time 0 --json "$name.json" \
                    >"$name.txt" 2>&1
                python3 - "$name.json" "$op $type $size" <<'PY' || status=1
import json, sys
try:
    rows = {r["rung"]: r for r in json.load(open(sys.argv[1]))["results"]}
except (OSError, ValueError) as e:
    print(f"FAIL  cudnn {sys.argv[2]}: no JSON ({e})"); sys.exit(1)
n = rows.get("peer:cudnn", {})
if n.get("status") == "verified":
    print(f"ok    cudnn {sys.argv[2]}: verified, {n['median_s'] * 1e3:.3f} ms"); sys.exit(0)
print(f"FAIL  cudnn {sys.argv[2]}: {n.get('status')}: {n.get('note')}"); sys.exit(1)
PY
            done
        done
    done
}

step_4() {
    echo "== 4. The machine: registers against cuobjdump, energy against power × time"
    cubins=$(mktemp -d)
    if KLADDER_SAVE_CUBIN=$cubins "$kl" gemm --backend cuda --rung 14 --size 1024 --warmup 0 \
        --repeats 2 --min-time 0 --json "$out/machine_regs.json" >"$out/machine_regs.txt" 2>&1 &&
        command -v cuobjdump >/dev/null; then
        for f in "$cubins"/gemm-*.cubin; do cuobjdump --dump-resource-usage "$f"; done \
            >"$out/machine_cuobjdump.txt" 2>&1
        python3 - "$out/machine_regs.json" "$out/machine_cuobjdump.txt" <<'PY' || status=1
import json, re, sys
rows = {r["rung"]: r for r in json.load(open(sys.argv[1]))["results"]}
regs = (rows.get("14_warptile", {}).get("resources") or [{}])[0].get("regs")
dump = open(sys.argv[2]).read()
found = [int(x) for x in re.findall(r"Function gemm:\s*\n\s*REG:(\d+)", dump)]
if regs is not None and found == [regs]:
    print(f"ok    machine: rung 14 uses {regs} registers, as cuobjdump reads its cubin")
else:
    print(f"FAIL  machine: JSON says {regs} registers, cuobjdump {found}"); sys.exit(1)
PY
    else
        echo "FAIL  machine: kladder gemm --rung 14 or cuobjdump failed (see $out/machine_regs.txt)"
        status=1
    fi
    rm -rf "$cubins"
    if "$kl" gemm --backend cuda --rung 14 --size 4096 --compare cublas --energy --min-time 3 \
        --json "$out/machine_energy.json" >"$out/machine_energy.txt" 2>&1; then
        python3 - "$out/machine_energy.json" <<'PY' || status=1
import json, sys
bad = 0
for r in json.load(open(sys.argv[1]))["results"]:
    if r["status"] != "verified":
        continue
    e, p, w = r.get("energy_j"), r.get("power_w"), r.get("window_s")
    if not (e and p and w):
        print(f"FAIL  energy: {r['rung']} has no energy ({r.get('machine_note')})"); bad = 1
        continue
    ratio = e * r["repeats"] / (p * w)
    ok = abs(ratio - 1) <= 0.10
    bad |= not ok
    print(f"{'ok   ' if ok else 'FAIL '} energy: {r['rung']}: {e * r['repeats']:.1f} J counted, "
          f"{p:.0f} W x {w:.2f} s = {p * w:.1f} J ({ratio:.3f}); {r.get('gflops_per_j')} GFLOP/J")
sys.exit(bad)
PY
    else
        echo "FAIL  energy: kladder gemm --energy failed (see $out/machine_energy.txt)"
        status=1
    fi
}

step_5() {
    echo "== 5. Device memory: a problem larger than the memory free is refused"
    if nvcc -o "$out/hog" tests/gpu/hog.cu >"$out/hog_build.txt" 2>&1; then
        "$out/hog" 6144 >"$out/hog.txt" 2>&1 &
        hog=$!
        for _ in $(seq 100); do grep -q held "$out/hog.txt" && break; sleep 0.1; done
        # 30000² floats: A, B twice and C, 13.4 GiB, with 6 GiB free.
        "$kl" gemm --backend cuda --size 30000 --rung 14 >"$out/too_big.txt" 2>&1
        rc=$?
        kill "$hog"
        wait "$hog" 2>/dev/null
        if [ "$rc" = 2 ] && grep -Eq "need 1[0-9]{4}\.[0-9] MiB of device memory, more than the [0-9]+\.[0-9] MiB free" "$out/too_big.txt"; then
            echo "ok    $(grep -o 'the matrices.*' "$out/too_big.txt")"
        else
            echo "FAIL  device memory: exit $rc ($(cat "$out/hog.txt"); $(tail -n 2 "$out/too_big.txt"))"
            status=1
        fi
    else
        echo "FAIL  device memory: the hog did not build (see $out/hog_build.txt)"
        status=1
    fi
}

# verified_run FILE WHAT ARGS...: kladder gemm ARGS through CUDA within 5 minutes, its rows in
# $out/FILE.txt: "ok" where it verified (returns 0); 2 where it was skipped; else "FAIL", its
# output kept beside (FILE_failed_WHAT.txt), status 1 (returns 1).
verified_run() {
    local file=$1 what=$2 rc
    shift 2
    timeout 300 "$kl" gemm --backend cuda "$@" --warmup 1 --repeats 3 --min-time 0 --format csv \
        -q >"$out/$file.txt" 2>&1
    rc=$?
    if [ "$rc" = 0 ] && grep -q ',verified,' "$out/$file.txt"; then
        echo "ok    $what"
        return 0
    fi
    if grep -q ',skipped,' "$out/$file.txt"; then
        echo "skip  $what: $(tail -n 1 "$out/$file.txt")"
        return 2
    fi
    echo "FAIL  $what: exit $rc ($(tail -n 2 "$out/$file.txt"))"
    cp "$out/$file.txt" "$out/${file}_failed_${what//[^A-Za-z0-9]/_}.txt"
    status=1
    return 1
}

step_6() {
    echo "== 6. Stream-K: the Hopper rungs and rung 14 with SK=1"
    # Rung 20 in each type (FP8 promoted on its preset's tiles, BN=192, given again: a --param
    # sets presets aside; and with PROMOTE=0), rung 17
    # alone and in clusters of two, rung 18, rung 22 (rung 20's int8 products) and rung 14 (FFMA,
    # at its defaults and its sm_90 preset's 8 stages), at the awkward
    # shapes (129x8191x65: 64 tiles of 2 slices on 128 blocks, each tile finished by one block
    # from another's partial), at 4096x4352x4096 (rung 20: 544 tiles of 128 x 256 on an H200's
    # 132 SMs, four waves and 16 tiles, the last one to two waves' shared by slices of K) and at
    # 256x16384x8192 (128 tiles: the whole product a stream); each run's C after its timed
    # launches must be the verified launch's bit for bit (kl_gemm_time_launch), within 5 minutes
    # (timeout: exit 124); a failed run's output is kept. Then memcheck and racecheck on rungs
    # 20, 17 and 14.
    sk_skipped=0
    for config in "20 half" "20 bf16" "20 int8" "20 fp8 BN=192" "20 fp8 PROMOTE=0" "17 float" \
        "17 float CLUSTER=2" "18 float" "22 float" "14 float" "14 float STAGES=8"; do
        read -r rung type param <<<"$config"
        extra=(--param SK=1)
        [ -n "$param" ] && extra+=(--param "$param")
        for shape in "1 1 1" "64 300 70" "4095 33 4097" "129 8191 65" "4096 4352 4096" "256 16384 8192"; do
            read -r m n k <<<"$shape"
            verified_run sk "SK=1 rung $rung $type ${param:+$param }${m}x${n}x${k}" --rung "$rung" \
                --type "$type" --m "$m" --n "$n" --k "$k" "${extra[@]}"
            if [ $? = 2 ]; then
                sk_skipped=1
                break 2
            fi
        done
    done
    for tool in memcheck racecheck; do
        for config in "20 half" "17 float" "14 float"; do
            [ "$sk_skipped" = 1 ] && break 2
            read -r rung type <<<"$config"
            if compute-sanitizer --tool "$tool" --error-exitcode 97 --print-limit 20 "$kl" gemm \
                --backend cuda --rung "$rung" --type "$type" --m 129 --n 8191 --k 65 --param SK=1 \
                --warmup 0 --repeats 1 --min-time 0 -q >"$out/sk_$tool.txt" 2>&1; then
                echo "ok    SK=1 rung $rung under $tool"
            else
                echo "FAIL  SK=1 rung $rung under $tool (see $out/sk_$tool.txt)"
                status=1
            fi
        done
    done
}

step_6c() {
    echo "== 6c. C stored through shared memory: rungs 20, 17 and 18 with EPI=1 and EPI=2" \
        "(rung 20 with its L2 policies too)"
    # Rung 20 in each type (FP8 on its preset's BN=192, promoted and not), rung 17 alone and in
    # clusters of two (whose second block's tile may lie past N) and rung 18, with stream-K and
    # without, at shapes whose N is a multiple of 4 (TMA's boxes, clipped at C's edges: 1000^3
    # ends in part tiles both ways; at 129x38400x65 each block stores several tiles of 129
    # rows, their staging reused from tile to tile) and at two whose N is not (with EPI=1 the
    # stores from registers; with EPI=2 the same staging read back a row at a time); C after
    # the timed launches the verified one bit for bit; rung 20 in bf16 and int8 with HINT=3 (C's
    # stores and the operands' copies under L2 policies) as well. Then memcheck and racecheck
    # (K = 131: A's rows padded first), with EPI=2 at N = 1001 too, and with HINT=3.
    for config in "20 half" "20 bf16" "20 int8" "20 fp8 BN=192" "20 fp8 PROMOTE=0" \
        "20 bf16 HINT=3" "20 int8 HINT=3" "17 float" "17 float CLUSTER=2" "18 float"; do
        read -r rung type param <<<"$config"
        for epi in 1 2; do
            for sk in 0 1; do
                extra=(--param "EPI=$epi" --param "SK=$sk")
                [ -n "$param" ] && extra+=(--param "$param")
                for shape in "1 4 1" "64 300 70" "4095 36 4097" "129 8188 65" "1000 1000 1000" \
                    "4096 4352 4096" "4095 33 4097" "129 8191 65" "129 38400 65"; do
                    read -r m n k <<<"$shape"
                    verified_run epi \
                        "EPI=$epi SK=$sk rung $rung $type ${param:+$param }${m}x${n}x${k}" \
                        --rung "$rung" --type "$type" --m "$m" --n "$n" --k "$k" "${extra[@]}"
                    [ $? = 2 ] && return
                done
            done
        done
    done
    for tool in memcheck racecheck; do
        for config in "20 half 1 0 1000" "20 half 1 1 1000" "20 half 2 0 1001" \
            "20 int8 2 1 1001" "17 float 1 0 1000" "17 float 1 1 1000" "17 float 2 0 1001" \
            "17 float 2 1 1001" "18 float 2 0 1001" "20 bf16 2 0 1000 3" "20 int8 2 1 1000 3"; do
            read -r rung type epi sk n hint <<<"$config"
            what="EPI=$epi SK=$sk ${hint:+HINT=$hint }rung $rung N=$n"
            log="$out/epi_${rung}_e${epi}_sk${sk}_n${n}${hint:+_h$hint}_$tool.txt"
            if compute-sanitizer --tool "$tool" --error-exitcode 97 --print-limit 20 "$kl" gemm \
                --backend cuda --rung "$rung" --type "$type" --m 1000 --n "$n" --k 131 \
                --param "EPI=$epi" --param "SK=$sk" ${hint:+--param "HINT=$hint"} --warmup 0 \
                --repeats 1 --min-time 0 -q >"$log" 2>&1
            then
                echo "ok    $what under $tool"
            else
                echo "FAIL  $what under $tool (see $log)"
                status=1
            fi
        done
    done
}

# dmma_set P SANITIZED CONFIG...: rung 21 at PREFETCH=P in each CONFIG (words of options; ""
# its defaults) at the awkward shapes and 1000^3 (part blocks both ways), C after the timed
# launches the verified one bit for bit; then memcheck and racecheck in SANITIZED.
dmma_set() {
    local p=$1 sanitized=$2 config shape m n k tool
    shift 2
    for config in "$@"; do
        for shape in "1 1 1" "64 300 70" "4095 33 4097" "129 8191 65" "1000 1000 1000"; do
            read -r m n k <<<"$shape"
            # shellcheck disable=SC2086 # config is words of options
            verified_run dmma "PREFETCH=$p rung 21 ${config:-defaults} ${m}x${n}x${k}" --rung 21 \
                --type double --m "$m" --n "$n" --k "$k" --param "PREFETCH=$p" $config
        done
    done
    for tool in memcheck racecheck; do
        # shellcheck disable=SC2086 # sanitized is words of options
        if compute-sanitizer --tool "$tool" --error-exitcode 97 --print-limit 20 "$kl" gemm \
            --backend cuda --rung 21 --type double --m 300 --n 257 --k 70 --param "PREFETCH=$p" \
            $sanitized --warmup 0 --repeats 1 --min-time 0 -q >"$out/dmma${p}_$tool.txt" 2>&1; then
            echo "ok    PREFETCH=$p rung 21 under $tool"
        else
            echo "FAIL  PREFETCH=$p rung 21 under $tool (see $out/dmma${p}_$tool.txt)"
            status=1
        fi
    done
}

step_6d() {
    echo "== 6d. Rung 21 with one set of fragments (PREFETCH=0), and A's in a ring (PREFETCH=2)"
    # One set at its defaults and on 128 x 128 blocks of 32 x 64 warp tiles (MK 8 and 16), the
    # sanitizers on those blocks; the ring at the defaults' blocks, one step a slice
    # (BK=8), and 64 x 32 warp tiles of 128 x 128 and 128 x 64 blocks, the sanitizers on the
    # last.
    local big="--param BM=128 --param BN=128 --param WM=32 --param WN=64"
    local wide="--param BM=128 --param BN=64 --param WM=64 --param WN=32"
    dmma_set 0 "$big" "" "$big" "$big --param MK=16"
    dmma_set 2 "$wide" "" "--param BK=8" "--param BM=128 --param BN=128 --param WM=64 --param WN=32" \
        "$wide"
}

step_6e() {
    echo "== 6e. Rungs 17 and 18 reading unaligned rows by cp.async (PAD=0)"
    # Shapes whose K or N is not a multiple of 4 (rows TMA cannot read): the producer's cp.async
    # copies, rounding (17) or splitting (18) A in shared memory; and two whose rows TMA reads as
    # they are (4096x256x4096, 1000x256x1000: rung 18 splits A in shared memory, as the
    # residual's rule has it there); C after the timed launches the verified one bit for bit.
    # Then memcheck and racecheck on rung 17.
    for config in "17" "17 --param CLUSTER=2" "18"; do
        for shape in "1 1 1" "64 300 70" "4095 33 4097" "129 8191 65" "1000 1002 998" \
            "4095 4097 4093" "4096 256 4096" "1000 256 1000"; do
            read -r m n k <<<"$shape"
            # shellcheck disable=SC2086 # config is the rung and its options
            verified_run pad "PAD=0 rung $config ${m}x${n}x${k}" --rung $config --m "$m" \
                --n "$n" --k "$k" --param PAD=0
        done
    done
    for tool in memcheck racecheck; do
        if compute-sanitizer --tool "$tool" --error-exitcode 97 --print-limit 20 "$kl" gemm \
            --backend cuda --rung 17 --m 300 --n 257 --k 70 --param PAD=0 --warmup 0 \
            --repeats 1 --min-time 0 -q >"$out/pad_$tool.txt" 2>&1; then
            echo "ok    PAD=0 rung 17 under $tool"
        else
            echo "FAIL  PAD=0 rung 17 under $tool (see $out/pad_$tool.txt)"
            status=1
        fi
    done
}

step_6f() {
    echo "== 6f. The schedule's rules, each where it chooses"
    local rule args
    while IFS='|' read -r rule args; do
        # shellcheck disable=SC2086 # args are the run's options
        verified_run rule "$rule: $args" $args || continue
        if ! grep -qF "$rule" "$out/rule.txt"; then
            echo "FAIL  $args: the config does not say $rule ($(grep -m1 ',verified,' "$out/rule.txt"))"
            status=1
        fi
    done <<'RULES'
BN=128 (the tiles' rule)|--rung 14 --m 4095 --n 4097 --k 4093
SK=1 (stream-K's rule)|--rung 14 --m 4099 --n 4111 --k 4127
SK=1 (stream-K's rule)|--rung 14 --m 128 --n 8192 --k 8192
SPLITK=8 (split-K's rule)|--rung 14 --m 128 --n 1024 --k 8192
CLUSTER=1 (the tiles' rule)|--rung 17 --m 4095 --n 4097 --k 4093
SK=1 (stream-K's rule)|--rung 17 --m 192 --n 12288 --k 12288
PAD=0 (the residual's rule)|--rung 18 --m 4096 --n 256 --k 4096
preset sm_90 STAGES=3|--rung 18 --m 2048 --n 2050 --k 2047
BN=64 (the tiles' rule)|--rung 20 --type half --m 128 --n 8192 --k 8192
BN=128 (the tiles' rule)|--rung 20 --type fp8 --m 256 --n 16384 --k 16384
preset sm_90 PREFETCH=1|--rung 21 --type double --m 1000 --n 1000 --k 1000
preset sm_90 BM=128 BN=128 WM=64 WN=32 PREFETCH=2|--rung 21 --type double --m 2048 --n 2000 --k 2050
RULES
}

step_6b() {
    echo "== 6b. Split-K: rungs 13 and 14 with SPLITK > 1"
    # Each split's partial product into the workspace, then their sum in order: verified at the
    # awkward shapes and at a skinny one whose 32 blocks would leave most SMs idle alone, C after
    # the timed launches the verified one bit for bit, each within 5 minutes; then memcheck. At
    # rung 14's preset's 8 stages, its C staged through them where N % 4 != 0, split and not.
    local p v
    for config in "14 float SPLITK=4" "14 double SPLITK=3" "14 int SPLITK=16" "13 float SPLITK=5" \
        "13 half SPLITK=2" "14 float SPLITK=4,STAGES=8" "14 float STAGES=8"; do
        read -r rung type param <<<"$config"
        p=()
        for v in ${param//,/ }; do p+=(--param "$v"); done
        for shape in "1 1 1" "64 300 70" "4095 33 4097" "129 8191 65" "128 8192 8192"; do
            read -r m n k <<<"$shape"
            verified_run splitk "rung $rung $type $param ${m}x${n}x${k}" --rung "$rung" \
                --type "$type" --m "$m" --n "$n" --k "$k" "${p[@]}"
            [ $? = 2 ] && status=1 # rungs 13 and 14 run on every CUDA GPU
        done
    done
    if compute-sanitizer --tool memcheck --error-exitcode 97 --print-limit 20 "$kl" gemm \
        --backend cuda --rung 14 --m 129 --n 8191 --k 65 --param SPLITK=4 --warmup 0 --repeats 1 \
        --min-time 0 -q >"$out/splitk_memcheck.txt" 2>&1; then
        echo "ok    SPLITK=4 rung 14 under memcheck"
    else
        echo "FAIL  SPLITK=4 rung 14 under memcheck (see $out/splitk_memcheck.txt)"
        status=1
    fi
}

step_7() {
    echo "== 7. --min-clock under a deliberate power cap"
    # A GPU's power limit is its owner's: only with KLADDER_MAY_SET_CLOCKS=1, on a machine that is
    # yours, is it lowered for this step (and put back after).
    if [ "${KLADDER_MAY_SET_CLOCKS:-0}" != 1 ]; then
        echo "skipped: the power limit is not ours to change (KLADDER_MAY_SET_CLOCKS=1 on your own machine)"
        return
    fi
    limits=$(nvidia-smi -i 0 --query-gpu=power.limit,power.min_limit --format=csv,noheader,nounits 2>&1)
    old_limit=${limits%%,*}
    low_limit=$(echo "${limits#*,}" | tr -d ' ')
    if nvidia-smi -i 0 -pl "$low_limit" >"$out/power_cap.txt" 2>&1; then
        "$kl" gemm --backend cuda --size 8192 --rung 17 --min-clock 90 --json "$out/capped.json" \
            >"$out/capped.txt" 2>&1
        rc=$?
        nvidia-smi -i 0 -pl "$old_limit" >>"$out/power_cap.txt" 2>&1
        if [ "$rc" = 0 ] && python3 - "$out/capped.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
x = r["results"][0]
assert x["status"] == "verified" and (x["retaken"] > 0 or x["low_clock_kept"] > 0), x
print(f"ok    power held to {r['conditions'].get('power_limit_w')} W: {x['retaken']} launches taken "
      f"again, {x['low_clock_kept']} kept low, clock {x['clocks']['sm_mhz']} MHz")
PY
        then :; else
            echo "FAIL  --min-clock under a power cap: exit $rc (see $out/capped.txt)"
            status=1
        fi
    else
        echo "skipped: no power cap here ($(head -c 200 "$out/power_cap.txt"))"
    fi
}

for s in ${STEPS:-1 2 3 3b 4 5 6 6b 6c 6d 6e 6f 7}; do
    if ! declare -F "step_$s" >/dev/null; then
        echo "no step $s (steps: 1 2 3 3b 4 5 6 6b 6c 6d 6e 6f 7)" >&2
        exit 2
    fi
    "step_$s"
done
exit $status
