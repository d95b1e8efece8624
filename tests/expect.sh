#!/usr/bin/env bash
# usage: expect.sh CODE REGEX COMMAND [ARGS...]
# Runs COMMAND and passes when it exits with CODE and its output (stdout and
# stderr together) matches the extended regular expression REGEX.
code=$1
pattern=$2
shift 2
out=$("$@" 2>&1)
rc=$?
if [ "$rc" -ne "$code" ]; then
    printf 'FAIL: exit %s, expected %s\n%s\n' "$rc" "$code" "$out"
    exit 1
fi
if ! grep -Eq -- "$pattern" <<<"$out"; then
    printf 'FAIL: output does not match /%s/\n%s\n' "$pattern" "$out"
    exit 1
fi
printf 'ok: exit %s, output matches /%s/\n' "$rc" "$pattern"
