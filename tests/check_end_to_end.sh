#!/usr/bin/env bash
# End-to-end assertions where a unit test stood alone: each runs the command
# line whole, on the default device, at small awkward sizes.
# usage: check_end_to_end.sh KLADDER counts
#          for every workload, the JSON's flops_per_launch and bytes_per_launch
#          equal the workload's formula (written here, independently of the
#          code); every timed row's GFLOP/s and GB/s are its FLOPs and bytes
#          over its median, its speed-up the first device rung's median over
#          its own; its median_s is the median of its samples, its min_s and
#          max_s their extremes, and it has at least the launches the protocol
#          asks for; and --min-time keeps launching past --repeats
#        check_end_to_end.sh KLADDER lazy
#          for every workload, a user kernel that writes nothing and one that
#          writes every other element, run after the built-in rungs (whose
#          correct result is in the shared output buffer unless kladder
#          poisons it between rungs): each fails verification, exit 1, and the
#          built-in rows stay verified
#        check_end_to_end.sh KLADDER args
#          user kernels with a __local (the output) or a __constant (an input)
#          buffer argument where the workload passes a global one are refused
#          with exit 2 and a sentence naming the argument, before any rung runs
#        check_end_to_end.sh KLADDER tolerance
#          a user GEMM kernel whose every element is off by half the stated
#          float tolerance is verified; by 1.5 times, it fails (exit 1)
#        check_end_to_end.sh KLADDER strings
#          a user rung's summary with quotes, a backslash, & and < comes back
#          intact from the JSON and the CSV, and the HTML report escapes it and
#          stays well-formed XML
# One "ok" line per check; FAIL lines and exit 1 on any failure.
set -u
kladder=$1
mode=$2
. "$(dirname "$0")/lib.sh" # $tmp, ok, fail
export KLADDER_CACHE_DIR=$tmp/cache
workloads="gemm copy rowdot gemv blur"
. "$(dirname "$0")/sizes.sh" # $sizes: a small, awkward size per workload

case $mode in
counts)
    for w in $workloads; do
        # Three timed launches, so a median taken as the minimum shows.
        # shellcheck disable=SC2086
        "$kladder" $w ${sizes[$w]} --warmup 1 --repeats 3 --min-time 0 --format json \
            >"$tmp/$w.json" 2>"$tmp/$w.err"
        rc=$?
        if [ "$rc" -ne 0 ]; then
            fail "$w: exit $rc" "$tmp/$w.err"
            continue
        fi
        if out=$(python3 - "$w" "$tmp/$w.json" <<'PY'
import json, math, statistics, sys
w, d = sys.argv[1], json.load(open(sys.argv[2]))
p = d["params"]
es = {"float": 4, "double": 8, "int": 4}.get(p.get("type", "float"), 4)
if w == "gemm":
    M, N, K = p["M"], p["N"], p["K"]
    flops, nbytes = 2.0 * M * N * K, (M * K + K * N + M * N) * es
elif w == "copy":
    flops, nbytes = 0.0, 2 * 4 * p["N"]  # every word read once and written once
elif w == "rowdot":
    Y, D = p["Y"], p["D"]
    flops, nbytes = 3.0 * Y * D, (2 * Y * D + D + Y) * es  # v·M1·M2 summed: 3 per term
elif w == "gemv":
    M, N = p["M"], p["N"]
    flops, nbytes = 2.0 * M * N, (M * N + N + 2 * M) * es  # y read and written
else:  # blur: two separable passes of 2R+1 multiply-adds per channel; pixels of 4 bytes
    n, R, ch = p["width"] * p["height"], p["radius"], 1 if p["pixel"] == "float" else 4
    flops, nbytes = 4.0 * (2 * R + 1) * ch * n, 2 * 4 * n
bad = []
def close(a, b):
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1e-30)
if not close(d["flops_per_launch"], flops):
    bad.append("flops_per_launch %g, the formula %g" % (d["flops_per_launch"], flops))
if not close(d["bytes_per_launch"], nbytes):
    bad.append("bytes_per_launch %g, the formula %g" % (d["bytes_per_launch"], nbytes))
timed = 0
for r in d["results"]:
    if r["status"] != "verified" or r.get("median_s") is None:
        continue
    timed += 1
    s, med = r.get("samples") or [], r["median_s"]
    name = r["rung"]
    if r.get("repeats", 0) < d["protocol"]["min_repeats"] or len(s) != r.get("repeats"):
        bad.append("%s: %s launches, %d samples; the protocol asks for %d" % (name, r.get("repeats"), len(s), d["protocol"]["min_repeats"]))
    # samples carry 6 significant digits, the statistics 9
    near = lambda a, b: abs(a - b) <= 1e-5 * max(abs(a), abs(b))
    if s and not (near(med, statistics.median(s)) and near(r["min_s"], min(s)) and near(r["max_s"], max(s))):
        bad.append("%s: median/min/max %g/%g/%g, its samples' %g/%g/%g" % (name, med, r["min_s"], r["max_s"], statistics.median(s), min(s), max(s)))
    if r["flops"] > 0 and not close(r["gflops"], r["flops"] / med * 1e-9):
        bad.append("%s: %g GFLOP/s, its FLOPs over its median %g" % (name, r["gflops"], r["flops"] / med * 1e-9))
    if r["bytes"] > 0 and not close(r["gbps"], r["bytes"] / med * 1e-9):
        bad.append("%s: %g GB/s, its bytes over its median %g" % (name, r["gbps"], r["bytes"] / med * 1e-9))
    if r["flops"] > 0 and not close(r["flops"], flops) and w != "copy":
        bad.append("%s: %g FLOPs a launch, the workload's %g" % (name, r["flops"], flops))
    ref = next((x for x in d["results"] if x.get("speedup_first") == 1), None)
    if ref and r.get("speedup_first") is not None and not close(r["speedup_first"], ref["median_s"] / med):
        bad.append("%s: x first %g, the first device rung's median over its own %g" % (name, r["speedup_first"], ref["median_s"] / med))
if not timed:
    bad.append("no timed row")
print("; ".join(bad) if bad else "%d timed rows" % timed)
sys.exit(1 if bad else 0)
PY
        ); then
            ok "$w: FLOPs and bytes match the formula; rates, medians, speed-ups and launches agree ($out)"
        else
            fail "$w: $out"
        fi
    done
    # --min-time: launches go on until their kernel time reaches it, past --repeats.
    "$kladder" gemm --size 16 --rung 01 --warmup 0 --repeats 1 --min-time 0.05 --format json \
        >"$tmp/mt.json" 2>"$tmp/mt.err"
    if python3 -c 'import json, sys
r = [x for x in json.load(open(sys.argv[1]))["results"] if x["rung"] == "01_naive"][0]
sys.exit(not (r["repeats"] > 1 and sum(r["samples"]) >= 0.05 * 0.999))' "$tmp/mt.json"; then
        ok "--min-time 0.05 with --repeats 1: launches went on until 0.05 s of kernel time"
    else
        fail "--min-time 0.05: fewer launches than the minimum time asks for" "$tmp/mt.json" "$tmp/mt.err"
    fi
    ;;
lazy)
    for w in $workloads; do
        "$kladder" template "$w" >"$tmp/t.cl" 2>/dev/null
        # The template's one store of the output, and the index it is written at.
        case $w in
        gemm) store='C\[(size_t)row \* N + col\] = acc;' idx='(row + col)' ;;
        copy) store='dst\[i\] = src\[i\];' idx='i' ;;
        rowdot) store='r\[y\] = f \* sum;' idx='y' ;;
        gemv) store='y\[i\] = beta' idx='i' ;;
        blur) store='dst\[(size_t)y \* W + x\] = PIX_OUT(acc);' idx='(x + y)' ;;
        esac
        sed "s/^\( *\)\($store\)/\1if (0) \2/" "$tmp/t.cl" >"$tmp/nothing.cl"
        sed "s/^\( *\)\($store\)/\1if ($idx % 2 == 0) \2/" "$tmp/t.cl" >"$tmp/half.cl"
        if ! grep -q 'if (0) ' "$tmp/nothing.cl" || ! grep -q '% 2 == 0) ' "$tmp/half.cl"; then
            fail "$w: the template's store was not found: sed did not apply" "$tmp/t.cl"
            continue
        fi
        for lazy in nothing half; do
            # shellcheck disable=SC2086
            "$kladder" $w ${sizes[$w]} --warmup 0 --repeats 1 --min-time 0 --format csv \
                --kernel "$tmp/$lazy.cl" >"$tmp/out" 2>"$tmp/err"
            rc=$?
            row=$(grep ",$lazy," "$tmp/out")
            others=$(grep -v ",$lazy," "$tmp/out" | grep -c ',verified,')
            wrong=$(grep -v ",$lazy," "$tmp/out" | grep -c ',failed,')
            if [ "$rc" -eq 1 ] && [[ "$row" == *",failed,"* ]] && [ "$others" -gt 0 ] && [ "$wrong" -eq 0 ]; then
                ok "$w: a kernel that writes $( [ $lazy = nothing ] && echo nothing || echo 'every other element') after $others verified rungs fails, exit 1"
            else
                fail "$w: the $lazy kernel after the built-in rungs: exit $rc (want 1), its row \"${row:0:160}\", $others built-in rows verified, $wrong failed" "$tmp/out" "$tmp/err"
            fi
        done
    done
    ;;
args)
    "$kladder" template rowdot >"$tmp/t.cl" 2>/dev/null
    # r (argument 4, the output) in local memory; v (argument 1, an input) in constant memory.
    for space in __local __constant; do
        if [ $space = __local ]; then
            arg=4
            sed "s/__global T \*r,/$space T *r,/" "$tmp/t.cl" >"$tmp/$space.cl"
        else
            arg=1
            sed "s/const __global T \*v,/$space T *v,/" "$tmp/t.cl" >"$tmp/$space.cl"
        fi
        grep -q "$space T \*[rv]," "$tmp/$space.cl" || { fail "sed did not apply ($space)" "$tmp/t.cl"; continue; }
        "$kladder" rowdot --rows 37 --d 11 --warmup 0 --repeats 1 --min-time 0 \
            --kernel "$tmp/$space.cl" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        if [ "$rc" -eq 2 ] && grep -Eq "argument $arg of kernel rowdot is .*(\(not global\)|in constant memory)" "$tmp/err" &&
            ! grep -q verified "$tmp/out"; then
            ok "a $space buffer argument is refused before anything runs: $(head -c 150 "$tmp/err")"
        else
            fail "a $space buffer argument: exit $rc (want 2 and a sentence naming argument $arg, nothing run)" "$tmp/err" "$tmp/out"
        fi
    done
    ;;
tolerance)
    # A user GEMM kernel off by ERR/4 of the stated float tolerance, 4u·√K·Σ|a·b| (u = 2^-24),
    # in every element: at ERR=2 (half the tolerance) it must pass, at ERR=6 (1.5 times) fail.
    "$kladder" template gemm >"$tmp/t.cl" 2>/dev/null
    python3 - "$tmp/t.cl" <<'PY' || fail "could not write the perturbed kernel"
import sys
path = sys.argv[1]
text = open(path).read()
text = text.replace(" * kladder: param TY", " * kladder: param ERR 2 1..8 -- the error, in quarters of the tolerance\n * kladder: param TY", 1)
text = text.replace("    T acc = 0;\n", "    T acc = 0, mag = 0;\n", 1)
text = text.replace("        acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];",
                    "    {\n        const T p = A[(size_t)row * K + k] * B[(size_t)k * N + col];\n"
                    "        acc += p;\n        mag += fabs(p);\n    }", 1)
text = text.replace("    C[(size_t)row * N + col] = acc;",
                    "    C[(size_t)row * N + col] = acc + ERR * 0x1p-24f * sqrt((float)K) * mag;", 1)
open(path, "w").write(text)
sys.exit(text.count("mag") != 3)
PY
    for f in 2 6; do
        "$kladder" gemm --m 16 --n 16 --k 64 --rung t --kernel "$tmp/t.cl" --param ERR=$f --warmup 0 \
            --repeats 1 --min-time 0 --format csv >"$tmp/tol.csv" 2>"$tmp/err"
        rc=$?
        want=$([ $f = 2 ] && echo "0 verified" || echo "1 failed")
        got="$rc $(python3 -c 'import csv, sys
print(*[r["status"] for r in csv.DictReader(open(sys.argv[1])) if r["rung"] == "t"])' "$tmp/tol.csv")"
        if [ "$got" = "$want" ]; then
            ok "tolerance: a result off by $f/4 of the stated tolerance is ${want#* } (exit $rc)"
        else
            fail "tolerance: a result off by $f/4 of the stated tolerance: \"$got\", expected \"$want\"" "$tmp/tol.csv" "$tmp/err"
        fi
    done
    ;;
strings)
    # A user rung whose summary holds every character a writer must escape.
    summary='a "quoted" back\slash & <tag> it'"'"'s'
    "$kladder" template gemm >"$tmp/t.cl" 2>/dev/null
    python3 - "$tmp/t.cl" "$summary" <<'PY' || fail "could not set the template's summary"
import re, sys
path, summary = sys.argv[1], sys.argv[2]
text, n = re.subn(r"kladder: summary .*", "kladder: summary " + summary.replace("\\", "\\\\"), open(path).read())
open(path, "w").write(text)
sys.exit(n != 1)
PY
    "$kladder" gemm --size 16 --rung t --kernel "$tmp/t.cl" --warmup 0 --repeats 1 --min-time 0 \
        --json "$tmp/s.json" --format csv >"$tmp/s.csv" 2>"$tmp/err"
    rc=$?
    "$kladder" report "$tmp/s.json" -o "$tmp/s.html" >/dev/null 2>>"$tmp/err"
    if [ "$rc" -ne 0 ]; then
        fail "strings: the run failed (exit $rc)" "$tmp/err"
    elif python3 - "$tmp/s.json" "$summary" "$tmp/s.csv" <<'PY'; then
import csv, json, sys
rows = [r for r in json.load(open(sys.argv[1]))["results"] if r["rung"] == "t"]
crows = [r for r in csv.DictReader(open(sys.argv[3])) if r["rung"] == "t"]
sys.exit(not (rows and rows[0]["summary"] == sys.argv[2] and crows and crows[0]["status"] == "verified"))
PY
        ok "strings: quotes, a backslash, & and < in a summary survive the JSON and the CSV"
    else
        fail "strings: the summary did not come back intact from the JSON" "$tmp/s.json"
    fi
    if [ -s "$tmp/s.html" ] && python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$tmp/s.html" 2>"$tmp/xml.err" &&
        grep -q 'back\\slash &amp; &lt;tag&gt;' "$tmp/s.html" && ! grep -q '<tag>' "$tmp/s.html"; then
        ok "strings: the HTML report escapes them and stays well-formed XML"
    else
        fail "strings: the HTML report does not escape the summary, or is not well-formed" "$tmp/xml.err" "$tmp/err"
    fi
    ;;
*)
    echo "usage: check_end_to_end.sh KLADDER counts|lazy|args|tolerance|strings" >&2
    exit 2
    ;;
esac
[ "$fails" -eq 0 ] || exit 1
