#!/usr/bin/env bash
# Reports, charts and comparisons of saved runs (tests/report.cmake).
# usage: check_report.sh KLADDER DIR MODE [ARGS...]
#
#   setup          runs each workload once, tiny, into DIR (the fixture every
#                  other test reads): gemm (with --report), copy --sweep, blur
#                  with --output (and --report), gemv, rowdot
#   schema         every run validates against docs/kladder-run.schema.json
#   svg            each chart as SVG is well-formed (xmllint) and its bars and
#                  points are the JSON's numbers; failed rungs, peers and roofs
#                  from a doctored run; the HTML pages are well-formed and
#                  self-contained
#   browser        the reports opened in headless Chromium: the screenshots
#                  show every chart (skipped, 77, only where no Chromium is)
#   shapes         a GEMM shape sweep (the gemm run doctored into three shapes with
#                  libraries): its chart's ratios, the page's section, bad sweeps
#   radii          blur runs at several σ (real, and doctored with NPP's row and a copy
#                  bandwidth): the radius chart's points, the page's section and
#                  sentences, and the sets of runs that have no chart
#   compare CASE   identical | regression | newfail | faster | config | mismatch | force |
#                  samples
#   bad CASE       a clear message and the right exit code for bad files and paths
#   progress       the progress line: on a terminal, not in a pipe, not with --quiet
#   mainjob        plain `kladder` writes kladder-report.html and ends with its path
set -u
kladder=$1
dir=$2
mode=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
py="python3 $here/check_report.py"
schema=$here/../docs/kladder-run.schema.json
q=(--warmup 0 --repeats 3 --min-time 0)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# run CODE ARGS...: kladder ARGS exits CODE; its output is in $tmp/out.
run() {
    local code=$1 rc
    shift
    "$kladder" "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne "$code" ]; then
        fail "kladder $*: exit $rc, expected $code: $(head -c 2000 "$tmp/out")"
        return 1
    fi
}

# expect CODE REGEX ARGS...: kladder ARGS exits CODE with REGEX in its output.
expect() {
    local code=$1 pattern=$2
    shift 2
    run "$code" "$@" || return 1
    if ! grep -Eq -- "$pattern" "$tmp/out"; then
        fail "kladder $*: output does not match /$pattern/: $(head -c 2000 "$tmp/out")"
        return 1
    fi
    echo "ok: kladder $*: exit $code, $(grep -E -- "$pattern" "$tmp/out" | head -n 1)"
}

xml_ok() {
    if command -v xmllint >/dev/null; then
        xmllint --noout "$1" || fail "$1 is not well-formed XML"
    else
        python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1" ||
            fail "$1 is not well-formed XML"
    fi
}

need_runs() {
    for f in gemm sweep blur gemv rowdot; do
        [ -s "$dir/$f.json" ] || { echo "FAIL: $dir/$f.json is missing (the report_setup fixture failed)"; exit 1; }
    done
}

case $mode in
setup)
    rm -rf "$dir"
    mkdir -p "$dir" || exit 1
    cd "$dir" || exit 1
    # Relative paths, as a person would type them: the blur report finds its pictures.
    run 0 gemm --size 16 --rung host_ikj,01,03,10 "${q[@]}" --json gemm.json --report gemm.html
    run 0 copy --sweep --max-n 2048 --rung ilp1,ilp4 "${q[@]}" --json sweep.json
    run 0 blur --width 24 --height 16 --pixel uchar4 --radius 2 --rung 01,03 "${q[@]}" \
        --output blur.png --json blur.json --report blur.html
    run 0 gemv --size 32 --rung 01,11 "${q[@]}" --json gemv.json
    run 0 rowdot --rows 32 --d 20 --rung 01,03 "${q[@]}" --json rowdot.json
    run 0 reduce --size 1000 --rung 00,09 "${q[@]}" --json reduce.json
    run 0 gemm --size 16 --type fp8 --rung 01 "${q[@]}" --json fp8.json
    run 0 scan --size 1000 --mode exclusive --rung 00,05 "${q[@]}" --json scan.json
    run 0 histogram --size 1000 --bins 7 --rung 00,04 "${q[@]}" --json histogram.json
    run 0 transpose --size 33,33 --place in --rung 00,05 "${q[@]}" --json transpose.json
    run 0 softmax --size 33,70 --op rmsnorm --rung 03,04 "${q[@]}" --json softmax.json
    for f in gemm.json sweep.json blur.json gemv.json rowdot.json reduce.json fp8.json scan.json \
        histogram.json transpose.json softmax.json gemm.html \
        blur.html blur.png; do
        [ -s "$f" ] || fail "$f was not written"
    done
    [ $fails -eq 0 ] && echo "ok: eleven runs in $dir"
    ;;
schema)
    need_runs
    $py schema "$schema" "$dir"/{gemm,sweep,blur,gemv,rowdot,reduce,fp8,scan,histogram,transpose,softmax}.json
    rc=$?
    [ $rc -eq 77 ] && exit 77
    [ $rc -eq 0 ] || fails=$((fails + 1))
    # A run that had measured ceilings carries them, and still validates.
    $py doctor "$dir/gemm.json" "$tmp/roofs.json" failed_peer_roofs &&
        $py schema "$schema" "$tmp/roofs.json" || fails=$((fails + 1))
    ;;
svg)
    need_runs
    for spec in gemm:ladder gemm:roofline sweep:sweep blur:ladder gemv:ladder gemv:roofline \
                rowdot:ladder rowdot:roofline; do
        run=${spec%%:*} chart=${spec##*:}
        run 0 report "$dir/$run.json" --format svg --chart "$chart" -o "$tmp/$run-$chart.svg" || continue
        xml_ok "$tmp/$run-$chart.svg"
        $py "$chart" "$tmp/$run-$chart.svg" "$dir/$run.json" || fails=$((fails + 1))
    done
    # The default chart of a sweep is the sweep.
    run 0 report "$dir/sweep.json" --format svg -o "$tmp/default.svg" &&
        { grep -q 'class="chart sweep"' "$tmp/default.svg" || fail "a sweep's default chart is not the sweep"; }
    # Failed and skipped rungs, a peer, and measured roofs.
    $py doctor "$dir/gemm.json" "$tmp/doctored.json" failed_peer_roofs || fails=$((fails + 1))
    for chart in ladder roofline; do
        run 0 report "$tmp/doctored.json" --format svg --chart "$chart" -o "$tmp/doctored-$chart.svg" || continue
        xml_ok "$tmp/doctored-$chart.svg"
        $py "$chart" "$tmp/doctored-$chart.svg" "$tmp/doctored.json" || fails=$((fails + 1))
    done
    # The pages: --report's, and one of every run (plus the doctored one and a blur
    # without pictures) from kladder report.
    $py doctor "$dir/blur.json" "$tmp/blur-noimages.json" noimages || fails=$((fails + 1))
    all=("$dir"/{gemm,sweep,blur,gemv,rowdot}.json "$tmp/doctored.json" "$tmp/blur-noimages.json")
    run 0 report "${all[@]}" -o "$tmp/all.html" && xml_ok "$tmp/all.html" &&
        { $py html "$tmp/all.html" "${all[@]}" || fails=$((fails + 1)); }
    for f in gemm blur; do
        xml_ok "$dir/$f.html"
        $py html "$dir/$f.html" "$dir/$f.json" || fails=$((fails + 1))
    done
    ;;
shapes)
    need_runs
    # A shape sweep made of the fixture's GEMM run as if of three shapes, with libraries
    # beside it (an fp32 one and a tf32 rung with its own): the chart's points are the
    # runs' ratios, shapes in order of work; the page leads with it; bad sweeps refused.
    i=0
    for s in 300:265:67:1.2 64:64:64:0.5 1031:1337:97:0.9; do
        i=$((i + 1))
        $py doctor "$dir/gemm.json" "$tmp/shape$i.json" "shape:$s" || fails=$((fails + 1))
    done
    sweep=("$tmp"/shape{1,2,3}.json)
    run 0 report "${sweep[@]}" --format svg --chart shapes -o "$tmp/shapes.svg" &&
        xml_ok "$tmp/shapes.svg" && { $py shapes "$tmp/shapes.svg" "${sweep[@]}" || fails=$((fails + 1)); }
    run 0 report "${sweep[@]}" "$dir/sweep.json" -o "$tmp/shapes.html" && xml_ok "$tmp/shapes.html" &&
        { $py html "$tmp/shapes.html" "${sweep[@]}" "$dir/sweep.json" || fails=$((fails + 1)); } &&
        { grep -q '<section class="shapes" id="shapes">' "$tmp/shapes.html" &&
            grep -q '<b>tf32</b>: at 0.95× the library or more at 1 of 3 shapes' "$tmp/shapes.html" &&
            echo "ok: the page leads with the shapes and their count" ||
            fail "no shapes section, or not its count: $(grep -o '<li><b>tf32.*' "$tmp/shapes.html")"; }
    run 0 report "$dir/gemm.json" "$dir/sweep.json" -o "$tmp/one.html" &&
        { ! grep -q 'class="shapes"' "$tmp/one.html" && echo "ok: no shapes section for one GEMM run" ||
            fail "a shapes section for one GEMM run"; }
    expect 2 'no shape chart: it takes two or more GEMM runs \(1 given\)' \
        report "$tmp/shape1.json" "$dir/sweep.json" --format svg --chart shapes
    expect 2 'no shape chart: the GEMM runs are all of one shape \(16×16×16\)' \
        report "$dir/gemm.json" "$dir/gemm.json" --format svg --chart shapes
    $py doctor "$dir/gemm.json" "$tmp/nopeer.json" othersize >/dev/null || fails=$((fails + 1))
    expect 2 'no shape chart: no run has both a verified rung and a verified library' \
        report "$dir/gemm.json" "$tmp/nopeer.json" --format svg --chart shapes
    expect 2 'one chart of one run \(or --chart shapes or radii of several\)' \
        report "$dir/gemm.json" "$tmp/nopeer.json" --format svg --chart ladder
    ;;
radii)
    need_runs
    # Float blur runs at σ 1, 2 and 4 (radius 3, 6 and 12) and a uchar4 one beside the
    # fixture's, all real: a chart per pixel type and size, each point the runs' time.
    q1=(--warmup 0 --repeats 1 --min-time 0)
    for s in 1 2 4; do
        run 0 blur --width 64 --height 64 --sigma $s --rung 01,02 "${q1[@]}" --json "$tmp/s$s.json" ||
            exit 1
    done
    run 0 blur --width 24 --height 16 --pixel uchar4 --sigma 1.5 --rung 01,02 "${q1[@]}" \
        --json "$tmp/u.json" || exit 1
    real=("$tmp"/s{1,2,4}.json "$dir/blur.json" "$tmp/u.json")
    run 0 report "${real[@]}" --format svg --chart radii -o "$tmp/radii.svg" &&
        xml_ok "$tmp/radii.svg" && { $py radii "$tmp/radii.svg" "${real[@]}" || fails=$((fails + 1)); }
    run 0 report "${real[@]}" "$dir/gemm.json" -o "$tmp/radii.html" && xml_ok "$tmp/radii.html" &&
        { $py html "$tmp/radii.html" "${real[@]}" "$dir/gemm.json" || fails=$((fails + 1)); } &&
        { grep -q '<section class="radii" id="radii">' "$tmp/radii.html" &&
            [ "$(grep -o 'class="chart radii"' "$tmp/radii.html" | wc -l)" -eq 2 ] &&
            grep -q '<li>float 64×64 on .*: radius 3–12 (σ 1–4), 3 runs; no memory floor' "$tmp/radii.html" &&
            grep -q '<li>uchar4 24×16 on .*: radius 2–5 (σ 1.5–2), 2 runs' "$tmp/radii.html" &&
            echo "ok: the page leads with a radius chart per pixel type and their sentences" ||
            fail "no radii section, not two charts, or not their sentences: $(grep -o '<li>[^<]*radius.*' "$tmp/radii.html")"; }
    # NPP and the floor (doctored copies): NPP verified at σ 1 and failing verification at
    # σ 2 and 4 (hollow, off its line, in no ratio); a copy bandwidth recorded at σ 1 and 2.
    for spec in 1:verified:10 2:failed:10 4:failed:0; do
        $py doctor "$tmp/s${spec%%:*}.json" "$tmp/d${spec%%:*}.json" "radii:${spec#*:}" ||
            fails=$((fails + 1))
    done
    doc=("$tmp"/d{1,2,4}.json)
    run 0 report "${doc[@]}" --format svg --chart radii -o "$tmp/npp.svg" &&
        xml_ok "$tmp/npp.svg" && { $py radii "$tmp/npp.svg" "${doc[@]}" || fails=$((fails + 1)); } &&
        { grep -q 'NPP fails verification' "$tmp/npp.svg" && echo "ok: the legend says NPP fails verification" ||
            fail "the chart's legend does not say NPP fails verification"; }
    run 0 report "${doc[@]}" -o "$tmp/npp.html" && xml_ok "$tmp/npp.html" &&
        { grep -q "the memory floor (2 of 3 runs record a copy bandwidth); NPP takes 3× kladder&#39;s best time (verified at 1 of 3 runs); NPP fails verification (its time is no result) at σ 2, 4</li>" "$tmp/npp.html" &&
            echo "ok: the sentence counts the floor, NPP's one result and its failures" ||
            fail "not the sentence of the doctored runs: $(grep -o '<li>float[^<]*' "$tmp/npp.html")"; }
    # Too few to draw: one blur run (no section), runs of two kinds, one radius twice.
    expect 2 'no radius chart: it takes two or more blur runs \(1 given\)' \
        report "$tmp/s1.json" "$dir/gemm.json" --format svg --chart radii
    run 0 report "$tmp/s1.json" "$dir/gemm.json" -o "$tmp/one.html" &&
        { ! grep -q 'class="radii"' "$tmp/one.html" && echo "ok: no radii section for one blur run" ||
            fail "a radii section for one blur run"; }
    expect 2 'no radius chart: no two blur runs share a pixel type, picture size and device' \
        report "$tmp/s1.json" "$dir/blur.json" --format svg --chart radii
    run 0 report "$tmp/s1.json" "$dir/blur.json" -o "$tmp/kinds.html" &&
        { grep -q '<p class="note">No radius chart: no two blur runs share' "$tmp/kinds.html" &&
            grep -q '<li>uchar4 24×16 on .*: 1 run, all of radius 2 (σ 2): no curve</li>' "$tmp/kinds.html" &&
            echo "ok: the section says why there is no chart" ||
            fail "the section does not say why there is no chart"; }
    expect 2 'no radius chart: the blur runs are all of one radius \(3, σ 1\)' \
        report "$tmp/s1.json" "$tmp/s1.json" --format svg --chart radii
    ;;
browser)
    need_runs
    browser=""
    for b in chromium chromium-browser google-chrome; do
        command -v "$b" >/dev/null && { browser=$b; break; }
    done
    if [ -z "$browser" ]; then
        echo "no Chromium (scripts/setup.sh --tests installs the chromium package); skipped"
        exit 77
    fi
    run 0 report "$dir/sweep.json" -o "$tmp/sweep.html"
    $py doctor "$dir/gemm.json" "$tmp/doctored.json" failed_peer_roofs &&
        run 0 report "$tmp/doctored.json" -o "$tmp/doctored.html"
    # The --report pages of two runs, and two pages of kladder report.
    for page in "$dir/gemm.html" "$dir/blur.html" "$tmp/sweep.html" "$tmp/doctored.html"; do
        [ -s "$page" ] || continue
        shot=$tmp/$(basename "$page" .html).png
        rm -f "$shot"
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
            --no-first-run --disable-extensions --disable-dev-shm-usage --force-device-scale-factor=1 \
            --user-data-dir="$tmp/profile" --window-size=1300,2600 --screenshot="$shot" \
            "file://$page" >"$tmp/browser.log" 2>&1
        if [ ! -s "$shot" ]; then
            fail "$browser wrote no screenshot of $page: $(tail -n 5 "$tmp/browser.log")"
            continue
        fi
        $py screenshot "$shot" "$page" || fails=$((fails + 1))
    done
    ;;
compare)
    need_runs
    g=$dir/gemm.json
    case ${1:-} in
    identical)
        expect 0 "ok: no rung slowed beyond noise by more than 0%" compare "$g" "$g" --fail-on-regression 0 &&
            expect 0 "[0-9]+ rungs timed in both: 0 faster, 0 slower" compare "$g" "$g" ;;
    regression)
        rung=$($py doctor "$g" "$tmp/slow.json" slower) || exit 1
        expect 1 "FAIL: 1 regression beyond noise by more than 10%: $rung" \
            compare "$g" "$tmp/slow.json" --fail-on-regression 10 &&
            expect 1 "^$rung .*REGRESSION: slower beyond noise" compare "$g" "$tmp/slow.json" --fail-on-regression=10 &&
            # Without the option it is reported, and the exit code stays 0.
            expect 0 "^$rung .* slower beyond noise" compare "$g" "$tmp/slow.json" &&
            # Slower, but by less than a large threshold: not a regression.
            expect 0 "ok: no rung slowed beyond noise by more than 500%" compare "$g" "$tmp/slow.json" --fail-on-regression 500 ;;
    newfail)
        rung=$($py doctor "$g" "$tmp/fail.json" newfail) || exit 1
        expect 1 "^$rung .*REGRESSION: failed, was verified" compare "$g" "$tmp/fail.json" --fail-on-regression 10 &&
            # A rung skipped (or failed) in both runs is neither lost nor "timed in one".
            $py doctor "$g" "$tmp/both.json" failed_peer_roofs &&
            expect 0 "; 2 timed in neither\.$" compare "$tmp/both.json" "$tmp/both.json" &&
            { ! grep -q "timed in one of them only" "$tmp/out" || fail "skipped in both counted as timed in one"; } ;;
    config)
        # The one row of a rung under another config (its preset changed): paired, judged, and
        # the configs named.
        rung=$($py doctor "$g" "$tmp/preset.json" preset) || exit 1
        expect 0 "^$rung .* slower beyond noise" compare "$g" "$tmp/preset.json" &&
            expect 0 "^ +\(the configs differ: old .*, new preset sm_90 BN=64\)$" \
                compare "$g" "$tmp/preset.json" &&
            { ! grep -q "only in" "$tmp/out" || fail "a rung under another config unpaired"; } ;;
    faster)
        rung=$($py doctor "$g" "$tmp/fast.json" faster) || exit 1
        expect 0 "^$rung .*faster beyond noise" compare "$g" "$tmp/fast.json" --fail-on-regression 0 ;;
    mismatch)
        key=$($py doctor "$g" "$tmp/size.json" othersize) || exit 1
        $py doctor "$g" "$tmp/dev.json" otherdevice || exit 1
        expect 2 "not runs of the same ladder: workload gemm vs copy; M [0-9]+ vs \(none\)" compare "$g" "$dir/sweep.json" &&
            { grep -q "^(--force compares them anyway)" "$tmp/out" || fail "no word of --force"; } &&
            expect 2 "not runs of the same ladder: $key [0-9]+ vs [0-9]+" compare "$g" "$tmp/size.json" &&
            expect 2 "not runs of the same ladder: device \".*\" vs \"Another Device 9000\"" compare "$g" "$tmp/dev.json" ;;
    force)
        $py doctor "$g" "$tmp/dev.json" otherdevice || exit 1
        $py doctor "$g" "$tmp/drv.json" otherdriver || exit 1
        expect 0 "forced: the runs differ: device" compare "$g" "$tmp/dev.json" --force &&
            expect 0 "forced: the runs differ: workload gemm vs copy" compare "$g" "$dir/sweep.json" --force &&
            # A new driver or seed is what comparisons are for: noted, not refused.
            expect 0 "note: seed 1 vs 7; driver .* vs 99.9" compare "$g" "$tmp/drv.json" ;;
    samples)
        # A run that kept 400 launch times: 20 A/A pairs dealt from it (the times shuffled and
        # halved) never regress by 5 %, and their verdicts come from the interval; a half's
        # launch times, made steady, then 25 % and 50 % slower: with one run a side, undecided
        # until the device's run-to-run spread is known, slower beyond a spread of 2 % (the
        # second a regression past 10 %), undecided within one of 30 % (the statistic's power
        # at 2-5 % is test_units' test_shift); and judged in cycles, not slower at all, where
        # the clock fell as much. A rung of about 0.3 ms: a few-us
        # launch on a loaded PoCL has two modes, and halves of it can sit in different ones;
        # with another process beside it the real times once spread so far that 25 % slower
        # was rightly undecided, so the slowdowns are judged on steady times.
        run 0 rowdot --rows 1024 --d 256 --rung 01 --warmup 1 --repeats 400 --min-time 0 \
            --json "$tmp/many.json" || exit 1
        differ=0
        for k in $(seq 1 20); do
            $py doctor "$tmp/many.json" "$tmp/a.json" "split:$k:a" &&
                $py doctor "$tmp/many.json" "$tmp/b.json" "split:$k:b" || exit 1
            run 0 compare "$tmp/a.json" "$tmp/b.json" --fail-on-regression 5 || continue
            grep -q "^ok: no rung slowed beyond noise by more than 5%" "$tmp/out" ||
                fail "A/A pair $k: no ok line: $(cat "$tmp/out")"
            grep -Eq "^01_naive .*(same|undecided|slower|faster) \(95% CI" "$tmp/out" ||
                fail "A/A pair $k: no interval verdict: $(cat "$tmp/out")"
            differ=$((differ + $(grep -Ec "^01_naive .* (slower|faster) \(95% CI" "$tmp/out")))
        done
        echo "ok: 20 A/A pairs, no regression by 5%; $differ of 20 verdicts slower or faster"
        $py doctor "$tmp/many.json" "$tmp/a.json" "split:1:a" &&
            $py doctor "$tmp/many.json" "$tmp/b.json" "split:1:b" &&
            $py doctor "$tmp/a.json" "$tmp/as.json" steady &&
            $py doctor "$tmp/as.json" "$tmp/b25.json" "scale:1.25" &&
            $py doctor "$tmp/as.json" "$tmp/b50.json" "scale:1.5" &&
            $py doctor "$tmp/as.json" "$tmp/as_2.json" "spread:2" &&
            $py doctor "$tmp/b25.json" "$tmp/b25_2.json" "spread:2" &&
            $py doctor "$tmp/b50.json" "$tmp/b50_2.json" "spread:2" &&
            $py doctor "$tmp/b25.json" "$tmp/b25_30.json" "spread:30" || exit 1
        expect 0 "^01_naive .* undecided \(95% CI \+[0-9.]+% to \+[0-9.]+%\): a side of one run, and the device's run-to-run spread .* not measured .*--runs 5" \
            compare "$tmp/as.json" "$tmp/b25.json" &&
            expect 0 "^01_naive .* slower \(95% CI \+[0-9.]+% to \+[0-9.]+%\)" compare "$tmp/as_2.json" "$tmp/b25_2.json" &&
            expect 1 "^01_naive .*REGRESSION: slower \(95% CI \+" compare "$tmp/as_2.json" "$tmp/b50_2.json" \
                --fail-on-regression 10 &&
            expect 0 "^01_naive .* undecided \(95% CI \+[0-9.]+% to \+[0-9.]+%\): a side of one run, and the change is within the device's run-to-run spread of 30%" \
                compare "$tmp/as.json" "$tmp/b25_30.json" &&
            expect 0 "[0-9]+ rungs timed in both: 0 faster, 0 slower, [0-9]+ same, [0-9]+ undecided" \
                compare "$g" "$g" || exit 1
        # Repeated runs a side: pooled, the runs resampled too; a list with a hole is refused.
        # The second steady run of side a is the first's times 1 % longer, not another
        # split's: a loaded PoCL's launches can fall in two modes, and a half's median in
        # either (once about 48 % apart, which left as + as2 against b25 undecided).
        $py doctor "$tmp/many.json" "$tmp/a2.json" "split:2:a" &&
            $py doctor "$tmp/many.json" "$tmp/b2.json" "split:2:b" &&
            $py doctor "$tmp/as.json" "$tmp/as2.json" "scale:1.01" || exit 1
        expect 0 "^old: .*a.json .* and 1 more file, their runs pooled" \
            compare "$tmp/a.json,$tmp/a2.json" "$tmp/b.json,$tmp/b2.json" --fail-on-regression 5 &&
            { grep -q "^ok: no rung slowed beyond noise by more than 5%" "$tmp/out" ||
                  fail "two A/A runs a side regressed: $(cat "$tmp/out")"; } &&
            expect 0 "^01_naive .* slower \(95% CI \+" \
                compare "$tmp/as.json,$tmp/as2.json" "$tmp/b25.json,$tmp/b25.json" &&
            expect 2 "an empty file name in the list" compare "$tmp/a.json," "$tmp/b.json" &&
            expect 2 "cannot open .*nope.json" compare "$tmp/a.json,$tmp/nope.json" "$tmp/b.json" || exit 1
        # A's own launch times 25 % slower at a clock 20 % lower: the clock moved, so the
        # verdict is in cycles, and not slower.
        $py doctor "$tmp/as_2.json" "$tmp/a2000.json" "clock:2000" &&
            $py doctor "$tmp/b25_2.json" "$tmp/b1600.json" "clock:1600" || exit 1
        expect 0 "^01_naive .* (same|undecided) \(95% CI [-+0-9.]+% to [-+0-9.]+% in cycles: the clock moved 2000 → 1600 MHz\)" \
            compare "$tmp/a2000.json" "$tmp/b1600.json" || exit 1
        # Every other launch 25 % longer at a clock 20 % lower (each launch's clock kept): the
        # same cycles launch by launch, so not slower in cycles (same, or undecided within the
        # launches' noise); the mean clock (1800) alone would leave it slower, and say nothing.
        $py doctor "$tmp/as_2.json" "$tmp/al2000.json" "launchclock:2000" &&
            $py doctor "$tmp/as_2.json" "$tmp/asplit.json" "launchclock:split" || exit 1
        expect 0 "^01_naive .* (same|undecided) \(95% CI [-+0-9.]+% to [-+0-9.]+%( in cycles: the clock moved 2000 → 1800 MHz\)|.*; in cycles (same|undecided) \(2000 → 1800 MHz\))" \
            compare "$tmp/al2000.json" "$tmp/asplit.json" ;;
    *) echo "usage: check_report.sh KLADDER DIR compare identical|regression|newfail|faster|mismatch|force|samples"; exit 2 ;;
    esac
    ;;
bad)
    g=$dir/gemm.json
    case ${1:-} in
    missing) expect 2 "kladder report: cannot open $tmp/nosuch.json: No such file or directory" report "$tmp/nosuch.json" ;;
    empty)
        : >"$tmp/empty.json"
        expect 2 "empty.json: not valid JSON: the file is empty" report "$tmp/empty.json" ;;
    truncated)
        need_runs
        # Cut after the line that opens the rows: inside an array, on a character boundary
        # whatever the device's strings and the numbers' lengths (a byte count could split a
        # UTF-8 character or land elsewhere from run to run).
        awk '{ print } /"results": \[/ { exit }' "$g" >"$tmp/half.json"
        expect 2 "half.json: not valid JSON: line [0-9]+, column [0-9]+: the file ends .*\(is it truncated\?\)" report "$tmp/half.json" ;;
    not_json)
        printf 'workload: gemm\n' >"$tmp/yaml.json"
        expect 2 "yaml.json: not valid JSON: line 1, column 1: expected a value" report "$tmp/yaml.json" ;;
    malformed)
        printf '{"schema_version": 1,\n "workload": "gemm",}\n' >"$tmp/comma.json"
        expect 2 "comma.json: not valid JSON: line 2, column 21: expected a member name in double quotes \(no trailing commas\)" report "$tmp/comma.json" ;;
    wrong_version)
        need_runs
        python3 "$here/check_report.py" doctor "$g" "$tmp/v4.json" v4 &&
            expect 2 "v4.json: schema_version 4 is newer than this kladder reads \(3\)" report "$tmp/v4.json" ;;
    no_version)
        need_runs
        python3 "$here/check_report.py" doctor "$g" "$tmp/old.json" noversion &&
            expect 2 "old.json: no schema_version: a run report from a kladder older than this format" report "$tmp/old.json" ;;
    not_a_run)
        printf '[1, 2, 3]\n' >"$tmp/list.json"
        expect 2 "list.json: not a kladder run report: the file holds an array" report "$tmp/list.json" ;;
    wrong_type)
        need_runs
        sed 's/"median_s": [0-9.e+-]*,/"median_s": "fast",/' "$g" >"$tmp/type.json"
        expect 2 "type.json: results\[0\] \"median_s\" should be a number or null, but is a string \(line [0-9]+, column [0-9]+\)" report "$tmp/type.json" ;;
    directory) expect 2 "cannot read $tmp: not a regular file" report "$tmp" ;;
    compare_bad)
        need_runs
        : >"$tmp/empty.json"
        expect 2 "kladder compare: .*empty.json: not valid JSON: the file is empty" compare "$g" "$tmp/empty.json" ;;
    output_unwritable)
        need_runs
        expect 2 "kladder report: cannot write $tmp/nonexistent/r.html: No such file or directory" report "$g" -o "$tmp/nonexistent/r.html" ;;
    output_full)
        need_runs
        expect 3 "writing /dev/full failed: No space left on device" report "$g" -o /dev/full ;;
    report_unwritable)
        # Refused before the device is opened or anything runs.
        expect 2 "cannot write $tmp/nonexistent/r.html: No such file or directory" gemm --size 4 --rung 01 "${q[@]}" --report "$tmp/nonexistent/r.html" &&
            { [ ! -e "$tmp/nonexistent" ] || fail "something was written"; } ;;
    no_chart)
        need_runs
        expect 2 "sweep.json has no roofline: its rows count bytes but no FLOPs" report "$dir/sweep.json" --format svg --chart roofline &&
            expect 2 "gemm.json is not a sweep" report "$g" --format svg --chart sweep ;;
    usage)
        expect 2 "give at least one run's JSON file" report &&
            expect 2 "unknown format \"pdf\" \(html or svg\)" report x.json --format pdf &&
            expect 2 "--format svg writes one chart of one run" report a.json b.json --format svg &&
            expect 2 "give two runs: OLD.json NEW.json" compare a.json &&
            expect 2 "--fail-on-regression: \"lots\" is not a percentage" compare a.json b.json --fail-on-regression lots &&
            expect 0 "fail-on-regression PCT" compare --help &&
            expect 0 "--chart NAME" report --help ;;
    *) echo "usage: check_report.sh KLADDER DIR bad CASE"; exit 2 ;;
    esac
    ;;
progress)
    if ! command -v script >/dev/null; then
        echo "no script(1) to give kladder a terminal; skipped"
        exit 77
    fi
    cmd="$kladder gemm --size 8 --rung 01,03 ${q[*]}"
    # On a terminal, after the delay (0 here): "[i/n] what", each line rewritten in place.
    KLADDER_PROGRESS_DELAY=0 script -qec "$cmd >/dev/null" /dev/null >"$tmp/tty" 2>&1
    if grep -q "kladder: \[1/2\] gemm 01_naive" "$tmp/tty" && grep -q "\[2/2\] gemm 03_private_acc" "$tmp/tty"; then
        echo "ok: on a terminal: $(tr '\r\033' '\n ' <"$tmp/tty" | grep -m1 '\[2/2\]')"
    else
        fail "no progress on a terminal: $(od -c "$tmp/tty" | head -n 8)"
    fi
    grep -q $'\033\[K' "$tmp/tty" || fail "the progress line is not cleared"
    # Not with --quiet, not before about two seconds, never in a pipe.
    KLADDER_PROGRESS_DELAY=0 script -qec "$cmd --quiet >/dev/null" /dev/null >"$tmp/quiet" 2>&1
    [ -s "$tmp/quiet" ] && fail "--quiet on a terminal printed: $(od -c "$tmp/quiet" | head -n 4)"
    # A run's first build can itself pass two seconds (NVRTC under a loaded machine): then the
    # progress is right, and this case cannot be judged.
    start=$(date +%s%N)
    script -qec "$cmd >/dev/null" /dev/null >"$tmp/quick" 2>&1
    took=$((($(date +%s%N) - start) / 1000000))
    if [ "$took" -lt 1800 ]; then
        [ -s "$tmp/quick" ] && fail "a run of $took ms printed progress: $(od -c "$tmp/quick" | head -n 4)"
    else
        echo "a quick run took $took ms here: whether it prints before two seconds is not judged"
    fi
    KLADDER_PROGRESS_DELAY=0 $cmd >/dev/null 2>"$tmp/pipe"
    [ -s "$tmp/pipe" ] && fail "progress in a pipe: $(od -c "$tmp/pipe" | head -n 4)"
    [ $fails -eq 0 ] && echo "ok: nothing with --quiet, in a quick run, or in a pipe"
    ;;
mainjob)
    mkdir "$tmp/work" && cd "$tmp/work" || exit 1
    # A first run (no ceilings cached) measures them first, caches them and says so in a line.
    export KLADDER_CACHE_DIR=$tmp/cache
    run 0 --size 8 --rung 01 "${q[@]}" || exit 1
    grep -q "^kladder: first run on this device: measured its ceilings in .* and cached them in $tmp/cache/ceilings-" "$tmp/out" &&
        echo "ok: the first main job measured the device's ceilings and cached them" ||
        fail "the first main job should measure and cache the ceilings: $(head -c 1500 "$tmp/out")"
    # What the compilers print goes into the build logs, never onto the run's output.
    ! grep -Eq "warnings? generated|^ptxas|^nvrtc" "$tmp/out" ||
        fail "compiler chatter in the main job's output: $(grep -E 'generated|ptxas|nvrtc' "$tmp/out" | head -3)"
    last=$(tail -n 1 "$tmp/out")
    if [ "$last" = "report: $tmp/work/kladder-report.html" ] && [ -s kladder-report.html ]; then
        echo "ok: the main job ends with \"$last\""
        xml_ok kladder-report.html
    else
        fail "the main job ends with \"$last\", not the report's path"
    fi
    run 0 --size 8 --rung 01 "${q[@]}" --report other.html &&
        { [ "$(tail -n 1 "$tmp/out")" = "report: $tmp/work/other.html" ] || fail "--report: $(tail -n 1 "$tmp/out")"; }
    ! grep -q "^kladder: first run on this device" "$tmp/out" || fail "the second main job measured the ceilings again"
    grep -q "^ceilings: .*(the first run's brief search, " "$tmp/out" &&
        echo "ok: the second main job's roofs name the brief search that measured them" ||
        fail "the second main job's ceilings line does not name the brief search: $(grep '^ceilings:' "$tmp/out")"
    # Without --size the main job's size follows the cached FP32 roof: the power of two,
    # 256 to 2048, nearest (in log scale) to the N whose 2·N³ FLOP take 1 ms at that roof.
    run 0 --rung 01 "${q[@]}" --json "$tmp/sized.json" || exit 1
    want=$(python3 -c 'import json, math, sys
f = json.load(open(sys.argv[1]))["ceiling_values"]["f32_gflops"]
side = (f * 1e9 * 1e-3 / 2) ** (1 / 3)
print(min(2048, max(256, 2 ** round(math.log2(side)))))' "$tmp/sized.json")
    grep -q "GEMM ladder at ${want}×${want}×${want} (sized for the FP32 roof" "$tmp/out" &&
        echo "ok: the main job's size (${want}³) follows the cached FP32 roof" ||
        fail "the main job's size should be ${want}³: $(grep 'GEMM ladder at' "$tmp/out")"
    # JSON on standard output stays JSON; the path goes to standard error.
    "$kladder" --size 8 --rung 01 "${q[@]}" --format json >"$tmp/json" 2>"$tmp/err"
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/json" || fail "--format json is not clean JSON"
    python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["ceiling_values"]; sys.exit(not (c and c["copy_gbps"] > 0 and c["f32_gflops"] > 0))' "$tmp/json" &&
        echo "ok: the main job's report has the roofs (ceiling_values)" || fail "the main job's JSON has no ceiling_values"
    grep -q "^report: $tmp/work/kladder-report.html" "$tmp/err" || fail "no report path on standard error"
    # A directory where the report cannot be written: said, and the run goes on.
    mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
    if (cd "$tmp/ro" && touch probe 2>/dev/null); then
        echo "(running as a user who can write anywhere: the read-only case is not checked)"
    else
        (cd "$tmp/ro" && "$kladder" --size 8 --rung 01 "${q[@]}" >"$tmp/out" 2>&1)
        rc=$?
        [ $rc -eq 0 ] && grep -q "note: cannot write kladder-report.html" "$tmp/out" ||
            fail "in a read-only directory: exit $rc: $(head -c 1000 "$tmp/out")"
    fi
    ;;
*)
    echo "usage: check_report.sh KLADDER DIR setup|schema|svg|browser|compare CASE|bad CASE|progress|mainjob"
    exit 2
    ;;
esac
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
exit 0
