#!/usr/bin/env bash
# The command line as its option table makes it (src/cli/options.c): per-command
# help, suggestions for a mistyped word, --version everywhere, the bash and zsh
# completions and the man page generated at build time. Nothing opens a device.
# usage: check_cli.sh KLADDER BUILD_DIR
# One "ok" line per check; FAIL lines and exit 1 on any failure.
set -u
kladder=$1
build=$2
. "$(dirname "$0")/lib.sh" # $tmp, ok, fail

# run NAME ARGS...: stdout in $tmp/NAME.out, stderr in $tmp/NAME.err, the exit code in $rc.
run() {
    local name=$1
    shift
    "$kladder" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
}

# Per-command help: that command's options and an example, not another's; the same text
# from `kladder help C`, `kladder C --help` and `kladder C -h`.
for c in gemm copy rowdot gemv blur peak tune devices report compare completion template; do
    run "h_$c" help "$c"
    run "l_$c" "$c" --help
    run "s_$c" "$c" -h
    # (template's help is its own text: the workloads of its interface, no example)
    if [ "$rc" -ne 0 ] || ! grep -q "^usage: kladder $c" "$tmp/h_$c.out" ||
        { [ "$c" != template ] && ! grep -q "^example: .*kladder $c" "$tmp/h_$c.out"; } ||
        ! cmp -s "$tmp/h_$c.out" "$tmp/l_$c.out" || ! cmp -s "$tmp/h_$c.out" "$tmp/s_$c.out"; then
        fail "help $c, $c --help and $c -h should print the same usage and example" "$tmp/h_$c.out" "$tmp/l_$c.err"
    fi
done
# expect_in FILE YES NO: the help names option YES and not option NO.
expect_in() {
    if grep -q -- "^  $2[ ,]" "$tmp/$1.out" && ! grep -q -- "^  $3[ ,]" "$tmp/$1.out"; then
        ok "${1#h_} --help lists $2, not $3"
    else
        fail "${1#h_} --help should list $2 and not $3" "$tmp/$1.out"
    fi
}
expect_in h_gemm --no-tuned --sweep
expect_in h_copy --sweep --no-tuned
expect_in h_blur --sigma --rows
expect_in h_peak --vec --rung
expect_in h_tune --budget --sigma
expect_in h_devices --device --min-time
expect_in h_report --chart --fail-on-regression
expect_in h_compare --fail-on-regression --chart

# Suggestions for a slip; none for a word far from every other.
suggest() { # suggest WANT ARGS...: exit 2 and "did you mean WANT?"
    local want=$1
    shift
    run sug "$@"
    if [ "$rc" = 2 ] && grep -q "did you mean $want?" "$tmp/sug.err"; then
        ok "kladder $* suggests $want"
    else
        fail "kladder $*: exit $rc, expected 2 and \"did you mean $want?\"" "$tmp/sug.err"
    fi
}
suggest gemm gemn
suggest blur bulr
suggest --size gemm --sizee 8
suggest --sweep copy --swep
suggest --min-time gemm --min-tim 1
suggest gemv help gemvv
run far gemm --frobnicate
[ "$rc" = 2 ] && grep -q 'unknown option "--frobnicate"$' "$tmp/far.err" &&
    ok "no suggestion for a word like no option" || fail "kladder gemm --frobnicate" "$tmp/far.err"

# --version and -V everywhere, and `kladder version`.
want=$("$kladder" version)
for args in "--version" "-V" "gemm --version" "blur -V" "report --version" "compare -V" \
    "tune gemm --version"; do
    # shellcheck disable=SC2086
    got=$("$kladder" $args 2>&1)
    [ "$got" = "$want" ] || fail "kladder $args printed \"$got\", expected \"$want\""
done
[[ "$want" =~ ^kladder\ [0-9]+\.[0-9]+\.[0-9]+$ ]] && ok "--version and -V everywhere: $want" ||
    fail "kladder version printed \"$want\""

# The completions: the build's files are what the CLI prints; both parse; bash offers the
# words of the table.
"$kladder" completion bash >"$tmp/bash" && "$kladder" completion zsh >"$tmp/zsh" ||
    fail "kladder completion bash|zsh failed"
cmp -s "$tmp/bash" "$build/completions/kladder" && cmp -s "$tmp/zsh" "$build/completions/_kladder" &&
    ok "the build's completions are the CLI's" ||
    fail "$build/completions/kladder and _kladder should be what kladder completion prints"
bash -n "$tmp/bash" && ok "the bash completion parses" || fail "bash -n of the completion" "$tmp/bash"
if command -v zsh >/dev/null; then
    zsh -n "$tmp/zsh" && ok "the zsh completion parses" || fail "zsh -n of the completion" "$tmp/zsh"
else
    echo "no zsh here (scripts/setup.sh --tests installs it): the zsh completion's syntax is not checked"
fi
complete_words() { # complete_words WORD...: what the bash completion offers for the last word
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kladder; echo "${COMPREPLY[*]}"' \
        _ "$tmp/bash" kladder "$@"
}
check_completion() { # check_completion WANT WORD...
    local want=$1 got
    shift
    got=$(complete_words "$@")
    [ "$got" = "$want" ] && ok "completion of \"kladder $*\": $got" ||
        fail "completion of \"kladder $*\": \"$got\", expected \"$want\""
}
check_completion "gemm gemv" ge
check_completion "--sweep" copy --sw
check_completion "json" gemm --format j
check_completion "uchar4" blur --pixel u
check_completion "--no-host-rungs --no-tuned" gemm --no-
# report's and compare's options and values, from the same table; template's workloads
check_completion "--chart" report a.json --ch
check_completion "html" report a.json --format h
check_completion "--fail-on-regression --force" compare --f
check_completion "gemm gemv" template ge
check_completion "zsh" completion z

# The man page: built, renders without a warning, and documents every option of `kladder help`.
page=$build/kladder.1
"$kladder" help --man >"$tmp/man.1"
cmp -s "$tmp/man.1" "$page" && ok "the build's man page is what kladder help --man prints" ||
    fail "$page should be what kladder help --man prints"
if command -v man >/dev/null && command -v nroff >/dev/null; then
    MANWIDTH=80 man --warnings -l "$tmp/man.1" >"$tmp/man.txt" 2>"$tmp/man.err"
    if [ -s "$tmp/man.txt" ] && [ ! -s "$tmp/man.err" ] && grep -q "EXIT STATUS" "$tmp/man.txt"; then
        ok "man -l renders the page without a warning"
    else
        fail "man -l of the page" "$tmp/man.err"
    fi
    "$kladder" help | grep -o -- '^  --[a-z-]*' | sort -u >"$tmp/options"
    missing=$(while read -r o; do grep -q -- "$o" "$tmp/man.txt" || echo "$o"; done <"$tmp/options")
    [ -z "$missing" ] && ok "the page documents all $(wc -l <"$tmp/options") options" ||
        fail "the man page lacks: $missing"
else
    echo "no man or nroff here (scripts/setup.sh --tests installs man-db): the page is not rendered"
fi
[ $fails = 0 ] || exit 1
