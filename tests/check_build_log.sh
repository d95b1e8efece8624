#!/usr/bin/env bash
# What a compiler says about a successful build is kept, never printed: a
# user kernel whose source carries a `#warning` builds, runs and verifies;
# neither standard output nor standard error shows the warning; the JSON
# report's build_logs holds it once (the kernel's file and entry, its options,
# the message); the table says how many builds printed messages; the HTML report
# made from the JSON shows them under "Compiler messages". PoCL's kernel
# cache is off, so the compiler runs (and warns) every time.
# usage: check_build_log.sh KLADDER
set -u
kladder=$1
. "$(dirname "$0")/lib.sh" # $tmp, ok, fail
export KLADDER_CACHE_DIR=$tmp/cache POCL_KERNEL_CACHE=0
"$kladder" template gemm >"$tmp/warn.cl" 2>/dev/null
sed -i 's|^__kernel void gemm|#warning kladder-test-message\n__kernel void gemm|' "$tmp/warn.cl"
grep -q '^#warning kladder-test-message' "$tmp/warn.cl" || { echo "FAIL: sed did not apply"; exit 1; }

"$kladder" gemm --size 32 --rung warn --kernel "$tmp/warn.cl" --warmup 0 --repeats 1 --min-time 0 \
    --json "$tmp/run.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 0 ] || ! grep -Eq '^warn +verified' "$tmp/out"; then
    fail "a kernel with a #warning: exit $rc; expected it built, run and verified" "$tmp/out" "$tmp/err"
elif grep -q 'kladder-test-message' "$tmp/out" "$tmp/err"; then
    fail "the compiler's warning reached the terminal" "$tmp/out" "$tmp/err"
else
    ok "a kernel with a #warning runs verified, and the warning is not printed"
fi
if python3 - "$tmp/run.json" "$tmp/warn.cl" <<'PY'; then
import json, sys
logs = json.load(open(sys.argv[1])).get("build_logs") or []
mine = [b for b in logs if b.get("kernel") == "user:" + sys.argv[2] + " gemm"]
sys.exit(not (len(mine) == 1 and mine[0]["log"].count("kladder-test-message") == 1 and "-DTX=" in mine[0]["options"]))
PY
    ok "build_logs holds the user kernel's warning with its file, entry and options"
else
    fail "build_logs lacks the user kernel's warning" "$tmp/run.json"
fi
grep -Eq '^compiler: [0-9]+ builds? printed messages' "$tmp/out" &&
    ok "the table says: $(grep '^compiler:' "$tmp/out" | cut -c1-60)..." ||
    fail "no \"compiler:\" line in the table" "$tmp/out"
if "$kladder" report "$tmp/run.json" -o "$tmp/run.html" >/dev/null 2>"$tmp/rep.err" &&
    grep -q 'Compiler messages' "$tmp/run.html" && grep -q 'kladder-test-message' "$tmp/run.html"; then
    ok "the HTML report shows the compiler's messages"
else
    fail "the HTML report does not show the compiler's messages" "$tmp/rep.err"
fi
[ "$fails" -eq 0 ] || exit 1
