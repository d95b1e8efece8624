#!/usr/bin/env bash
# Sets kladder up with the test tools (scripts/setup.sh --tests) and runs the
# test suite (CTest) on the default OpenCL device: PoCL on the CPU where there
# is no GPU. The tests come in tiers (tests/tiers.cmake): by default the fast
# tier, every time, and one part of the rotating tier, chosen by the day of the
# year, so that every test runs within a few days.
#
#   scripts/test.sh            the fast tier and today's part
#   scripts/test.sh --all      every test
#   scripts/test.sh --part N   the fast tier and part N
#   scripts/test.sh --times    no run: the slowest tests and each tier's total,
#                              from CTest's timings of the last runs
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
"" | --all | --part | --times) ;;
*) echo "usage: scripts/test.sh [--all | --part N | --times]" >&2; exit 2 ;;
esac
if [ "${1:-}" = --times ]; then
    [ -d build ] || { echo "test: no build/ yet: run scripts/test.sh first" >&2; exit 2; }
    exec scripts/tiers.py times build
fi
scripts/setup.sh --tests
label=$(scripts/tiers.py label build "$@")
echo "test: the tests labelled $label (scripts/test.sh --all runs every one)"
ctest --test-dir build -L "$label" --output-on-failure -j"$(nproc 2>/dev/null || echo 2)"
