#!/usr/bin/env bash
# `kladder rowdot` (issue 4): every rung of the weighted row-dot ladder
# verified at awkward shapes, with default and with small parameters, in one
# element type; 05_subgroup is "skipped" (with a note naming cl_khr_subgroups)
# on a device without sub-groups, such as PoCL, and refused (exit 2) when
# named with --rung there. Also the refusal of a matrix larger than the
# device's largest allocation.
# usage: check_rowdot.sh KLADDER float|double
#        check_rowdot.sh KLADDER subgroup_rung
#        check_rowdot.sh KLADDER too_big
# One "ok" line per run; FAIL lines and exit 1 on any failure; exit 77 (skip)
# for double on a device without fp64, and for too_big where no matrix within
# the 2^31-element limit exceeds the largest allocation.
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

if [ "$mode" = too_big ]; then
    # The smallest square float (else double) matrix above the largest
    # allocation, if it stays below 2^31 elements (and Y below 2^21).
    max=$(bytes_of "Max allocation")
    for t in float double; do
        es=4
        if [ "$t" = double ]; then
            [ "$(fact 'Double precision (fp64)')" = yes ] || continue
            es=8
        fi
        side=$(awk -v b="$max" -v es="$es" 'BEGIN {
            s = int(sqrt(b / es)) + 1; if (s * s < 2147483647 && s < 2097152) print s }')
        [ -n "$side" ] || continue
        out=$("$kladder" rowdot --rows "$side" --d "$side" --type "$t" "${q[@]}" 2>&1)
        rc=$?
        if [ "$rc" -eq 2 ] && grep -q "more than the device's largest allocation" <<<"$out"; then
            echo "ok: rowdot --rows $side --d $side --type $t (above $max bytes): exit 2, $out"
            exit 0
        fi
        printf 'FAIL: rowdot --rows %s --d %s --type %s: exit %s, expected 2 and "largest allocation"\n%s\n' \
            "$side" "$side" "$t" "$rc" "$out"
        exit 1
    done
    echo "the default device allocates ${max:-?} bytes at once: no rowdot matrix below 2^31 elements exceeds it; skipped"
    exit 77
fi

if [ "$mode" = subgroup_rung ]; then
    # 05_subgroup named with --rung (in full and by prefix): without
    # sub-groups it cannot be skipped, so the request is refused (exit 2)
    # with the reason; with them it runs and is verified.
    for r in 05_subgroup 05; do
        out=$("$kladder" rowdot --rows 3 --d 5 --rung "$r" "${q[@]}" 2>&1)
        rc=$?
        if [ "$(fact 'Sub-groups')" = yes ]; then
            if [ "$rc" -eq 0 ] && grep -Eq '^05_subgroup +verified' <<<"$out"; then
                echo "ok: rowdot --rung $r on a device with sub-groups: verified"
                continue
            fi
            printf 'FAIL: rowdot --rung %s: exit %s, expected 0 and 05_subgroup verified\n%s\n' "$r" "$rc" "$out"
        else
            if [ "$rc" -eq 2 ] && grep -q 'rung 05_subgroup: the device has no cl_khr_subgroups' <<<"$out"; then
                echo "ok: rowdot --rung $r without sub-groups: exit 2, $out"
                continue
            fi
            printf 'FAIL: rowdot --rung %s: exit %s, expected 2 and "the device has no cl_khr_subgroups"\n%s\n' \
                "$r" "$rc" "$out"
        fi
        fails=$((fails + 1))
    done
    exit $((fails > 0))
fi

case $mode in
float | double) ;;
*)
    echo "usage: check_rowdot.sh KLADDER float|double|subgroup_rung|too_big"
    exit 2
    ;;
esac
type=$mode
if [ "$type" = double ] && [ "$(fact 'Double precision (fp64)')" != yes ]; then
    echo "the default device has no fp64: rowdot --type double skipped"
    exit 77
fi
subgroups=$(fact 'Sub-groups')
localmem=$(bytes_of "Local memory")
# The largest power-of-two work-group up to 1024 the device allows.
bigwg=$(awk -v m="$(fact 'Max work-group size')" 'BEGIN {w = 1; while (w * 2 <= m && w < 1024) w *= 2; print w}')
"$kladder" rowdot --list-rungs >"$tmp/rungs.txt" || { echo "FAIL: rowdot --list-rungs"; exit 1; }

# Checks one JSON report: the rows expected (every rung, or those of RUNGS),
# in order, each verified, except 05_subgroup, skipped with a reason on a
# device without sub-groups; each rung built with -DNAME=V for every --param
# it declares (and none it does not). Appends "verified expected" to counts.
cat >"$tmp/check.py" <<'PY'
import json, re, sys
path, listing, typ, Y, D, subgroups, sel, counts, title = sys.argv[1:10]
params = dict(p.split("=", 1) for p in sys.argv[10:])
Y, D = int(Y), int(D)
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
want = {r: "skipped" if r == "05_subgroup" and subgroups != "yes" else "verified" for r in rungs}
bad = []
try:
    rep = json.load(open(path))
except Exception as e:
    print(f"FAIL ({title}): the report is not JSON: {e}")
    sys.exit(1)
res = rep.get("results", [])
p = rep.get("params", {})
if rep.get("workload") != "rowdot" or (p.get("Y"), p.get("D"), p.get("type")) != (Y, D, typ):
    bad.append(f"workload {rep.get('workload')!r}, params {p}: expected rowdot Y={Y} D={D} {typ}")
if [x.get("rung") for x in res] != rungs:
    bad.append(f"rows {[x.get('rung') for x in res]}, expected {rungs}")
nver = 0
for x in res:
    r, st, note = x.get("rung"), x.get("status"), x.get("note") or ""
    if r not in want:
        continue
    if st != want[r]:
        bad.append(f"{r}: status {st!r} ({note!r}), expected {want[r]!r}")
        continue
    if st == "skipped":
        if "cl_khr_subgroups" not in note:
            bad.append(f"{r}: skipped without naming cl_khr_subgroups ({note!r})")
        continue
    nver += 1
    if not note.startswith(f"{Y} results match the reference"):
        bad.append(f"{r}: note {note!r}, expected '{Y} results match the reference ...'")
    if x.get("peer") is not False:
        bad.append(f"{r}: peer {x.get('peer')!r}, expected false")
    if not ((x.get("gbps") or 0) > 0 and (x.get("median_s") or 0) > 0 and (x.get("repeats") or 0) >= 1):
        bad.append(f"{r}: gbps {x.get('gbps')}, median_s {x.get('median_s')}, repeats {x.get('repeats')}")
    opts = (x.get("build_options") or "").split()
    if f"-DKL_T_{typ.upper()}" not in opts:
        bad.append(f"{r}: build options {opts} lack -DKL_T_{typ.upper()}")
    for name, val in params.items():
        has = [o for o in opts if o.startswith(f"-D{name}=")]
        if name in declared[r] and has != [f"-D{name}={val}"]:
            bad.append(f"{r}: build options {opts}, expected -D{name}={val}")
        if name not in declared[r] and has:
            bad.append(f"{r}: build options {opts} set {name}, which it does not declare")
expect = sum(1 for s in want.values() if s == "verified")
open(counts, "a").write(f"{nver} {expect}\n")
if bad:
    print(f"FAIL ({title}):\n  " + "\n  ".join(bad))
    sys.exit(1)
skipped = [r for r, s in want.items() if s == "skipped"]
print(f"ok ({title}): {nver} of {expect} rungs verified"
      + (f", {', '.join(skipped)} skipped (no cl_khr_subgroups)" if skipped else ""))
PY

# run Y D [--rung LIST] [--param NAME=V ...]
run() {
    local Y=$1 D=$2
    shift 2
    local sel=all pv=() args=("$@")
    while [ $# -gt 0 ]; do
        case $1 in
        --rung) sel=$2; shift 2 ;;
        --param) pv+=("$2"); shift 2 ;;
        *) shift ;;
        esac
    done
    local title="rowdot $type Y=$Y D=$D${args[*]:+ ${args[*]}}"
    rm -f "$tmp/out.json"
    "$kladder" rowdot --rows "$Y" --d "$D" --type "$type" "${args[@]}" "${q[@]}" \
        --format json --output "$tmp/out.json" >"$tmp/stdout" 2>&1
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        printf 'FAIL (%s): exit %s, expected 0\n%s\n' "$title" "$rc" "$(cat "$tmp/stdout")"
        fails=$((fails + 1))
        # Which rows failed, when the report was written (and they count).
        [ -s "$tmp/out.json" ] || return
    fi
    python3 "$tmp/check.py" "$tmp/out.json" "$tmp/rungs.txt" "$type" "$Y" "$D" "$subgroups" \
        "$sel" "$tmp/counts" "$title" "${pv[@]}" || fails=$((fails + 1))
}

# A --param WG applies to 05_subgroup too, which then cannot be skipped: on a
# device without sub-groups, runs with WG name the other rungs.
if [ "$subgroups" = yes ]; then no05=(); else no05=(--rung "01,02,03,04,06"); fi

# 1 row; D = 1; primes; D not a multiple of the work-group (64, 256) or the
# vector width (4); D above the local chunk of v (VC = 1024 by default, 64).
shapes="1:1 1:1000 7:1 13:100 3:5000 17:33 64:257"
for s in $shapes; do
    run "${s%:*}" "${s#*:}"
    run "${s%:*}" "${s#*:}" "${no05[@]}" --param WG=4 --param VC=8 --param RPG=2
done
run 3 5000 --param VC=64
# D longer than the device's local memory holds (in elements of this type).
if [ -n "$localmem" ]; then
    es=4
    [ "$type" = double ] && es=8
    run 2 $((localmem / es + 1))
fi
# The extremes of the parameters: work-groups of 1 and 2 (04's scalar tail
# loop for WG < 4), a chunk of one element, one row per group and RPG = WG
# (06 without a reduction); the largest work-group, with a partial last block
# of rows.
run 13 100 "${no05[@]}" --param WG=1 --param VC=1 --param RPG=1
run 9 7 "${no05[@]}" --param WG=2 --param VC=3 --param RPG=2
run 17 33 --rung 06 --param WG=8 --param RPG=8
run 5 1030 --rung 02,03,04,06 --param WG="$bigwg" --param RPG=4

if [ -s "$tmp/counts" ]; then
    read -r got want < <(awk '{g += $1; w += $2} END {print g, w}' "$tmp/counts")
    if [ "$got" -ne "$want" ]; then
        printf 'FAIL: %s rung runs verified in all, expected %s\n' "$got" "$want"
        fails=$((fails + 1))
    else
        printf 'ok: %s rung runs verified in all (%s expected)\n' "$got" "$want"
    fi
fi
exit $((fails > 0))
