#!/usr/bin/env bash
# The measurement protocol on a GPU (not a test; issue 40's benchmark), every run's JSON kept
# under $OUT (default bench/out/protocol) and summarised by bench/protocol.py:
#   conditions  the run's conditions, --lock-clocks where allowed, --min-clock 99 on a
#               tensor-core GEMM (held below 99 % by its power, every launch taken again)
#   repeat      ten runs of the GEMM and rowdot ladders with the fixed protocol, then ten
#               with --noise 0.5 --min-clock 75: each row's spread over its ten medians
#   locked      ten runs of the GEMM ladder with --noise 0.5 and the clocks locked at $lock
#   detect      rowdot at Y rows (five runs) against Y·1.02, ·1.03, ·1.05 (five runs each):
#               kladder compare's verdicts on A/A pairs and on the real 2, 3 and 5 % slowdowns
#   cache       --warm-cold for copy, rowdot and GEMV below and above L2
#   energy      --energy: each row's joules against power × time (energy_power_ratio)
#   transfers   peak --transfers: host <-> device copies from 4 KiB to 1 GiB, each way and
#               both at once from pageable and pinned memory, and by the SMs (CUDA); beside
#               it torch's copies (bench/transfers_torch.py), and on NVIDIA's OpenCL the
#               same sweep beside clpeak's --transfer-bandwidth (its .deb carried in .debs/)
#   soak        kladder soak for a minute (Hopper's TF32 rung 17 on a GPU): the trace
# BENCH_QUICK=1 takes sizes a CPU runs in seconds (the script's own check, on PoCL).
# A GPU's clocks are its owner's: --lock-clocks runs (in conditions and locked) only with
# KLADDER_MAY_SET_CLOCKS=1, on a machine that is yours; else they are skipped and say so.
#   bench/protocol.sh [PART ...]        (default: every part; KLADDER_DEVICE picks the device)
set -euo pipefail
source "$(dirname "$0")/env.sh"
out=$out/protocol
mkdir -p "$out"
k=build/kladder
be=()
[ -e /dev/nvidia0 ] && be=(--backend cuda)
if [ "${BENCH_QUICK:-0}" = 1 ]; then
    gemm=(gemm --size 96 --rung 10,11)
    tc=(gemm --size 64 --rung 10)
    rows=1024 d=256 rd_rung=06
    small=(--n 65536) large=(--n 4194304)
    rd_small=(--rows 256 --d 256) rd_large=(--rows 4096 --d 4096)
    gv_small=(--m 256 --n 256) gv_large=(--m 4096 --n 4096)
    runs=10
    xfer=(--bytes 4194304) soak=(--time 5 --size 64 --rung 10_tiled) lock=1000
else
    gemm=(gemm --size 4096 --rung 11,13,14,15,16,17,18 --compare cublas)
    tc=(gemm --size 8192 --rung 17)
    rows=16384 d=16384 rd_rung=06
    small=(--n 1048576) large=(--n 268435456)         # 8 MiB and 2 GiB moved, L2 50 MiB
    rd_small=(--rows 4096 --d 1024) rd_large=(--rows 65536 --d 4096)   # 32 MiB, 2 GiB
    gv_small=(--m 2048 --n 2048) gv_large=(--m 16384 --n 16384)        # 16 MiB, 1 GiB
    runs=10
    xfer=() soak=(--time 60 --size 4096 --rung 17) lock=${LOCK_MHZ:-1590}
fi
may_set=${KLADDER_MAY_SET_CLOCKS:-0}
[ "${BENCH_QUICK:-0}" = 1 ] && [ ! -e /dev/nvidia0 ] && may_set=1 # (no GPU: nothing to set)
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(conditions repeat locked detect cache energy transfers soak)

# run NAME ARGS...: one kladder run, its table to NAME.txt, its JSON to NAME.json.
run() {
    local name=$1
    shift
    "$k" "$@" "${be[@]}" --json "$out/$name.json" >"$out/$name.txt" 2>&1 || true
}

for part in "${parts[@]}"; do
    echo "== $part ($(date -u +%T))"
    case $part in
    conditions)
        run rowdot_conditions rowdot --rows "$rows" --d "$d" --rung "$rd_rung"
        if [ "$may_set" = 1 ]; then
            run lock rowdot --rows "$rows" --d "$d" --rung "$rd_rung" --lock-clocks 1500
        else
            echo "skipped --lock-clocks: the GPU's clocks are not ours to set (KLADDER_MAY_SET_CLOCKS=1)"
        fi
        run minclock99 "${tc[@]}" --min-clock 99
        run minclock75 "${tc[@]}" --min-clock 75 ;;
    repeat)
        for i in $(seq 1 "$runs"); do
            run "gemm_fixed_$i" "${gemm[@]}"
            run "rowdot_fixed_$i" rowdot --rows "$rows" --d "$d"
        done
        for i in $(seq 1 "$runs"); do
            run "gemm_noise_$i" "${gemm[@]}" --noise 0.5 --max-time 3 --min-clock 75
            run "rowdot_noise_$i" rowdot --rows "$rows" --d "$d" --noise 0.5 --max-time 3 --min-clock 75
        done ;;
    locked)
        [ "$may_set" = 1 ] || {
            echo "skipped: the GPU's clocks are not ours to set (KLADDER_MAY_SET_CLOCKS=1)"
            continue
        }
        for i in $(seq 1 "$runs"); do
            run "gemm_locked_$i" "${gemm[@]}" --noise 0.5 --max-time 3 --lock-clocks "$lock"
        done ;;
    detect)
        for f in 100 102 103 105; do
            y=$((rows * f / 100))
            for i in 1 2 3 4 5; do
                run "detect_${f}_$i" rowdot --rows "$y" --d "$d" --rung "$rd_rung" --repeats 200
            done
        done ;;
    cache)
        run cache_copy_small copy "${small[@]}" --rung ilp4 --warm-cold
        run cache_copy_large copy "${large[@]}" --rung ilp4 --warm-cold
        run cache_rowdot_small rowdot "${rd_small[@]}" --rung "$rd_rung" --warm-cold
        run cache_rowdot_large rowdot "${rd_large[@]}" --rung "$rd_rung" --warm-cold
        run cache_gemv_small gemv "${gv_small[@]}" --rung 03 --warm-cold
        run cache_gemv_large gemv "${gv_large[@]}" --rung 03 --warm-cold ;;
    energy)
        run energy_gemm "${gemm[@]}" --energy --cooldown 10 --shuffle
        run energy_rowdot rowdot --rows "$rows" --d "$d" --energy --cooldown 10 --shuffle ;;
    transfers)
        run transfers peak --transfers "${xfer[@]}"
        # the peers: torch's copies (the same sizes and clock); NVIDIA's OpenCL beside clpeak's
        if [ -e /dev/nvidia0 ] && [ -x /opt/torch/.venv/bin/python ]; then
            /opt/torch/.venv/bin/python bench/transfers_torch.py >"$out/transfers_torch.txt" 2>&1 || true
        fi
        deb=$(ls .debs/clpeak_*.deb 2>/dev/null | head -n 1 || true)
        dev=$("$k" devices 2>/dev/null | awk '$1 == "Device" && $2 ~ /^[0-9]+:[0-9]+$/ && /NVIDIA/ {print "opencl:" $2; exit}')
        if [ -e /dev/nvidia0 ] && [ -n "$dev" ]; then
            "$k" peak --transfers "${xfer[@]}" --device "$dev" --json "$out/transfers_opencl.json" \
                >"$out/transfers_opencl.txt" 2>&1 || true
            if [ -n "$deb" ]; then
                rm -rf /tmp/clpeak && dpkg -x "$deb" /tmp/clpeak
                p=${dev#opencl:}
                /tmp/clpeak/usr/bin/clpeak -p "${p%%:*}" -d "${p##*:}" --transfer-bandwidth \
                    >"$out/transfers_clpeak.txt" 2>&1 || true
            fi
        fi ;;
    soak) run soak soak "${soak[@]}" ;;
    *) echo "unknown part $part (conditions, repeat, locked, detect, cache, energy, transfers, soak)" >&2
       exit 2 ;;
    esac
done
python3 "$(dirname "$0")/protocol.py" "$k" "$out" | tee "$out/summary.txt"
