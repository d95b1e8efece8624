#!/usr/bin/env bash
# Installs what kladder needs on a Debian or Ubuntu machine (only what is
# missing), then configures and builds it in build/.
#
#   scripts/setup.sh           what kladder itself needs: a compiler, CMake,
#                              OpenCL with PoCL (a CPU device), OpenBLAS (the
#                              reference), libpng (the pictures) and libgit2
#                              (the article's diffs)
#   scripts/setup.sh --tests   that, and what the test suite and the hardening
#                              jobs use (oclgrind, CLBlast, clang, Chromium,
#                              OpenMPI, Python's packaging tools, zsh, ...)
#
# Each group says what it installs and why, and apt's progress shows as a
# count of packages set up; apt's whole output goes to /tmp/kladder-apt.log,
# the build's to build/setup.log. Set KLADDER_NO_INSTALL=1 to skip the
# package step (e.g. on a machine without network access).
set -euo pipefail
cd "$(dirname "$0")/.."

tests=0
case "${1:-}" in
"") ;;
--tests) tests=1 ;;
*) echo "usage: scripts/setup.sh [--tests]" >&2; exit 2 ;;
esac
log=/tmp/kladder-apt.log
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
updated=0

# progress TOTAL: apt's output (standard input) into the log, and a line per package it
# sets up: [k/TOTAL] NAME (VERSION).
progress() {
    local k=0 line
    while IFS= read -r line; do
        echo "$line" >>"$log"
        case $line in
        "Setting up "*)
            k=$((k + 1))
            echo "setup:   [$k/$1] ${line#Setting up }"
            ;;
        esac
    done
}

# install WHY NAME...: installs the packages of the list that are missing, saying why,
# with a line per package apt sets up ([k/n] of what it installs, dependencies included).
install() {
    local why=$1 missing=() total
    shift
    for p in "$@"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    echo "setup: installing ${missing[*]}: $why"
    if [ $updated -eq 0 ]; then
        echo "setup:   apt-get update"
        $sudo apt-get update -q >>"$log" 2>&1 || true
        updated=1
    fi
    total=$(apt-get -s install --no-install-recommends "${missing[@]}" 2>/dev/null | grep -c '^Inst ' || true)
    # pipefail: the pipeline fails where apt-get does.
    if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends \
        "${missing[@]}" 2>&1 | progress "${total:-?}"; then
        echo "setup: could not install ${missing[*]} (see $log); going on with what is here" >&2
    fi
}

if [ "${KLADDER_NO_INSTALL:-0}" != 1 ] && command -v dpkg >/dev/null; then
    install "to build kladder and run it on the CPU (OpenCL through PoCL), with OpenBLAS as \
the reference and libpng for pictures" \
        build-essential cmake ocl-icd-opencl-dev opencl-headers pocl-opencl-icd \
        libopenblas-dev libpng-dev
    # Apart: a distribution without it still builds kladder, whose article then says it needs it.
    install "for the article's diffs (kladder article): libgit2 and pkg-config, which finds it" \
        libgit2-dev pkg-config
    if [ $tests -eq 1 ]; then
        install "for the tests: a simulator that checks kernels for races (oclgrind), CLBlast \
as a peer, clinfo and Python" oclgrind libclblast1 clinfo python3
        # The install test: the example built through pkg-config, the .deb's dependencies
        # read by dpkg-shlibdeps, which CPack runs on what file(1) finds.
        install "for the install test (pkg-config, file)" pkg-config file
        # Apart, so that a distribution without one of them still gets everything above.
        install "for the report tests: a browser, an XML checker, a JSON Schema validator" \
            chromium libxml2-utils python3-jsonschema
        install "for the fuzz targets: clang with libFuzzer" clang libclang-rt-dev
        install "for the Python package's install test" python3-pip python3-setuptools \
            python3-wheel
        install "for the Python package's DataFrames" python3-pandas
        install "for the command-line tests: the man page, the zsh completion" man-db zsh
        install "for the article tests: a Markdown parser" python3-markdown-it
        install "for kladder-mpi and its test" openmpi-bin libopenmpi-dev
    fi
fi

jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p build
echo "setup: building kladder in build/ ($jobs jobs; the log is build/setup.log)"
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j"$jobs"; } \
    >build/setup.log 2>&1; then
    tail -n 30 build/setup.log >&2
    echo "setup: the build failed; build/setup.log has all of it" >&2
    exit 1
fi
