# shellcheck shell=bash
# Sourced by the bench scripts: builds kladder without installing anything
# (machines without network) and registers NVIDIA's OpenCL library where an
# NVIDIA GPU is present but not registered. Sets $out (default bench/out).
cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1
out=${OUT:-bench/out}
mkdir -p "$out"

if [ ! -x build/kladder ]; then
    opts=()
    # Some machines ship only libOpenCL.so.1 (no development symlink).
    lib=$(ldconfig -p 2>/dev/null | awk '/libOpenCL\.so\.1 /{print $NF; exit}')
    [ -n "$lib" ] && [ ! -e "$(dirname "$lib")/libOpenCL.so" ] && opts+=("-DOpenCL_LIBRARY=$lib")
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${opts[@]}" >/dev/null
    cmake --build build -j"$(nproc)" >/dev/null
fi

if [ -e /dev/nvidia0 ] && ! build/kladder devices 2>/dev/null | grep -qi nvidia; then
    mkdir -p /tmp/kladder-icd
    echo libnvidia-opencl.so.1 >/tmp/kladder-icd/nvidia.icd
    export OCL_ICD_VENDORS=/tmp/kladder-icd
fi
build/kladder devices >"$out/devices.txt" 2>&1 || true

# CLBlast from .debs/ (carried to machines without network) when it is not
# installed: unpacked under /tmp and found through LD_LIBRARY_PATH.
clblast_from_debs() {
    local deb
    deb=$(ls .debs/libclblast1_*.deb 2>/dev/null | head -n 1 || true)
    if [ -n "$deb" ] && ! ldconfig -p | grep -q libclblast.so.1; then
        rm -rf /tmp/clblast && dpkg -x "$deb" /tmp/clblast
        export LD_LIBRARY_PATH=/tmp/clblast/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
    fi
}
