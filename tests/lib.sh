# Sourced by the tests/check_*.sh scripts: a temporary directory, $tmp, removed
# when the script exits, and the reporting every check uses: `ok WHAT` prints
# an "ok" line; `fail WHAT [FILE...]` a FAIL line, then the first 3000 bytes of
# each file, and counts it in $fails. A script ends with
# `[ $fails -eq 0 ] || exit 1`. For a ladder's script, which sets $kladder,
# $workload and the array q (the quick protocol's options): `check LABEL N
# ARGS...`, kladder $workload ARGS exits 0 with N verified rows and none
# failed; `fails LABEL ARGS...`, it has a failed row. `need_oclgrind`: a
# script that runs oclgrind is skipped (exit 77) without it, except in CI
# (CI=true), where that fails.
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

check() {
    local label=$1 n=$2
    shift 2
    out=$("$kladder" "$workload" "$@" "${q[@]}" 2>&1)
    rc=$?
    verified=$(grep -c ',verified,' <<<"$out")
    if [ "$rc" -ne 0 ] || [ "$verified" -ne "$n" ] || grep -q ',failed,' <<<"$out"; then
        echo "$out" >"$tmp/out.txt"
        fail "$label: exit $rc, $verified of $n rows verified" "$tmp/out.txt"
    else
        ok "$label: $n rows verified"
    fi
}
fails() {
    local label=$1
    shift
    out=$("$kladder" "$workload" "$@" "${q[@]}" 2>&1)
    if grep -q ',failed,' <<<"$out"; then
        ok "$label fails"
    else
        fail "$label was not failed: $out"
    fi
}

need_oclgrind() {
    command -v oclgrind >/dev/null && return 0
    if [ "${CI:-}" = true ]; then
        echo "FAIL: oclgrind is not installed (Debian package oclgrind), and CI=true"
        exit 1
    fi
    echo "oclgrind is not installed (Debian package oclgrind): skipped"
    exit 77
}
