#!/usr/bin/env bash
# Every device rung of the GEMM ladder under oclgrind's simulator with
# data-race and uninitialised-value detection, at small odd sizes (with
# default and with small chunk/tile parameters): oclgrind must report
# nothing, and every rung must be verified.
set -u
if ! command -v oclgrind >/dev/null; then
    # In CI the check is required: scripts/setup.sh installs oclgrind.
    [ "${CI:-}" = true ] && { echo "FAIL: oclgrind is not installed"; exit 1; }
    echo "oclgrind is not installed (Debian package oclgrind): skipped"
    exit 77
fi
kladder=$1
type=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fails=0
run() {
    out=$(oclgrind --data-races --uninitialized --log "$log" \
        "$kladder" gemm --no-host-rungs --type "$type" --warmup 0 --repeats 1 --min-time 0 "$@" 2>&1)
    rc=$?
    verified=$(grep -Ec '^[0-9]{2}_[a-z0-9_]+ +verified' <<<"$out")
    if [ "$rc" -ne 0 ] || [ -s "$log" ] || [ "$verified" -ne 10 ] || ! grep -q 'Oclgrind' <<<"$out"; then
        printf 'FAIL (%s): exit %s, %s of 10 rungs verified\n%s\n--- oclgrind log:\n' "$*" "$rc" "$verified" "$out"
        cat "$log"
        fails=$((fails + 1))
    else
        printf 'ok (%s %s): 10 rungs verified, oclgrind reported nothing\n' "$type" "$*"
    fi
}
run --m 5 --n 3 --k 7
run --m 17 --n 9 --k 13 --param KC=8 --param WG=4 --param TS=4 --param WG0=3 --param WG1=5
exit $fails
