#!/usr/bin/env bash
# An earlier tree against this one, on one device, by kladder compare (not a test): both
# built for the command line, then ROUNDS rounds of `kladder ARGS...` from each, the two
# alternating as old new, new old, ... (so a drift of the machine falls on both alike), each
# run a JSON; then `kladder compare` of the old runs against the new ones, which resamples
# runs as well as launches.
#
#   git archive REV | (mkdir -p old && tar x -C old)     # the earlier tree, beside this one
#   bench/ab.sh old 3 softmax --backend cuda --rung 05 --type bf16 --size 2048,262144
#
# OLD: a directory holding the earlier tree (a machine without the repository's history, as a
# lent GPU is, gets it copied with the working tree). ROUNDS: runs a side (3 or more for a
# verdict beyond the run-to-run spread; see README, "kladder compare"). Everything goes to
# $OUT (default bench/out)/ab/NAME/ (NAME=ab unless set): the runs, what each printed, and
# compare.txt, which ends the output.
set -uo pipefail
if [ $# -lt 3 ] || [ ! -f "$1/CMakeLists.txt" ] || ! [ "$2" -ge 1 ] 2>/dev/null; then
    echo "usage: bench/ab.sh OLD_TREE ROUNDS KLADDER_ARGS...  (OLD_TREE: a kladder source tree)" >&2
    exit 2
fi
old=$(cd "$1" && pwd)
rounds=$2
shift 2
cd "$(dirname "$0")/.." || exit 1
dir=${OUT:-bench/out}/ab/${NAME:-ab}
mkdir -p "$dir"

# The command line of each tree, in its own build/ (a tree built already is only brought up
# to date).
for tree in "$old" .; do
    (cd "$tree" && { [ -f build/CMakeCache.txt ] ||
        cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF; } >/dev/null &&
        cmake --build build -j"$(nproc)" --target kladder-cli >/dev/null) ||
        { echo "ab: $tree did not build" >&2; exit 1; }
done
source bench/env.sh >/dev/null # registers NVIDIA's OpenCL where needed
export KLADDER_CACHE_DIR=$dir/cache

olds=() news=()
for r in $(seq 1 "$rounds"); do
    order="old new"
    [ $((r % 2)) = 0 ] && order="new old"
    for side in $order; do
        k=build/kladder
        [ "$side" = old ] && k=$old/build/kladder
        "$k" "$@" --json "$dir/${side}_$r.json" >"$dir/${side}_$r.txt" 2>&1
        echo "ab: round $r, $side: exit $?"
        [ "$side" = old ] && olds+=("$dir/${side}_$r.json") || news+=("$dir/${side}_$r.json")
    done
done
commas() {
    local IFS=,
    echo "$*"
}
build/kladder compare "$(commas "${olds[@]}")" "$(commas "${news[@]}")" >"$dir/compare.txt" 2>&1
echo "ab: compare: exit $?"
cat "$dir/compare.txt"
