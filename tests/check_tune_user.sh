#!/usr/bin/env bash
# `kladder tune WORKLOAD --kernel FILE`: the user's kernel's declared space
# searched on its ladder (and `--rung R`: one of the ladder's own rungs). The rows are verified, their config says which
# values are the default and which the tuned ones, the --param line printed
# runs the tuned values, candidates that compute the wrong thing are
# rejected, never the best, and where the winner is known (a parameter that
# multiplies the work) it is the best.
# usage: check_tune_user.sh KLADDER SOURCE_DIR
set -u
kladder=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KLADDER_CACHE_DIR=$tmp/cache
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# A space of two parameters (WG 32..128, UNROLL 1..4) whose UNROLL=1 third is wrong.
"$kladder" tune rowdot --rows 70 --d 33 --kernel "$src/tests/user_kernels/tune_wrong_when.cl" \
    --budget 60 -q >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out" "$tmp/err"
[ $rc -eq 0 ] || fail "tune exited $rc"
grep -q "^space: .*WG (3), UNROLL (3).* 9 candidates" "$tmp/out" ||
    fail "the space is not WG (3) x UNROLL (3), 9 candidates"
grep -q "every candidate tried" "$tmp/out" || fail "a space of 9 is not searched exhaustively"
grep -Eq "^tried: +9 candidates .* 6 verified, 3 rejected" "$tmp/out" ||
    fail "not 6 verified and 3 rejected of 9"
[ "$(grep -c "rejected tune_wrong_when .*UNROLL=1" "$tmp/err")" -eq 3 ] ||
    fail "the 3 UNROLL=1 candidates are not named as rejected"
grep -q "^best: .*UNROLL=1" "$tmp/out" && fail "a wrong candidate is the best"
line=$(sed -n 's/^best: .*run it with //p' "$tmp/out")
[ -n "$line" ] || fail "no --param line for the best"
grep -Eq "^tune_wrong_when +(tuned|tuned=default) WG=[0-9]+,UNROLL=[24] +verified" "$tmp/out" ||
    fail "no verified tuned row"

# A space whose winner is known (SPIN=1 does a 64th of SPIN=8's work): the best is it.
"$kladder" tune rowdot --rows 4096 --d 256 --kernel "$src/tests/user_kernels/tune_slow_when.cl" \
    --budget 60 -q >"$tmp/slow.out" 2>"$tmp/slow.err"
rc=$?
[ $rc -eq 0 ] || fail "tune tune_slow_when exited $rc: $(cat "$tmp/slow.err")"
grep -q "every candidate tried" "$tmp/slow.out" || fail "a space of 4 is not searched exhaustively"
if grep -Eq "^best: +SPIN=1[, ]" "$tmp/slow.out"; then
    echo "ok: the known winner is the best: $(grep '^best:' "$tmp/slow.out" | tr -s ' ')"
else
    fail "the best is not SPIN=1, the known winner: $(grep -E '^(default|best):' "$tmp/slow.out" | tr -s ' ')"
fi

# The printed options run the tuned kernel on the ladder.
# shellcheck disable=SC2086
"$kladder" rowdot --rows 70 --d 33 --kernel "$src/tests/user_kernels/tune_wrong_when.cl" \
    --rung tune_wrong_when $line --warmup 0 --repeats 1 --min-time 0 -q --format csv \
    >"$tmp/run.csv" 2>&1 || fail "the best's --param line does not run: $(cat "$tmp/run.csv")"
grep -q ",tune_wrong_when,.*,verified," "$tmp/run.csv" || grep -q "^tune_wrong_when,.*verified" "$tmp/run.csv" ||
    fail "the best's --param line is not verified: $(cat "$tmp/run.csv")"

# JSON: the default and tuned rows, each with its values in config.
"$kladder" tune gemv --m 45 --n 29 --kernel "$src/kernels/templates/gemv.cl" --budget 20 -q \
    --warmup 0 --repeats 1 --min-time 0 --json "$tmp/gemv.json" >"$tmp/gemv.out" 2>&1 ||
    fail "tune gemv: $(cat "$tmp/gemv.out")"
grep -q '"config": "\(tuned\|tuned=default\) WG=[0-9]*"' "$tmp/gemv.json" ||
    fail "gemv JSON has no tuned row: $(grep config "$tmp/gemv.json")"

# One of a ladder's own rungs (tune blur --rung 06): its table's parameters searched, the
# default and tuned rows verified, and the printed --param line runs the tuned rung.
"$kladder" tune blur --rung 06 --width 40 --height 30 --budget 8 -q --warmup 0 --repeats 1 \
    --min-time 0 >"$tmp/blur.out" 2>&1 || fail "tune blur --rung 06: $(cat "$tmp/blur.out")"
grep -q "^kladder tune  06_vector" "$tmp/blur.out" && grep -q "^space: .*BX (.*), BY (.*), PX (" "$tmp/blur.out" ||
    fail "no search of 06_vector's BX, BY and PX: $(head -5 "$tmp/blur.out")"
grep -Eq "^06_vector +(tuned|tuned=default) BX=[0-9]+,BY=[0-9]+,PX=[0-9]+ +verified" "$tmp/blur.out" ||
    fail "no verified tuned row of 06_vector"
line=$(sed -n 's/^best: .*run it with //p' "$tmp/blur.out")
# shellcheck disable=SC2086
"$kladder" blur --width 40 --height 30 --rung 06 $line --warmup 0 --repeats 1 --min-time 0 -q \
    >"$tmp/blur_run.out" 2>&1 && grep -Eq "^06_vector +verified" "$tmp/blur_run.out" ||
    fail "the best's --param line ($line) does not run 06_vector verified: $(cat "$tmp/blur_run.out")"

if [ $fails -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "all tune --kernel and --rung checks passed"
