#!/usr/bin/env bash
# `kladder article` on PoCL (tests/article.cmake):
#   ladder W ARGS...  the article of ladder W at a small size, as a page (kladder article W
#                     ..., the run's JSON beside it) and as Markdown (kladder article RUN.json --format md, from
#                     the run's JSON), each checked by check_article.py: every rung a
#                     section in ladder order,
#                     none empty, the page well-formed with its links resolving, the
#                     Markdown parsed, every diff applying to the rung below's source
#   saved             the article of a saved run, from its JSON alone, in under a second;
#                     and of a run older than schema version 3, which the page says
#   bad               bad input: a word that is neither a ladder nor a file, another
#                     program's JSON, a truncated run, a path that cannot be written, the
#                     run's own file as the output, a kernel changed since the run (and
#                     --force, which marks it), a Markdown folder over a folder of other
#                     files: one sentence and a non-zero exit, nothing left at the path
#   browser           the page in headless Chromium: a screenshot of the first screen and
#                     of a rung's section kept as the test's artefacts (tests/work/...)
# usage: check_article.sh KLADDER SOURCE_DIR MODE [ARGS...]
set -u
kladder=$1
src=$2
mode=$3
shift 3
. "$(dirname "$0")/lib.sh" # $tmp, ok, fail
py="python3 $src/tests/check_article.py"
# Without libgit2 there are no diffs: skipped, visibly; in CI it is required (setup.sh installs it).
if "$kladder" article /dev/null 2>&1 | grep -q "without libgit2"; then
    [ "${CI:-}" = true ] && { echo "FAIL: kladder was built without libgit2"; exit 1; }
    echo "kladder was built without libgit2 (libgit2-dev): skipped"
    exit 77
fi
small=(--warmup 0 --repeats 5 --min-time 0)

# run CODE NAME ARGS...: kladder ARGS, stdout and stderr in $tmp/NAME.out; 0 when it exits CODE.
run() {
    local code=$1 name=$2
    shift 2
    "$kladder" "$@" >"$tmp/$name.out" 2>&1
    rc=$?
    [ "$rc" -eq "$code" ] || { fail "kladder $*: exit $rc, expected $code" "$tmp/$name.out"; return 1; }
}

# expect CODE REGEX ARGS...: kladder ARGS exits CODE and says REGEX.
expect() {
    local code=$1 re=$2
    shift 2
    run "$code" expect "$@" || return 1
    if grep -Eq -- "$re" "$tmp/expect.out"; then
        ok "kladder $*: exit $code, $(head -c 160 "$tmp/expect.out" | tr '\n' ' ')"
    else
        fail "kladder $*: the message does not match /$re/" "$tmp/expect.out"
    fi
}

# A gemm run and its JSON, for the saved, bad and browser cases.
gemm_run() {
    run 0 gemm gemm --size 9 --rung 07,08,09,10,11 "${small[@]}" --json "$tmp/gemm.json" \
        --article "$tmp/gemm.html" || exit 1
}

case $mode in
ladder)
    w=$1
    shift
    if run 0 page article "$w" "$@" "${small[@]}" --json "$tmp/run.json" -o "$tmp/page.html"; then
        $py html "$tmp/page.html" "$tmp/run.json" || fails=$((fails + 1))
    fi
    if run 0 md article "$tmp/run.json" --format md -o "$tmp/folder"; then
        $py md "$tmp/folder" "$tmp/run.json" "$src/kernels" || fails=$((fails + 1))
        leftover=$(find "$tmp" -maxdepth 1 -name 'folder.*')
        [ -z "$leftover" ] && ok "no temporary folder left beside the article's" ||
            fail "a temporary folder left: $leftover"
    fi
    ;;
saved)
    gemm_run
    t0=$(date +%s%N)
    run 0 saved article "$tmp/gemm.json" -o "$tmp/saved.html" || exit 1
    ms=$((($(date +%s%N) - t0) / 1000000))
    $py html "$tmp/saved.html" "$tmp/gemm.json" || fails=$((fails + 1))
    [ "$ms" -lt 1000 ] && ok "the article of a saved run in $ms ms" ||
        fail "the article of a saved run took $ms ms (more than a second)"
    # A run older than schema version 3: no sources or values recorded; the page says so.
    python3 - "$tmp/gemm.json" "$tmp/old.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
run["schema_version"] = 2
for r in run["results"]:
    r.pop("source", None)
    r.pop("values", None)
json.dump(run, open(sys.argv[2], "w"))
PY
    if run 0 old article "$tmp/old.json" -o "$tmp/old.html"; then
        grep -q "the sources shown are today's" "$tmp/old.html" &&
            ok "an older run's article says its sources are today's" ||
            fail "an older run's article does not say its sources are today's" "$tmp/old.html"
        $py html "$tmp/old.html" "$tmp/old.json" || fails=$((fails + 1))
    fi
    ;;
bad)
    gemm_run
    expect 2 'gemn.*neither a ladder .*nor a run' article gemn
    echo '{"name": "another program"}' >"$tmp/other.json"
    expect 2 'not a kladder run report' article "$tmp/other.json" -o "$tmp/x.html"
    head -c 2000 "$tmp/gemm.json" >"$tmp/cut.json"
    expect 2 'cut.json: ' article "$tmp/cut.json" -o "$tmp/x.html"
    [ ! -e "$tmp/x.html" ] && ok "nothing left at the path" || fail "a page was left at the path"
    expect 2 'cannot write the article /nonexistent/' article "$tmp/gemm.json" -o /nonexistent/a.html
    expect 2 'would overwrite' article "$tmp/gemm.json" -o "$tmp/gemm.json"
    # A kernel changed since the run: refused, then written with --force and marked.
    cp -r "$src/kernels" "$tmp/kernels"
    echo "/* changed */" >>"$tmp/kernels/opencl/gemm/10_tiled.cl"
    expect 2 'opencl/gemm/10_tiled.cl has changed since the run.*--force' \
        article "$tmp/gemm.json" --kernel-dir "$tmp/kernels" -o "$tmp/changed.html"
    [ ! -e "$tmp/changed.html" ] && ok "no page for a changed source" ||
        fail "a page was written for a changed source"
    if run 0 forced article "$tmp/gemm.json" --kernel-dir "$tmp/kernels" --force \
        -o "$tmp/changed.html"; then
        grep -q 'has changed since the run' "$tmp/changed.html" &&
            ok "--force writes the page, the changed source marked" ||
            fail "--force: the changed source is not marked" "$tmp/changed.html"
    fi
    mkdir "$tmp/other"
    echo keep >"$tmp/other/notes.txt"
    expect 2 'exists and is no article.s folder' article "$tmp/gemm.json" --format md -o "$tmp/other"
    [ "$(cat "$tmp/other/notes.txt")" = keep ] && ok "the other folder is as it was" ||
        fail "the other folder was changed"
    expect 2 'unknown format "pdf" \(html or md\)' article "$tmp/gemm.json" --format pdf
    ;;
browser)
    browser=""
    for b in chromium chromium-browser google-chrome; do
        command -v "$b" >/dev/null && { browser=$b; break; }
    done
    if [ -z "$browser" ]; then
        echo "no Chromium (scripts/setup.sh --tests installs the chromium package); skipped"
        exit 77
    fi
    gemm_run
    for shot in top:1300,1400 long:1300,9000; do
        name=${shot%%:*}
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
            --no-first-run --disable-extensions --disable-dev-shm-usage \
            --force-device-scale-factor=1 --user-data-dir="$tmp/profile" \
            --window-size="${shot#*:}" --screenshot="$PWD/article-$name.png" \
            "file://$tmp/gemm.html" >"$tmp/browser.log" 2>&1
        if [ -s "$PWD/article-$name.png" ] && python3 - "$src/tests" "$PWD/article-$name.png" \
            "$name" >"$tmp/colours.log" 2>&1 <<'PY' &&
import sys
sys.path.insert(0, sys.argv[1])
from check_report import read_png
W, H, at = read_png(sys.argv[2])
seen = {at(x, y) for y in range(0, H, 2) for x in range(0, W, 4)}
# The long screenshot reaches the diffs: added and removed lines in their colours.
want = {(0xE6, 0xFF, 0xEC): "added lines", (0xFF, 0xEB, 0xE9): "removed lines"}
missing = [w for c, w in want.items() if c not in seen] if sys.argv[3] == "long" else []
print("missing: %s" % missing if missing else "the diff blocks are drawn")
sys.exit(1 if missing else 0)
PY

            python3 "$src/tests/check_report.py" screenshot "$PWD/article-$name.png" \
                "$tmp/gemm.html" >"$tmp/shot.log" 2>&1; then
            ok "$browser drew the article ($name): $PWD/article-$name.png"
        else
            fail "$browser drew no article ($name)" "$tmp/browser.log" "$tmp/shot.log" \
                "$tmp/colours.log"
        fi
    done
    ;;
*)
    echo "usage: $0 KLADDER SOURCE_DIR ladder|saved|bad|browser" >&2
    exit 2
    ;;
esac
[ "$fails" -eq 0 ] || exit 1
