#!/usr/bin/env bash
# The ceiling cache of `kladder peak`, in a private directory
# (KLADDER_CACHE_DIR): without one, gemm says "none measured"; a full peak
# writes exactly one file; the next peak prints it at once; gemm then reports
# "% roof" against it; a truncated, garbage or empty cache file is ignored with
# a warning and remeasured (never a crash), after which the file is valid
# again; so is one with a figure changed under its checksum, or (re-signed)
# another format version or another device's identity; --refresh remeasures even when the cache is valid.
# usage: check_cache.sh KLADDER
set -u
kladder=$1
. "$(dirname "$0")/lib.sh" # $tmp, ok, fail
export KLADDER_CACHE_DIR=$tmp/cache # made by kladder itself
q=(--warmup 0 --repeats 1 --min-time 0)
# The smallest full measurement that writes the cache (~10 s on PoCL).
measure=(peak --bytes 65536 --vec 4 "${q[@]}")

# run NAME ARGS...: kladder ARGS with stdout in $tmp/NAME.out, stderr in
# $tmp/NAME.err, exit code in $rc and seconds taken in $secs.
run() {
    local name=$1 t0
    shift
    t0=$(date +%s%N)
    "$kladder" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    secs=$((ms / 1000)).$(printf '%03d' $((ms % 1000)))
    cmd="kladder $*"
}
# crashed NAME WHAT: reports (once) a run that died of a signal.
crashed() {
    [ "$rc" -gt 128 ] || return 1
    fail "$2: \`$cmd\` crashed (exit $rc, signal $((rc - 128)))" "$tmp/$1.out" "$tmp/$1.err"
}
cache_files() { ls -A "$KLADDER_CACHE_DIR" 2>/dev/null; }
# roof FILE RUNG: the "% roof" cell of RUNG's row in a table (the column is
# right-aligned under its header).
roof() {
    python3 - "$1" "$2" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
head = next((l for l in lines if "% roof" in l and l.startswith("rung ")), None)
row = next((l for l in lines if l.startswith(sys.argv[2] + " ")), None)
if head and row:
    end = head.index("% roof") + len("% roof")
    print(row[:end].split()[-1])
PY
}
# The cached ceilings, printed (not measured): exit 0, "cached in", no warning.
expect_cached() {
    run "$1" peak
    if [ "$rc" -ne 0 ] || ! grep -q "cached in $cache" "$tmp/$1.out" || [ -s "$tmp/$1.err" ] ||
        grep -q verified "$tmp/$1.out"; then
        fail "$2: exit $rc; expected the cached ceilings (\"cached in $cache\") and no warning" \
            "$tmp/$1.out" "$tmp/$1.err"
        return 1
    fi
    ok "$2: \`kladder peak\` prints the cache (${secs}s)"
}
# A row that failed or was skipped, other than empty_kernel on CUDA (whose
# events time a launch whole; the row says so), a tensor-core row on a device
# without them, fma_f16x2 where kladder issues no packed halves, a cache level
# or latency the sweep did not reach, and a chase point whose timings noise
# reversed (their notes say so).
not_measured() {
    grep -E ' (failed|skipped) ' "$1" |
        grep -Ev '^(empty_kernel|mma_[a-z0-9]+|wgmma_[a-z0-9]+|fma_f16x2|l[12]_bw|l[12]_latency|mem_latency|chase) .*skipped' | grep -q . ||
        { grep -Eq '^empty_kernel .*skipped' "$1" && ! grep -q '(CUDA;' "$1"; } ||
        { grep -Eq '^w?mma_[a-z0-9]+ .*skipped' "$1" &&
            grep -E '^w?mma_[a-z0-9]+ skipped: ' "$1" | grep -vq ' tensor cores'; } ||
        { grep -Eq '^fma_f16x2 .*skipped' "$1" && ! grep -q '^fma_f16x2 skipped: no packed-half arithmetic' "$1"; }
}
# A measured peak: exit 0, every row verified, and one valid cache file after it.
expect_measured() {
    local name=$1 what=$2
    if [ "$rc" -ne 0 ] || ! grep -Eq '^copy_v4 +uint4 .* verified' "$tmp/$name.out" ||
        not_measured "$tmp/$name.out"; then
        fail "$what: exit $rc; expected a measured table, every row verified" "$tmp/$name.out" "$tmp/$name.err"
        return 1
    fi
    if [ "$(cache_files)" != "${cache##*/}" ]; then
        fail "$what: the cache directory holds \"$(cache_files | tr '\n' ' ')\", expected only ${cache##*/}"
        return 1
    fi
    ok "$what: measured, every row verified, cache rewritten (${secs}s)"
}

# (a) No cache yet: gemm and copy say so.
run gemm0 gemm --size 16 --rung 01 "${q[@]}" --json "$tmp/gemm0.json"
if [ "$rc" -ne 0 ] || ! grep -Eq '^ceilings: +none measured' "$tmp/gemm0.out" ||
    ! grep -Eq '^01_naive +verified' "$tmp/gemm0.out" || [ "$(roof "$tmp/gemm0.out" 01_naive)" != - ]; then
    fail "(a) gemm without a cache: exit $rc; expected \"ceilings: none measured\" and no % roof" \
        "$tmp/gemm0.out" "$tmp/gemm0.err"
else
    ok "(a) gemm without a cache says \"none measured\" and shows no % roof"
fi
run copy0 copy --n 64 --rung ilp1 "${q[@]}"
if [ "$rc" -ne 0 ] || ! grep -Eq '^ceilings: +none measured' "$tmp/copy0.out"; then
    fail "(a) copy without a cache: exit $rc; expected \"ceilings: none measured\"" "$tmp/copy0.out" "$tmp/copy0.err"
else
    ok "(a) copy without a cache says \"none measured\""
fi

# (b) A full peak writes exactly one ceilings-*.txt, and says where; each figure is the
# fastest of its three final runs, whose rates its note lists.
run peak1 "${measure[@]}" --json "$tmp/peak1.json"
measure_ms=$ms
files=$(cache_files)
cache=$KLADDER_CACHE_DIR/$files
if [ "$rc" -ne 0 ] || [ "$(wc -l <<<"$files")" -ne 1 ] || [[ "$files" != ceilings-*.txt ]] || [ ! -s "$cache" ]; then
    fail "(b) peak: exit $rc; expected one non-empty ceilings-*.txt in the cache, found \"$files\"" \
        "$tmp/peak1.out" "$tmp/peak1.err"
    echo "(the rest needs a cache file: stopping)"
    exit 1
fi
if ! grep -q "cached in $cache" "$tmp/peak1.out" || not_measured "$tmp/peak1.out"; then
    fail "(b) the measuring peak should be all verified and say \"cached in $cache\"" "$tmp/peak1.out"
else
    ok "(b) peak measured (${secs}s) and wrote exactly one cache file, $files"
fi
cp "$cache" "$tmp/good.txt"
if python3 - "$tmp/peak1.json" <<'PY'; then
import json, re, sys
rows = [r for r in json.load(open(sys.argv[1]))["results"] if r["status"] == "verified"]
finals = 0
for r in rows:
    m = re.search(r"the fastest of 3 runs \(([^)]*) (GFLOP/s|GB/s)\)", r["note"])
    if not m:
        continue
    finals += 1
    rates = [float(x) for x in m.group(1).split(", ")]
    rate = r["gflops"] if m.group(2) == "GFLOP/s" else r["gbps"]
    if len(rates) != 3 or abs(rate - max(rates)) > 1e-5 * max(rates):
        print("  %s: %g %s, its runs' %s" % (r["rung"], rate, m.group(2), rates))
        sys.exit(1)
sys.exit(0 if finals >= 6 else 1)  # memory, FMA and local memory at least
PY
    ok "(b) every figure's row is the fastest of its three final runs"
else
    fail "(b) a figure's row is not the fastest of the three runs its note lists" "$tmp/peak1.json"
fi
# The device's run-to-run spread of memory and FMA rows: the largest (fastest - slowest) /
# median of the final runs of those figures, in the cache and the JSON (compare's one-run rule).
if python3 - "$tmp/peak1.json" "$cache" <<'PY'; then
import json, re, statistics, sys
run = json.load(open(sys.argv[1]))
cache = dict(l.split(" ", 1) for l in open(sys.argv[2]).read().splitlines() if " " in l)
want = {"spread_memory_pct": 0.0, "spread_fma_pct": 0.0}
for r in run["results"]:
    m = re.search(r"the fastest of 3 runs \(([^)]*) (GFLOP/s|GB/s)\)", r["note"])
    if not m or r["status"] != "verified":
        continue
    rates = [float(x) for x in m.group(1).split(", ")]
    pct = 100 * (max(rates) - min(rates)) / statistics.median(rates)
    key = "spread_fma_pct" if r["rung"].startswith("fma_") else \
        "spread_memory_pct" if re.fullmatch(r"(copy|read|write)(_v\d+)?", r["rung"]) else None
    if key:
        want[key] = max(want[key], pct)
for k, v in want.items():
    got = run["ceiling_values"][k]
    if not (got and abs(got - v) <= 1e-3 * v + 0.02 and abs(float(cache[k]) - got) < 1e-9 * got + 1e-6):
        print("  %s: JSON %s, cache %s, from the notes %.4g" % (k, got, cache.get(k), v))
        sys.exit(1)
print("  spreads: memory %.3g %%, FMA %.3g %%" % (want["spread_memory_pct"], want["spread_fma_pct"]))
PY
    ok "(b) the run-to-run spreads of memory and FMA rows, from their final runs, cached"
else
    fail "(b) the run-to-run spreads are not the final runs' spreads" "$tmp/peak1.json"
fi

# (c) The next peak prints the cache at once, as text and as JSON.
expect_cached peak2 "(c) second run"
# (Opening the device alone can take seconds where many tests share it: the bound is a
# quarter of the measuring run's time, and 3 s at least.)
if [ "$ms" -gt 3000 ] && [ "$ms" -gt $((measure_ms / 4)) ]; then
    fail "(c) printing the cache took ${secs}s; it should not measure anything"
fi
run peak2j peak --format json --output "$tmp/peak2j.json"
if [ "$rc" -ne 0 ] || ! python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["cached"] is True and r["workload"] == "peak", r
for k in ("copy_gbps", "read_gbps", "write_gbps", "f32_gflops", "i32_giops"):
    assert r[k] > 0, k' "$tmp/peak2j.json"; then
    fail "(c) peak --format json --output F with a cache: exit $rc; expected F to hold {\"cached\": true, ...} with ceilings > 0" \
        "$tmp/peak2j.json" "$tmp/peak2j.out" "$tmp/peak2j.err"
else
    ok "(c) peak --format json --output F writes the cache as JSON with \"cached\": true"
fi

# (d) gemm reports against the cache: the copy ceiling, and under % roof its rate over the
# roofline (the lower of the FP32 peak and the intensity times the copy bandwidth).
run gemm1 gemm --size 16 --rung 01 "${q[@]}" --json "$tmp/gemm1.json"
if [ "$rc" -ne 0 ] || ! grep -Eq '^ceilings:  copy [0-9.]+ [GT]B/s' "$tmp/gemm1.out" ||
    ! grep -Eq '^01_naive +verified' "$tmp/gemm1.out" ||
    ! grep -Eq '^[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?$' <<<"$(roof "$tmp/gemm1.out" 01_naive)" ||
    ! python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
x, c = d["results"][0], d["ceiling_values"]
assert isinstance(x["pct_ceiling"], (int, float)) and x["pct_ceiling"] > 0, x["pct_ceiling"]
# The roofline: the lower of the FP32 peak and the arithmetic intensity times the copy bandwidth.
roof = min(c["f32_gflops"], d["flops_per_launch"] / d["bytes_per_launch"] * c["copy_gbps"])
want = 100 * x["gflops"] / roof
assert abs(x["pct_ceiling"] - want) <= 1e-4 * want, (x["pct_ceiling"], want)' "$tmp/gemm1.json"; then
    fail "(d) gemm with a cache: exit $rc; expected \"ceilings:  copy ... GB/s\" and a numeric % roof" \
        "$tmp/gemm1.out" "$tmp/gemm1.err"
else
    ok "(d) gemm shows \"$(grep -o '^ceilings:  copy [0-9.]* [GT]B/s' "$tmp/gemm1.out")\" and % roof $(roof "$tmp/gemm1.out" 01_naive)"
fi

# (e, f, g) A damaged cache: gemm and copy warn and carry on without it; peak
# warns "corrupt or incomplete", measures again and leaves a valid cache.
damage() {
    case $1 in
    truncated) head -c 100 "$tmp/good.txt" >"$cache" ;;
    garbage) head -c 700 /dev/urandom >"$cache" ;;
    empty) : >"$cache" ;;
    esac
}
for kind in truncated garbage empty; do
    tag="($( case $kind in truncated) echo e ;; garbage) echo f ;; empty) echo g ;; esac)) $kind cache"
    damage $kind
    run gemm_$kind gemm --size 16 --rung 01 "${q[@]}"
    if crashed gemm_$kind "$tag"; then
        :
    elif [ "$rc" -ne 0 ] || ! grep -q 'corrupt or incomplete' "$tmp/gemm_$kind.out" "$tmp/gemm_$kind.err" ||
        ! grep -Eq '^01_naive +verified' "$tmp/gemm_$kind.out"; then
        fail "$tag: gemm exit $rc; expected a \"corrupt or incomplete\" warning and a verified run" \
            "$tmp/gemm_$kind.out" "$tmp/gemm_$kind.err"
    else
        ok "$tag: gemm warns \"corrupt or incomplete\" and runs"
    fi
    damage $kind
    run copy_$kind copy --n 64 --rung ilp1 "${q[@]}"
    if crashed copy_$kind "$tag"; then
        :
    elif [ "$rc" -ne 0 ] || ! grep -q 'corrupt or incomplete' "$tmp/copy_$kind.out" "$tmp/copy_$kind.err"; then
        fail "$tag: copy exit $rc; expected a \"corrupt or incomplete\" warning and a verified run" \
            "$tmp/copy_$kind.out" "$tmp/copy_$kind.err"
    else
        ok "$tag: copy warns \"corrupt or incomplete\" and runs"
    fi
    damage $kind
    run peak_$kind "${measure[@]}"
    if crashed peak_$kind "$tag"; then
        cp "$tmp/good.txt" "$cache"
        continue
    elif ! grep -q 'warning: .*corrupt or incomplete' "$tmp/peak_$kind.err"; then
        fail "$tag: peak exit $rc; expected \"kladder: warning: ... corrupt or incomplete\" on stderr" \
            "$tmp/peak_$kind.out" "$tmp/peak_$kind.err"
    else
        ok "$tag: peak warns \"$(grep -o 'corrupt or incomplete[^;]*' "$tmp/peak_$kind.err")\""
    fi
    expect_measured peak_$kind "$tag: peak" && expect_cached peak_${kind}_after "$tag, then"
    cp "$tmp/good.txt" "$cache" # a known-good cache for what follows, whatever happened
done

# (e2) A cache of another format version (an older kladder's) is named as such, not as
# damage, and the run carries on without it.
sed '1s/.*/kladder-ceilings 1/' "$tmp/good.txt" >"$cache"
run gemm_old gemm --size 16 --rung 01 "${q[@]}"
if crashed gemm_old "(e2) older cache"; then
    :
elif [ "$rc" -ne 0 ] || ! grep -q 'of another version of kladder' "$tmp/gemm_old.out" "$tmp/gemm_old.err"; then
    fail "(e2) older cache: gemm exit $rc; expected \"of another version of kladder\"" \
        "$tmp/gemm_old.out" "$tmp/gemm_old.err"
else
    ok "(e2) a cache of another version: gemm says so and runs"
fi
cp "$tmp/good.txt" "$cache"

# (e3, e4, e5) Files whose damage only the checks inside them catch: a figure changed under
# the old checksum; and, re-signed with a valid checksum, another format version and another
# device's identity. gemm names each and runs without the cache.
resign() { # resign SED-EXPRESSION: the good file edited, its checksum recomputed
    sed "$1" "$tmp/good.txt" | python3 -c '
import sys
text = sys.stdin.read()
body = text[:text.index("\nchecksum ") + 1]
h = 0xcbf29ce484222325
for b in body.encode():
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
sys.stdout.write(body + "checksum %016x\n" % h)' >"$cache" && [ -s "$cache" ] ||
        fail "(e3-5) could not re-sign the cache file with \"$1\""
}
# The control: re-signed unchanged, the file is taken as it is (so the re-signing is right,
# and e4 and e5 fail on the version and the identity alone).
resign 's/^//'
run gemm_resigned gemm --size 16 --rung 01 "${q[@]}"
if [ "$rc" -ne 0 ] || grep -q 'corrupt\|another version' "$tmp/gemm_resigned.out" "$tmp/gemm_resigned.err" ||
    [ "$(roof "$tmp/gemm_resigned.out" 01_naive)" = - ]; then
    fail "(e3-5) the good cache re-signed unchanged was not taken as valid" "$tmp/gemm_resigned.out" "$cache"
else
    ok "(e3-5) the good cache re-signed unchanged is taken as it is (% roof $(roof "$tmp/gemm_resigned.out" 01_naive))"
fi
for kind in figure version identity; do
    case $kind in
    figure) sed 's/^copy_gbps /copy_gbps 1/' "$tmp/good.txt" >"$cache" # 23.4 -> 123.4
        want='corrupt or incomplete' ;;
    version) resign '1s/.*/kladder-ceilings 3/'; want='of another version of kladder' ;;
    identity) resign 's/^identity .*/identity opencl|another platform|another device|9.9/'
        want='corrupt or incomplete' ;;
    esac
    run gemm_$kind gemm --size 16 --rung 01 "${q[@]}"
    if crashed gemm_$kind "(e3-5) $kind"; then
        :
    elif [ "$rc" -ne 0 ] || ! grep -q "$want" "$tmp/gemm_$kind.out" "$tmp/gemm_$kind.err" ||
        [ "$(roof "$tmp/gemm_$kind.out" 01_naive)" != - ]; then
        fail "(e3-5) a cache with another $kind: gemm exit $rc; expected \"$want\" and no % roof" \
            "$tmp/gemm_$kind.out" "$tmp/gemm_$kind.err" "$cache"
    else
        ok "(e3-5) a cache with another $kind: gemm says \"$want\", uses no roof and runs"
    fi
    cp "$tmp/good.txt" "$cache"
done

# (h) --refresh measures again although the cache is valid, and rewrites it.
date0=$(grep '^date ' "$cache")
run refresh "${measure[@]}" --refresh
if grep -q 'corrupt\|warning' "$tmp/refresh.err"; then
    fail "(h) peak --refresh warned about a valid cache" "$tmp/refresh.err"
fi
if expect_measured refresh "(h) peak --refresh"; then
    if cmp -s "$cache" "$tmp/good.txt"; then
        fail "(h) peak --refresh left the cache file as it was (${date0:-no date line})"
    else
        ok "(h) peak --refresh rewrote the cache file"
    fi
    expect_cached refresh_after "(h) after --refresh"
fi
exit $((fails > 0))
