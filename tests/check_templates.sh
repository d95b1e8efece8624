#!/usr/bin/env bash
# Every workload's template (`kladder template W`) as a user rung: written to
# a file, run with --kernel at awkward sizes, in every element type the
# device has, it must be verified; and under oclgrind (data races,
# uninitialised values, out-of-bounds accesses) the simulator must report
# nothing. oclgrind is skipped where it is not installed, except in CI.
# usage: check_templates.sh KLADDER
set -u
kladder=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KLADDER_CACHE_DIR=$tmp/cache
q=(--warmup 0 --repeats 1 --min-time 0 -q --format csv)
fails=0

workloads=$("$kladder" template --help | sed -n 's/.*Workloads: //p')
[ -n "$workloads" ] || { echo "FAIL: template --help lists no workload"; exit 1; }
types=float
"$kladder" devices 2>/dev/null | grep -Eq 'Double precision \(fp64\) +yes' && types="float double"
declare -A extra=([gemm]=int [reduce]=int) # gemm and reduce also run in int; copy in words only

. "$(dirname "$0")/sizes.sh" # $sizes: a small, awkward size per workload

# The option that sets type T for workload W.
type_option() {
    case $1 in
    copy) ;;
    blur) echo --pixel "$2" ;;
    *) echo --type "$2" ;;
    esac
}

# check LABEL WORKLOAD OUTFILE: the user rung's row is verified.
check() {
    local row
    row=$(grep ",template_$2," "$3")
    if [[ "$row" == *",verified,"* ]]; then
        echo "ok ($1): template_$2 verified"
    else
        echo "FAIL ($1): template_$2: ${row:-no row}"
        cat "$3"
        fails=$((fails + 1))
    fi
}

for w in $workloads; do
    "$kladder" template "$w" >"$tmp/template_$w.cl" || { echo "FAIL: template $w"; fails=$((fails + 1)); continue; }
    wtypes="$types ${extra[$w]:-}"
    [ "$w" = copy ] && wtypes=int
    [ "$w" = blur ] && wtypes="float uchar4" # pixels, not element types
    [ "$w" = scan ] && wtypes="float int"
    [ "$w" = histogram ] && wtypes=uchar
    [ "$w" = transpose ] && wtypes="float double half"
    [ "$w" = softmax ] && wtypes="float half bf16"
    for t in $wtypes; do
        # shellcheck disable=SC2086 # sizes are words
        "$kladder" "$w" ${sizes[$w]} $(type_option "$w" "$t") --kernel "$tmp/template_$w.cl" --rung "template_$w" \
            "${q[@]}" >"$tmp/out.csv" 2>"$tmp/err"
        check "$w $t" "$w" "$tmp/out.csv"
    done
    if command -v oclgrind >/dev/null; then
        : >"$tmp/log"
        # shellcheck disable=SC2086
        oclgrind --data-races --uninitialized --build-options -cl-opt-disable --num-threads 1 \
            --log "$tmp/log" "$kladder" "$w" ${sizes[$w]} --kernel "$tmp/template_$w.cl" \
            --rung "template_$w" "${q[@]}" >"$tmp/out.csv" 2>"$tmp/err"
        check "$w under oclgrind" "$w" "$tmp/out.csv"
        if [ -s "$tmp/log" ]; then
            echo "FAIL ($w under oclgrind): the simulator reported:"
            head -c 4000 "$tmp/log"
            fails=$((fails + 1))
        fi
    elif [ "${CI:-}" = true ]; then
        echo "FAIL: oclgrind is not installed (Debian package oclgrind), and CI=true"
        fails=$((fails + 1))
    else
        echo "oclgrind is not installed: $w's template not simulated"
    fi
done
exit $((fails > 0))
