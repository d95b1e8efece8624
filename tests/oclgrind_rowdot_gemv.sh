#!/usr/bin/env bash
# Every kernel of `kladder rowdot` and `kladder gemv` (issue 4) under
# oclgrind's simulator with data-race and uninitialised-value detection, at
# tiny awkward sizes with default and with small parameters, in float and
# double: oclgrind must report nothing (an empty log), kladder must exit 0
# and every rung must be verified (05_subgroup skipped where the simulated
# device has no cl_khr_subgroups). -cl-opt-disable: oclgrind 21.10's
# --uninitialized crashes on optimised vector code. One simulator thread per
# run, since CTest runs tests side by side.
# usage: oclgrind_rowdot_gemv.sh KLADDER rowdot|gemv
# Skipped (exit 77) without oclgrind, except in CI (CI=true), where that fails.
set -u
if ! command -v oclgrind >/dev/null; then
    if [ "${CI:-}" = true ]; then
        echo "FAIL: oclgrind is not installed (Debian package oclgrind), and CI=true"
        exit 1
    fi
    echo "oclgrind is not installed (Debian package oclgrind): skipped"
    exit 77
fi
kladder=$1
mode=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KLADDER_CACHE_DIR=$tmp/cache # oclgrind's own device; no user cache involved
q=(--warmup 0 --repeats 1 --min-time 0)
fails=0

case $mode in
rowdot | gemv) ;;
*)
    echo "usage: oclgrind_rowdot_gemv.sh KLADDER rowdot|gemv"
    exit 2
    ;;
esac
"$kladder" "$mode" --list-rungs >"$tmp/rungs.txt" || { echo "FAIL: $mode --list-rungs"; exit 1; }
devices=$(oclgrind "$kladder" devices 2>/dev/null)
subgroups=no
grep -Eq 'Sub-groups \(cl_khr_subgroups\) +yes' <<<"$devices" && subgroups=yes
types=float
grep -Eq 'Double precision \(fp64\) +yes' <<<"$devices" && types="float double"

# run RUNGS ARGS...: kladder MODE ARGS under oclgrind, with a JSON report;
# RUNGS is "all" or the --rung list given in ARGS. Every row expected is
# verified, except 05_subgroup, skipped with a reason without sub-groups.
run() {
    local sel=$1
    shift
    local t0=$SECONDS
    : >"$tmp/log"
    rm -f "$tmp/out.json"
    oclgrind --data-races --uninitialized --build-options -cl-opt-disable --num-threads 1 \
        --log "$tmp/log" "$kladder" "$mode" "$@" "${q[@]}" --format json --output "$tmp/out.json" \
        >"$tmp/stdout" 2>&1
    local rc=$?
    local verdict
    verdict=$(python3 - "$tmp/out.json" "$tmp/rungs.txt" "$sel" "$subgroups" <<'PY'
import json, re, sys
path, listing, sel, subgroups = sys.argv[1:5]
order = [m.group(1) for m in (re.match(r"^  ([0-9]{2}_[a-z0-9_]+)\s", l) for l in open(listing)) if m]
want = order if sel == "all" else [r for r in order if any(r.startswith(s) for s in sel.split(","))]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"no JSON report ({e})")
    sys.exit(1)
got = [x["rung"] for x in r["results"]]
bad = [] if got == want else [f"rows {got}, expected {want}"]
nver = 0
for x in r["results"]:
    if x["rung"] == "05_subgroup" and subgroups != "yes":
        if x["status"] != "skipped" or "cl_khr_subgroups" not in x["note"]:
            bad.append(f"05_subgroup {x['status']} ({x['note']}), expected skipped for want of cl_khr_subgroups")
    elif x["status"] != "verified":
        bad.append(f"{x['rung']} {x['status']} ({x['note']})")
    else:
        nver += 1
if "Oclgrind" not in r["device"]["platform"]:
    bad.append(f"ran on {r['device']['platform']!r}, not on oclgrind's simulator")
skipped = [w for w in want if w == "05_subgroup" and subgroups != "yes"]
print("; ".join(bad) if bad else f"{nver} of {len(want) - len(skipped)} rungs verified"
      + "".join(f", {w} skipped" for w in skipped))
sys.exit(1 if bad else 0)
PY
    )
    local ok=$?
    if [ "$rc" -ne 0 ] || [ -s "$tmp/log" ] || [ "$ok" -ne 0 ]; then
        printf 'FAIL (oclgrind kladder %s %s): exit %s, %s\n--- output:\n%s\n--- oclgrind log:\n%s\n' \
            "$mode" "$*" "$rc" "$verdict" "$(cat "$tmp/stdout")" "$(head -c 20000 "$tmp/log")"
        fails=$((fails + 1))
    else
        printf 'ok (oclgrind kladder %s %s): %s, oclgrind reported nothing (%ss)\n' \
            "$mode" "$*" "$verdict" $((SECONDS - t0))
    fi
}

# A --param WG applies to 05_subgroup too, which then cannot be skipped.
if [ "$subgroups" = yes ]; then r6=01,02,03,04,05,06; else r6=01,02,03,04,06; fi
for t in $types; do
    case $mode in
    rowdot)
        # Rows and D below every work-group, no multiple of 4; a partial
        # last block of rows (RPG) and several chunks of v (VC); groups of 2
        # (04's tail loop for WG < 4); D above the default chunk of 1024.
        run all --type "$t" --rows 5 --d 7
        run "$r6" --type "$t" --rows 3 --d 37 --rung "$r6" --param VC=8 --param WG=4 --param RPG=2
        run "$r6" --type "$t" --rows 9 --d 7 --rung "$r6" --param VC=3 --param WG=2 --param RPG=2
        run all --type "$t" --rows 9 --d 1030
        ;;
    gemv)
        # Both layouts: fewer rows and columns than any work-group; small
        # groups, teams, x chunks and splits (a partial last split); more
        # splits than columns; x above the default chunk of 1024.
        run all --type "$t" --m 5 --n 3
        run all --type "$t" --m 7 --n 13 --param WG=8 --param RPG=2 --param XC=8 --param WG0=4 --param SPLITS=3
        run 13 --type "$t" --m 6 --n 5 --rung 13 --param WG0=4 --param SPLITS=8
        run all --type "$t" --m 3 --n 1030
        ;;
    esac
done
exit $((fails > 0))
