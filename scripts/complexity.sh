#!/usr/bin/env bash
# The codebase's measures (docs/ARCHITECTURE.md, "Measures of the code"): over
# src/, lizard's average cyclomatic complexity and the functions over CCN 15,
# the files over 1000 lines, the largest file and the largest folder (its .c
# files and the lines of the files directly in it), and the checks of which
# backend runs made outside src/backend. Needs lizard (pip install lizard).
# Prints the figures; exits 1 where one misses its bound (average 5.0, 30
# functions, no file, no folder over 20 .c files or 8000 lines, no check).
#   scripts/complexity.sh [--list]   (--list: name the functions and files)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! python3 -m lizard --version >/dev/null 2>&1; then
    echo "complexity: lizard is missing (pip install lizard)" >&2
    exit 2
fi
csv=$(python3 -m lizard --csv src)
# CSV columns: NLOC, CCN, tokens, params, length, location, file, function, ...
read -r functions avg over <<<"$(awk -F, '{n++; s += $2; if ($2 > 15) o++}
    END {printf "%d %.2f %d\n", n, n ? s / n : 0, o}' <<<"$csv")"
big=$(find src -name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 1000')
checks=$(grep -rnE 'kl_backend_(opencl|cuda)\b|strcmp\([^)]*->name, "(opencl|cuda)"\)' src \
             --include='*.c' | grep -v '^src/backend/' || true)
printf 'functions %d, average CCN %s, over CCN 15: %d\n' "$functions" "$avg" "$over"
printf 'files over 1000 lines: %d\n' "$(grep -c . <<<"$big" || true)"
# Each folder of src/: its .c files and the lines of every file directly in it.
folders=$(find src -type d | while read -r d; do
    c=$(find "$d" -maxdepth 1 -name '*.c' | wc -l)
    l=$(find "$d" -maxdepth 1 -name '*.[ch]' -exec cat {} + | wc -l)
    echo "$c $l $d"
done)
read -r lines largest <<<"$(find src -name '*.[ch]' -exec wc -l {} + | grep -v ' total$' |
    sort -n | tail -1)"
printf 'largest file: %s, %d lines\n' "$largest" "$lines"
read -r fc fl fd <<<"$(sort -k2,2n <<<"$folders" | tail -1)"
printf 'largest folder: %s, %d .c files, %d lines' "$fd" "$fc" "$fl"
read -r mc _ md <<<"$(sort -k1,1n <<<"$folders" | tail -1)"
[ "$md" = "$fd" ] && echo || printf '; the most .c files: %s, %d\n' "$md" "$mc"
crowded=$(awk '$1 > 20 || $2 > 8000' <<<"$folders")
printf 'folders over 20 .c files or 8000 lines: %d\n' "$(grep -c . <<<"$crowded" || true)"
printf 'backend identity checks outside src/backend: %d\n' "$(grep -c . <<<"$checks" || true)"
if [ "${1:-}" = --list ]; then
    awk -F, '$2 > 15 {gsub(/"/, "", $7); gsub(/"/, "", $8); print "  CCN " $2 "  " $7 "  " $8}' \
        <<<"$csv" | sort -k2,2nr
    [ -z "$big" ] || echo "$big"
    [ -z "$crowded" ] || echo "$crowded"
    [ -z "$checks" ] || echo "$checks"
fi
awk -v a="$avg" -v o="$over" 'BEGIN {exit !(a <= 5.0 && o <= 30)}' && [ -z "$big" ] && [ -z "$crowded" ] && [ -z "$checks" ]
