# Sourced by the tests/check_*.sh scripts: a temporary directory, $tmp, removed
# when the script exits, and the reporting every check uses: `ok WHAT` prints
# an "ok" line; `fail WHAT [FILE...]` a FAIL line, then the first 3000 bytes of
# each file, and counts it in $fails. A script ends with
# `[ $fails -eq 0 ] || exit 1`.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
    printf 'FAIL: %s\n' "$1"
    shift
    for f in "$@"; do printf -- '--- %s:\n%s\n' "${f##*/}" "$(head -c 3000 "$f" 2>/dev/null)"; done
    fails=$((fails + 1))
}
ok() { printf 'ok: %s\n' "$1"; }
