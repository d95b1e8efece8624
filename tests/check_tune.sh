#!/usr/bin/env bash
# `kladder tune` and `kladder gemm --compare`, on the default device (PoCL in
# CI), each in a private cache directory (KLADDER_CACHE_DIR), at 64³.
# usage: check_tune.sh KLADDER budget
#          the search (01_naive: 49 candidates, more than the budget holds)
#          stops when the budget runs out: the wall time of the whole command
#          stays within the budget and a little slack, and the best is saved;
#          over a user kernel's 216 candidates (each a build) it must stop
#        check_tune.sh KLADDER wrong KERNELS
#          a copy of the kernels in which 10_tiled is wrong at TS=4 only:
#          that candidate is rejected (logged on stderr, never timed, never
#          the best, never cached), the others verified and timed
#        check_tune.sh KLADDER cache
#          tuned parameters reach `kladder gemm` (the row's config and build
#          options, a "tuned parameters from FILE" line) for the same size
#          class only, unless --param or --no-tuned; tune --show lists them;
#          a corrupt cache is survived with a warning by gemm, --show and
#          tune (which replaces it); --clear and --clear --all remove them
#        check_tune.sh KLADDER types
#          10_tiled tuned at 48³ in half and int8 (C in float and int32:
#          twice and four times the inputs' bytes): each verified, cached
#          under its own type, and taken by `kladder gemm` in that type only
#        check_tune.sh KLADDER compare
#          --compare openblas,cublas,clblast: OpenBLAS a verified host peer
#          row (skipped, 77, without OpenBLAS unless CI=true), cuBLAS
#          skipped with its reason away from NVIDIA, int skipped with a
#          reason, an unknown peer exit 2 before anything runs
# One "ok" line per check; FAIL lines and exit 1 on any failure.
set -u
kladder=$1
mode=$2
. "$(dirname "$0")/lib.sh" # $tmp, ok, fail
export KLADDER_CACHE_DIR=$tmp/cache
q=(--warmup 0 --repeats 1 --min-time 0)

# run NAME ARGS...: kladder ARGS, stdout in $tmp/NAME.out, stderr in
# $tmp/NAME.err, the exit code in $rc and the wall time in $ms.
run() {
    local name=$1 t0
    shift
    t0=$(date +%s%N)
    "$kladder" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
}
# The params=... of the cached entry for RUNG, or nothing.
cached_params() {
    cat "$KLADDER_CACHE_DIR"/tuned-*.txt 2>/dev/null |
        sed -n "s/^entry .* rung=$1 .* params=\([^ ]*\) .*/\1/p" | head -n 1
}

case $mode in
budget)
    budget=3
    run budget tune gemm --size 64 --rung 01 --budget ${budget}s
    slack_ms=${KL_TEST_BUDGET_SLACK_MS:-3000} # more under the sanitizers: tune.cmake
    # A fast device may try the whole space inside the budget; then it must say so.
    if [ "$rc" -ne 0 ] || ! grep -q '^best: ' "$tmp/budget.out" ||
        ! grep -Eq 'stopped when the budget ran out|every candidate tried' "$tmp/budget.out"; then
        fail "tune --budget ${budget}s: exit $rc; expected a best and \"stopped when the budget ran out\" (or every candidate tried)" \
            "$tmp/budget.out" "$tmp/budget.err"
    elif [ "$ms" -gt $((budget * 1000 + slack_ms)) ]; then
        fail "tune --budget ${budget}s took ${ms} ms, beyond the budget and ${slack_ms} ms of slack" \
            "$tmp/budget.out" "$tmp/budget.err"
    else
        ok "tune --budget ${budget}s: $(grep '^tried:' "$tmp/budget.out" | sed 's/  */ /g'), wall ${ms} ms"
    fi
    # Progress on stderr: the best so far, with candidates tried, pruned and the time.
    if ! grep -Eq 'best so far .*tried [0-9]+ of [0-9]+, rejected 0, abandoned [0-9]+, [0-9]+ pruned; [0-9.]+ s' "$tmp/budget.err"; then
        fail "no \"best so far\" progress line on stderr" "$tmp/budget.err"
    else
        ok "progress on stderr: $(grep 'best so far' "$tmp/budget.err" | tail -n 1)"
    fi
    # A space no device tries in the budget (216 candidates, each a build): it must stop.
    # Four launches a candidate: the search's own protocol (0.02 s of kernel time) takes
    # thousands of these 1-µs launches, whose host cost on a loaded CPU device varies by
    # seconds, and the candidate in flight at the deadline runs it out.
    run big tune rowdot --rows 64 --d 16 --kernel "$(dirname "$0")/user_kernels/tune_big_space.cl" \
        --budget ${budget}s --warmup 1 --repeats 3 --min-time 0
    if [ "$rc" -ne 0 ] || ! grep -q 'stopped when the budget ran out' "$tmp/big.out" ||
        [ "$ms" -gt $((budget * 1000 + slack_ms)) ]; then
        fail "tune --budget ${budget}s over 216 candidates: exit $rc after $ms ms; expected \"stopped when the budget ran out\" within the budget and ${slack_ms} ms" \
            "$tmp/big.out" "$tmp/big.err"
    else
        ok "tune --budget ${budget}s over a space of $(grep -o '[0-9]* candidates$' "$tmp/big.out" | head -1): stopped when the budget ran out, wall ${ms} ms"
    fi
    p=$(cached_params 01_naive)
    if [ -z "$p" ] || ! grep -q "^best: *${p} " "$tmp/budget.out"; then
        fail "the cache holds \"$p\" for 01_naive, not the best printed" "$tmp/budget.out" \
            "$KLADDER_CACHE_DIR"/tuned-*.txt
    else
        ok "the best ($p) is cached with its provenance: $(grep -o 'date=[^ ]* version=[^ ]* budget_s=[^ ]* tried=[^ ]* space=[^ ]*' "$KLADDER_CACHE_DIR"/tuned-*.txt)"
    fi
    ;;
wrong)
    src=$3
    cp -r "$src" "$tmp/kernels"
    f=$tmp/kernels/opencl/gemm/10_tiled.cl
    sed -i 's/C\[r \* N + c\] = acc;/C[r * N + c] = acc + (TS == 4 ? (T)1 : (T)0);/' "$f"
    grep -q 'TS == 4' "$f" || { echo "FAIL: sed did not apply to $f"; exit 1; }
    run wrong tune gemm --size 64 --rung 10 --exhaustive --kernel-dir "$tmp/kernels"
    if [ "$rc" -ne 0 ] || ! grep -Eq '^kladder tune: rejected 10_tiled TS=4: .*differ from the reference' "$tmp/wrong.err"; then
        fail "tune with a kernel wrong at TS=4: exit $rc; expected \"rejected 10_tiled TS=4: ... differ from the reference\" on stderr" \
            "$tmp/wrong.out" "$tmp/wrong.err"
    else
        ok "$(grep 'rejected 10_tiled TS=4' "$tmp/wrong.err" | cut -c1-150)"
    fi
    if ! grep -Eq '^tried: +[0-9]+ candidates .*: [0-9]+ verified, 1 rejected' "$tmp/wrong.out" ||
        grep -Eq '^best: +TS=4 ' "$tmp/wrong.out" || grep -q 'best so far TS=4' "$tmp/wrong.err"; then
        fail "expected exactly one rejected candidate, and TS=4 never the best" "$tmp/wrong.out" "$tmp/wrong.err"
    else
        ok "$(grep '^tried:' "$tmp/wrong.out" | sed 's/  */ /g'); $(grep '^best:' "$tmp/wrong.out" | sed 's/  */ /g')"
    fi
    p=$(cached_params 10_tiled)
    if [ -z "$p" ] || [ "$p" = TS=4 ]; then
        fail "the cache holds \"$p\" for 10_tiled" "$KLADDER_CACHE_DIR"/tuned-*.txt
    else
        ok "cached $p, not the wrong TS=4"
    fi
    ;;
cache)
    # A quick tune of 10_tiled (seven candidates); which TS wins does not matter.
    run tune1 tune gemm --size 64 --rung 10 --budget 4s -q
    p=$(cached_params 10_tiled)
    files=$(ls "$KLADDER_CACHE_DIR" | grep -v '\.lock$')
    if [ "$rc" -ne 0 ] || [ -z "$p" ] || [ "$(wc -l <<<"$files")" -ne 1 ] ||
        [[ "$files" != tuned-*.txt ]] || ! grep -q "^saved: *$KLADDER_CACHE_DIR/$files" "$tmp/tune1.out"; then
        fail "tune 10_tiled: exit $rc; expected one tuned-*.txt with an entry, found \"$files\"" \
            "$tmp/tune1.out" "$tmp/tune1.err"
        exit 1
    fi
    cache=$KLADDER_CACHE_DIR/$files
    ok "tuned 10_tiled at 64³: $p in $files"
    cp "$cache" "$tmp/good.txt"

    run show tune --show
    if [ "$rc" -ne 0 ] || ! grep -Eq "^  10_tiled +float +2\^18 +64x64x64 +$p " "$tmp/show.out"; then
        fail "tune --show: exit $rc; expected a 10_tiled float 2^18 row with $p" "$tmp/show.out" "$tmp/show.err"
    else
        ok "tune --show: $(grep -E '^  10_tiled' "$tmp/show.out" | sed 's/  */ /g')"
    fi

    # gemm at the same size class picks them up and says so.
    run gemm1 gemm --size 64 --rung 01,10 "${q[@]}" --json "$tmp/gemm1.json"
    if [ "$rc" -ne 0 ] || ! grep -Eq "^10_tiled +tuned $p +verified" "$tmp/gemm1.out" ||
        ! grep -q "tuned parameters from $cache (size class 2^18): 10_tiled $p" "$tmp/gemm1.err" ||
        ! python3 - "$tmp/gemm1.json" "$p" <<'PY'; then
import json, sys
rows = {r["rung"]: r for r in json.load(open(sys.argv[1]))["results"]}
t = rows["10_tiled"]
assert t["config"] == "tuned " + sys.argv[2], t["config"]
assert ("-D" + sys.argv[2]) in t["build_options"].split(), t["build_options"]
assert rows["01_naive"]["config"] == "", rows["01_naive"]["config"]
PY
        fail "gemm at 64³: exit $rc; expected the 10_tiled row \"tuned $p\" (config and -D$p) and \"tuned parameters from $cache\"" \
            "$tmp/gemm1.out" "$tmp/gemm1.err"
    else
        ok "gemm at 64³ uses them: $(grep -E '^10_tiled' "$tmp/gemm1.out" | cut -c1-50 | sed 's/  */ /g'); $(cat "$tmp/gemm1.err")"
    fi
    # 60³ is the same class (2^17.7 rounds to 2^18); 128³ is not.
    run gemm60 gemm --size 60 --rung 10 "${q[@]}"
    run gemm128 gemm --size 128 --rung 10 "${q[@]}"
    if ! grep -Eq "^10_tiled +tuned $p +verified" "$tmp/gemm60.out" ||
        grep -q tuned "$tmp/gemm128.out" "$tmp/gemm128.err"; then
        fail "size classes: 60³ should use the 64³ entry, 128³ should not" "$tmp/gemm60.out" \
            "$tmp/gemm128.out" "$tmp/gemm128.err"
    else
        ok "60³ uses the 64³ entry (class 2^18); 128³ (2^21) runs the defaults"
    fi
    # An explicit --param wins; --no-tuned runs the defaults.
    run explicit gemm --size 64 --rung 10 --param TS=8 "${q[@]}" --format json
    run untuned gemm --size 64 --rung 10 --no-tuned "${q[@]}" --format json
    if [ "$rc" -ne 0 ] || grep -q tuned "$tmp/explicit.out" "$tmp/explicit.err" "$tmp/untuned.out" "$tmp/untuned.err" ||
        ! grep -q -- '-DTS=8"' "$tmp/explicit.out" || ! grep -q -- '-DTS=16"' "$tmp/untuned.out"; then
        fail "--param TS=8 and --no-tuned should not use the cache" "$tmp/explicit.out" "$tmp/explicit.err" \
            "$tmp/untuned.out" "$tmp/untuned.err"
    else
        ok "--param TS=8 wins over the cache; --no-tuned builds the default TS=16"
    fi

    # A corrupt cache: a warning, never a crash; gemm runs the defaults.
    sed -i 's/ gflops=\([0-9]\)/ gflops=9\1/' "$cache"
    run bad_gemm gemm --size 64 --rung 10 "${q[@]}"
    run bad_show tune --show
    if [ "$rc" -ne 0 ] || ! grep -q "warning: the tuning cache $cache is corrupt" "$tmp/bad_gemm.err" ||
        ! grep -Eq '^10_tiled +verified' "$tmp/bad_gemm.out" ||
        ! grep -q 'warning: .*corrupt' "$tmp/bad_show.err"; then
        fail "a corrupt cache: expected a warning and the defaults from gemm, a warning from --show" \
            "$tmp/bad_gemm.out" "$tmp/bad_gemm.err" "$tmp/bad_show.out" "$tmp/bad_show.err"
    else
        ok "corrupt cache: gemm warns \"$(grep -o 'is corrupt[^;]*' "$tmp/bad_gemm.err")\" and runs the defaults; --show warns"
    fi
    head -c 9 /dev/urandom >"$cache"
    run garbage tune gemm --size 64 --rung 10 --budget 1s -q
    run show2 tune --show
    if [ "$rc" -ne 0 ] || ! grep -q 'warning: the tuning cache .* is not a kladder tuning cache' "$tmp/garbage.err" ||
        ! grep -Eq '^  10_tiled +float' "$tmp/show2.out" || grep -q warning "$tmp/show2.err"; then
        fail "tune over a garbage cache: expected a warning, then a valid cache" "$tmp/garbage.out" \
            "$tmp/garbage.err" "$tmp/show2.out" "$tmp/show2.err"
    else
        ok "garbage cache: tune warns, replaces it, --show lists the new entry without a warning"
    fi

    # --clear for this device, then --clear --all for every device.
    cp "$tmp/good.txt" "$KLADDER_CACHE_DIR/tuned-0000000000000000.txt"
    run clear tune --clear
    run show3 tune --show --all
    if [ "$rc" -ne 0 ] || [ -e "$cache" ] || ! grep -q "^removed $cache" "$tmp/clear.out" ||
        ! grep -q 'tuned-0000000000000000.txt' "$tmp/show3.out"; then
        fail "tune --clear should remove only this device's file" "$tmp/clear.out" "$tmp/show3.out" "$tmp/show3.err"
    else
        ok "tune --clear removed this device's file; --show --all still lists the other"
    fi
    run clear_all tune --clear --all
    run show4 tune --show --all
    # (A lock file, tuned-*.txt.lock, stays: removing one another kladder may hold would let
    # two hold "the" lock.)
    if [ "$rc" -ne 0 ] || [ -n "$(ls "$KLADDER_CACHE_DIR" | grep -v '\.lock$')" ] ||
        ! grep -q '^no tuned parameters' "$tmp/show4.out"; then
        fail "tune --clear --all should leave no tuned-*.txt" "$tmp/clear_all.out" "$tmp/show4.out"
    else
        ok "tune --clear --all removed the rest; --show --all: $(cat "$tmp/show4.out")"
    fi
    ;;
types)
    for type in half int8; do
        run "tune_$type" tune gemm --size 48 --rung 10 --type "$type" --budget 4s -q
        p=$(cat "$KLADDER_CACHE_DIR"/tuned-*.txt 2>/dev/null |
            sed -n "s/^entry .* rung=10_tiled type=$type .* params=\([^ ]*\) .*/\1/p" | head -n 1)
        run "gemm_$type" gemm --size 48 --rung 10 --type "$type" "${q[@]}"
        if [ "$rc" -ne 0 ] || [ -z "$p" ] || ! grep -q '^tried: .* [1-9][0-9]* verified' "$tmp/tune_$type.out" ||
            ! grep -Eq "^10_tiled +tuned $p +verified" "$tmp/gemm_$type.out"; then
            fail "tune and gemm in $type: exit $rc; expected a verified search, a $type entry and a \"tuned $p\" row" \
                "$tmp/tune_$type.out" "$tmp/tune_$type.err" "$tmp/gemm_$type.out"
        else
            ok "$type: $(grep '^tried:' "$tmp/tune_$type.out" | sed 's/  */ /g'); gemm: tuned $p"
        fi
    done
    run gemm_float gemm --size 48 --rung 10 --type float "${q[@]}"
    if [ "$rc" -ne 0 ] || grep -q tuned "$tmp/gemm_float.out" "$tmp/gemm_float.err"; then
        fail "gemm in float took another type's tuned parameters (exit $rc)" "$tmp/gemm_float.out" "$tmp/gemm_float.err"
    else
        ok "float at 48³ runs untuned beside them"
    fi
    ;;
compare)
    facts=$("$kladder" devices 2>/dev/null | grep -A3 -E '^ *Device ' | head -n 4)
    nvidia=no
    grep -qi nvidia <<<"$facts" && nvidia=yes
    run cmp gemm --size 33 --rung 01 --compare openblas,cublas,clblast "${q[@]}" --json "$tmp/cmp.json"
    if [ "$rc" -ne 0 ]; then
        fail "gemm --compare openblas,cublas,clblast: exit $rc" "$tmp/cmp.out" "$tmp/cmp.err"
    fi
    python3 - "$tmp/cmp.json" "$nvidia" "${CI:-}" >"$tmp/cmp.check" <<'PY'
import json, sys
path, nvidia, ci = sys.argv[1:4]
run = json.load(open(path))
rows = {r["rung"]: r for r in run["results"]}
# cuBLAS runs beside the run's own device when that is NVIDIA's (`kladder devices`
# lists other devices first on machines with PoCL too).
if "nvidia" in json.dumps(run.get("device", {})).lower():
    nvidia = "yes"
bad = []
names = list(rows)
# cublas is two rows for float: SGEMM (fp32) and TF32 on the tensor cores.
if names != ["01_naive", "peer:openblas", "peer:cublas", "peer:cublas_tf32", "peer:clblast"]:
    bad.append(f"rows {names}")
want_prec = {"01_naive": "fp32", "peer:openblas": "fp32", "peer:cublas": "fp32",
             "peer:cublas_tf32": "tf32", "peer:clblast": "fp32"}
for name, p in want_prec.items():
    if rows.get(name, {}).get("precision") != p:
        bad.append(f"{name}: precision {rows.get(name, {}).get('precision')!r}, expected {p!r}")
for name, r in rows.items():
    # Every verified row measured its error, within its precision's bound; no other row has one.
    err, limit = r.get("error"), 2e-3 if r.get("precision") == "tf32" else 1e-5
    if (r.get("status") == "verified") != (isinstance(err, (int, float)) and 0 <= err < limit):
        bad.append(f"{name}: status {r.get('status')} with error {err!r}")
ob = rows.get("peer:openblas", {})
if ob.get("status") == "skipped" and "CBLAS" in ob.get("note", "") and ci != "true":
    print(f"SKIP: OpenBLAS is not installed: {ob['note']}")
    sys.exit(77)
if not (ob.get("status") == "verified" and ob.get("peer") is True and ob.get("on_host") is True
        and ob.get("median_s", 0) > 0 and "match the reference" in ob.get("note", "")
        and "sgemm" in ob.get("build_options", "")):
    bad.append(f"peer:openblas {ob}")
cb = rows.get("peer:cublas", {})
if cb.get("peer") is not True or (nvidia == "no" and not (cb.get("status") == "skipped" and "NVIDIA" in cb.get("note", ""))):
    bad.append(f"peer:cublas {cb}")
if cb.get("status") == "skipped" and not cb.get("note"):
    bad.append("peer:cublas skipped without a reason")
ct = rows.get("peer:cublas_tf32", {})
if ct.get("peer") is not True or ct.get("status") != cb.get("status") or (ct.get("status") == "skipped" and ct.get("note") != cb.get("note")):
    bad.append(f"peer:cublas_tf32 {ct} beside peer:cublas {cb.get('status')}")
cl = rows.get("peer:clblast", {})
if cl.get("status") not in ("verified", "skipped") or (cl.get("status") == "skipped" and not cl.get("note")):
    bad.append(f"peer:clblast {cl}")
for r in bad:
    print("FAIL:", r)
if not bad:
    print(f"ok: peer:openblas verified on the host ({ob['build_options']}, {ob['median_s']*1e3:.3f} ms); "
          f"peer:cublas {cb['status']}: {cb.get('note')}; peer:clblast {cl['status']}")
sys.exit(1 if bad else 0)
PY
    prc=$?
    cat "$tmp/cmp.check"
    [ "$prc" -eq 77 ] && exit 77
    [ "$prc" -ne 0 ] && fails=$((fails + 1))
    if ! grep -Eq '^peer:openblas +verified' "$tmp/cmp.out"; then
        fail "the table has no verified peer:openblas row" "$tmp/cmp.out"
    fi
    run cmpint gemm --size 9 --rung 01 --type int --compare openblas "${q[@]}"
    if [ "$rc" -ne 0 ] || ! grep -q 'peer:openblas skipped: vendor GEMMs are float and double only' "$tmp/cmpint.out"; then
        fail "--type int --compare openblas: exit $rc; expected a skipped row with the reason" "$tmp/cmpint.out" "$tmp/cmpint.err"
    else
        ok "int: $(grep 'peer:openblas skipped' "$tmp/cmpint.out")"
    fi
    run unknown gemm --size 9 --rung 01 --compare openblas,mkl "${q[@]}"
    if [ "$rc" -ne 2 ] || ! grep -q 'unknown peer "mkl" for gemm (cublas, cublas_tf32, cublaslt, cublaslt_fast, clblast or openblas)' "$tmp/unknown.err" ||
        grep -q 'verified' "$tmp/unknown.out"; then
        fail "--compare mkl: exit $rc; expected exit 2, \"unknown peer\", and nothing run" "$tmp/unknown.out" "$tmp/unknown.err"
    else
        ok "--compare mkl: exit 2, $(cat "$tmp/unknown.err")"
    fi
    ;;
*)
    echo "usage: check_tune.sh KLADDER budget|wrong KERNELS|cache|types|compare"
    exit 2
    ;;
esac
exit $((fails > 0))
