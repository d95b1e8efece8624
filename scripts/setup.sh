#!/usr/bin/env bash
# Installs what kladder needs on a Debian or Ubuntu machine (only what is
# missing), then configures and builds it in build/. Set KLADDER_NO_INSTALL=1
# to skip the package step (e.g. on a machine without network access).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ocl-icd-opencl-dev opencl-headers pocl-opencl-icd
          libopenblas-dev libclblast1 libpng-dev oclgrind clinfo python3)
# For the install test (tests/check_install.sh): the example built through pkg-config,
# the .deb's dependencies read by dpkg-shlibdeps, which CPack runs on what file(1) finds.
install_tools=(pkg-config file)
# For the report tests: a browser to open reports in, an XML checker, the JSON
# Schema validator. Installed apart, so that a distribution without one of them
# still gets everything above.
report_tools=(chromium libxml2-utils python3-jsonschema)
# For the fuzz targets (tests/fuzz/run.sh): clang with libFuzzer. Apart too, as the
# build above uses the system compiler and needs neither.
fuzz_tools=(clang libclang-rt-dev)
# For the Python package (python/): pip and setuptools install it (its test
# installs it offline); pandas, optional and large, apart, for its DataFrames.
python_tools=(python3-pip python3-setuptools python3-wheel)
python_pandas=(python3-pandas)
# For the command-line tests: the man page rendered, the zsh completion parsed.
cli_tools=(man-db zsh)
# For kladder-mpi and its test (mpirun -n 2): OpenMPI. Optional: without it the
# build leaves kladder-mpi out and says so.
mpi_tools=(openmpi-bin libopenmpi-dev)

# install NAME...: installs the packages of the list that are missing.
install() {
    local missing=() sudo=""
    for p in "$@"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    echo "setup: installing ${missing[*]}"
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    if ! { $sudo apt-get update -qq &&
           DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >>/tmp/kladder-apt.log 2>&1; then
        echo "setup: could not install ${missing[*]} (see /tmp/kladder-apt.log); building with what is here" >&2
    fi
}

if [ "${KLADDER_NO_INSTALL:-0}" != 1 ] && command -v dpkg >/dev/null; then
    install "${packages[@]}"
    install "${install_tools[@]}"
    install "${report_tools[@]}"
    install "${fuzz_tools[@]}"
    install "${python_tools[@]}"
    install "${python_pandas[@]}"
    install "${cli_tools[@]}"
    install "${mpi_tools[@]}"
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)"
