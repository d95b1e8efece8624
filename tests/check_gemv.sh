#!/usr/bin/env bash
# `kladder gemv` (issue 4): every rung of both layouts verified at awkward
# shapes, with default and with small parameters, in one element type; the
# peers of --compare (CLBlast verified in both layouts, cuBLAS skipped with a
# reason away from NVIDIA); the refusal of a matrix larger than the device's
# largest allocation.
# usage: check_gemv.sh KLADDER float|double
#        check_gemv.sh KLADDER compare
#        check_gemv.sh KLADDER too_big
# One "ok" line per run; FAIL lines and exit 1 on any failure; exit 77 (skip)
# for double on a device without fp64, for compare without CLBlast (unless
# CI=true: CI installs it), and for too_big where no matrix within the
# 2^31-element limit exceeds the largest allocation.
set -u
kladder=$1
mode=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KLADDER_CACHE_DIR=$tmp/cache # no ceilings: the report must not depend on a user's cache
q=(--warmup 0 --repeats 1 --min-time 0)
fails=0

# The default device's section of `kladder devices`, one fact per line.
source "$(dirname "$0")/device_facts.sh"
device_facts "$kladder"
if [ -z "$facts" ]; then
    echo "FAIL: could not read the default device from \`kladder devices\`"
    exit 1
fi
fp64=$(fact 'Double precision (fp64)')

if [ "$mode" = too_big ]; then
    # The smallest square float (else double) matrix above the largest
    # allocation, if it stays below 2^31 elements.
    max=$(bytes_of "Max allocation")
    for t in float double; do
        es=4
        if [ "$t" = double ]; then
            [ "$fp64" = yes ] || continue
            es=8
        fi
        side=$(awk -v b="$max" -v es="$es" 'BEGIN {
            s = int(sqrt(b / es)) + 1; if (s * s < 2147483647 && s < 2097152) print s }')
        [ -n "$side" ] || continue
        out=$("$kladder" gemv --m "$side" --n "$side" --type "$t" "${q[@]}" 2>&1)
        rc=$?
        if [ "$rc" -eq 2 ] && grep -q "more than the device's largest allocation" <<<"$out"; then
            echo "ok: gemv --m $side --n $side --type $t (above $max bytes): exit 2, $out"
            exit 0
        fi
        printf 'FAIL: gemv --m %s --n %s --type %s: exit %s, expected 2 and "largest allocation"\n%s\n' \
            "$side" "$side" "$t" "$rc" "$out"
        exit 1
    done
    echo "the default device allocates ${max:-?} bytes at once: no gemv matrix below 2^31 elements exceeds it; skipped"
    exit 77
fi

if [ "$mode" = double ] && [ "$fp64" != yes ]; then
    echo "the default device has no fp64: gemv --type double skipped"
    exit 77
fi
nvidia=no
grep -qi '^Vendor .*nvidia' <<<"$facts" && nvidia=yes
"$kladder" gemv --list-rungs >"$tmp/rungs.txt" || { echo "FAIL: gemv --list-rungs"; exit 1; }

# Checks one JSON report: the rows expected (every rung, or those of RUNGS,
# then two rows per peer of PEERS, row- then column-major), in order. Rungs
# verified and built with -DNAME=V for every --param they declare (and none
# they do not); CLBlast verified; cuBLAS skipped with a reason away from
# NVIDIA. Appends "verified expected" to counts; exits 77 when CLBlast is
# not installed.
cat >"$tmp/check.py" <<'PY'
import json, re, sys
path, listing, typ, M, N, sel, peers, nvidia, counts, title = sys.argv[1:11]
params = dict(p.split("=", 1) for p in sys.argv[11:])
M, N = int(M), int(N)
declared, order = {}, []
for line in open(listing):
    m = re.match(r"^  ([0-9]{2}_[a-z0-9_]+)\s", line)
    if m:
        order.append(m.group(1))
        declared[m.group(1)] = set()
    m = re.search(r"--param ([A-Z0-9]+)=", line)
    if m and order:
        declared[order[-1]].add(m.group(1))
rungs = order if sel == "all" else [r for r in order if any(r.startswith(s) for s in sel.split(","))]
rows = rungs + [f"peer:{p}_{l}" for p in peers.split(",") if p for l in ("row", "col")]
bad = []
try:
    rep = json.load(open(path))
except Exception as e:
    print(f"FAIL ({title}): the report is not JSON: {e}")
    sys.exit(1)
res = rep.get("results", [])
p = rep.get("params", {})
if rep.get("workload") != "gemv" or (p.get("M"), p.get("N"), p.get("type")) != (M, N, typ):
    bad.append(f"workload {rep.get('workload')!r}, params {p}: expected gemv M={M} N={N} {typ}")
if [x.get("rung") for x in res] != rows:
    bad.append(f"rows {[x.get('rung') for x in res]}, expected {rows}")
nver, expect, notes = 0, 0, []
for x in res:
    r, st, note = x.get("rung"), x.get("status"), x.get("note") or ""
    if r not in rows:
        continue
    peer = r.startswith("peer:")
    if x.get("peer") is not peer:
        bad.append(f"{r}: peer {x.get('peer')!r}, expected {str(peer).lower()}")
    if r.startswith("peer:clblast") and st == "skipped" and "not installed" in note:
        print(f"{r} skipped: {note}")
        sys.exit(77)
    if r.startswith("peer:cublas"):
        # Away from NVIDIA, cuBLAS cannot run: a skipped row that says why.
        if nvidia != "yes" and (st != "skipped" or "NVIDIA" not in note):
            bad.append(f"{r}: status {st!r} ({note!r}), expected skipped with a note naming NVIDIA")
        elif nvidia == "yes" and (st not in ("verified", "skipped") or (st == "skipped" and not note)):
            bad.append(f"{r}: status {st!r} ({note!r}), expected verified or skipped with a reason")
        if st == "skipped":
            notes.append(f"{r} skipped: {note}")
            continue
    expect += 1
    if st != "verified":
        bad.append(f"{r}: status {st!r} ({note!r}), expected 'verified'")
        continue
    nver += 1
    if not note.startswith(f"{M} results match the reference"):
        bad.append(f"{r}: note {note!r}, expected '{M} results match the reference ...'")
    if not ((x.get("gbps") or 0) > 0 and (x.get("median_s") or 0) > 0 and (x.get("repeats") or 0) >= 1):
        bad.append(f"{r}: gbps {x.get('gbps')}, median_s {x.get('median_s')}, repeats {x.get('repeats')}")
    opts = (x.get("build_options") or "")
    if r.startswith("peer:clblast"):
        fn = "CLBlastSgemv" if typ == "float" else "CLBlastDgemv"
        if fn not in opts:
            bad.append(f"{r}: options {opts!r} do not name {fn}")
        continue
    if peer:
        continue
    opts = opts.split()
    if f"-DKL_T_{typ.upper()}" not in opts:
        bad.append(f"{r}: build options {opts} lack -DKL_T_{typ.upper()}")
    for name, val in params.items():
        has = [o for o in opts if o.startswith(f"-D{name}=")]
        if name in declared[r] and has != [f"-D{name}={val}"]:
            bad.append(f"{r}: build options {opts}, expected -D{name}={val}")
        if name not in declared[r] and has:
            bad.append(f"{r}: build options {opts} set {name}, which it does not declare")
open(counts, "a").write(f"{nver} {expect}\n")
if bad:
    print(f"FAIL ({title}):\n  " + "\n  ".join(bad))
    sys.exit(1)
print(f"ok ({title}): {nver} of {expect} rows verified" + "".join(f"; {n}" for n in notes))
PY

# run TYPE M N [--rung LIST] [--compare PEERS] [--param NAME=V ...]
run() {
    local type=$1 M=$2 N=$3
    shift 3
    local sel=all peers="" pv=() args=("$@")
    while [ $# -gt 0 ]; do
        case $1 in
        --rung) sel=$2; shift 2 ;;
        --compare) peers=$2; shift 2 ;;
        --param) pv+=("$2"); shift 2 ;;
        *) shift ;;
        esac
    done
    local title="gemv $type M=$M N=$N${args[*]:+ ${args[*]}}"
    rm -f "$tmp/out.json"
    "$kladder" gemv --m "$M" --n "$N" --type "$type" "${args[@]}" "${q[@]}" \
        --format json --output "$tmp/out.json" >"$tmp/stdout" 2>&1
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        printf 'FAIL (%s): exit %s, expected 0\n%s\n' "$title" "$rc" "$(cat "$tmp/stdout")"
        fails=$((fails + 1))
        # Which rows failed, when the report was written (and they count).
        [ -s "$tmp/out.json" ] || return
    fi
    python3 "$tmp/check.py" "$tmp/out.json" "$tmp/rungs.txt" "$type" "$M" "$N" "$sel" "$peers" \
        "$nvidia" "$tmp/counts" "$title" "${pv[@]}"
    case $? in
    0) ;;
    77) [ "${CI:-}" = true ] && { echo "FAIL: CLBlast is required in CI (CI=true)"; exit 1; }
        echo "the CLBlast comparison is skipped"
        exit 77 ;;
    *) fails=$((fails + 1)) ;;
    esac
}

case $mode in
float | double)
    # 1×1; one row or one column; primes; N not a multiple of the vector
    # width (4) or the work-group; more columns than rows and the reverse.
    small=(--param WG=8 --param RPG=2 --param XC=8 --param WG0=4 --param SPLITS=3)
    for s in 1:1 1:9 9:1 33:17 5:300 200:3 129:130; do
        run "$mode" "${s%:*}" "${s#*:}"
        run "$mode" "${s%:*}" "${s#*:}" "${small[@]}"
    done
    # x longer than its local chunk (XC = 1024 by default); the extremes of
    # the parameters: work-groups of 1, a one-element chunk, one split; RPG
    # = WG (03 without a reduction); more splits than columns.
    run "$mode" 3 1100
    run "$mode" 33 17 --param WG=1 --param RPG=1 --param XC=1 --param WG0=1 --param SPLITS=1
    run "$mode" 17 33 --rung 03 --param WG=8 --param RPG=8
    run "$mode" 6 5 --rung 13 --param WG0=5 --param SPLITS=64
    ;;
compare)
    # The peers in the same run, verified like every rung.
    types=float
    [ "$fp64" = yes ] && types="float double"
    for t in $types; do
        run "$t" 33 17 --compare clblast,cublas
        run "$t" 129 130 --compare clblast
    done
    ;;
*)
    echo "usage: check_gemv.sh KLADDER float|double|compare|too_big"
    exit 2
    ;;
esac

if [ -s "$tmp/counts" ]; then
    read -r got want < <(awk '{g += $1; w += $2} END {print g, w}' "$tmp/counts")
    if [ "$got" -ne "$want" ]; then
        printf 'FAIL: %s rows verified in all, expected %s\n' "$got" "$want"
        fails=$((fails + 1))
    else
        printf 'ok: %s rows verified in all (%s expected)\n' "$got" "$want"
    fi
fi
exit $((fails > 0))
