#!/usr/bin/env bash
# kladder installed as a library: `cmake --install` into a temporary prefix, the files
# checked (sonames, exported symbols, kladder.pc, the CMake package), examples/gemm_ladder.c
# built against them through pkg-config (examples/Makefile, shared and static) and through
# find_package (examples/CMakeLists.txt, shared and static, after the prefix is moved:
# the package is relocatable), each binary run on the default device; then `cpack -G DEB`
# and the package's contents and fields. Exit 77 (skipped) only where there is no dpkg-deb,
# after everything else passed.
# usage: check_install.sh BUILD_DIR SOURCE_DIR VERSION LIBDIR HAVE_PNG(0|1)
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: check_install.sh BUILD_DIR SOURCE_DIR VERSION LIBDIR HAVE_PNG" >&2; exit 2; }
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
version=$3 libdir=$4 png=$5
soversion=${version%%.*}
size=24

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kladder-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
# run LOG COMMAND...: runs it with its output in LOG, shown when it fails.
run() {
    local log=$1 rc=0
    shift
    "$@" >"$log" 2>&1 || rc=$?
    if [ $rc -ne 0 ]; then
        cat "$log" >&2
        fail "$* (exit $rc)"
    fi
}

echo "== cmake --install $build --prefix $tmp/prefix"
prefix=$tmp/prefix
lib=$prefix/$libdir
run "$tmp/install.log" cmake --install "$build" --prefix "$prefix"
for f in bin/kladder include/kladder.h "$libdir/libkladder.a" "$libdir/libkladder.so.$version" \
    "$libdir/pkgconfig/kladder.pc" "$libdir/cmake/kladder/kladderConfig.cmake" \
    "$libdir/cmake/kladder/kladderConfigVersion.cmake" \
    "$libdir/cmake/kladder/kladderTargets.cmake" "$libdir/cmake/kladder/kladderStaticTargets.cmake"; do
    [ -f "$prefix/$f" ] || fail "$f is not installed"
done
[ -x "$prefix/bin/kladder" ] || fail "bin/kladder is not executable"
cmp -s "$src/include/kladder.h" "$prefix/include/kladder.h" || fail "the installed kladder.h differs"
[ "$(readlink "$lib/libkladder.so.$soversion")" = "libkladder.so.$version" ] ||
    fail "libkladder.so.$soversion does not link to libkladder.so.$version"
[ "$(readlink "$lib/libkladder.so")" = "libkladder.so.$soversion" ] ||
    fail "libkladder.so does not link to libkladder.so.$soversion"
# Generated at build time from the CLI's option table: installed when they were.
for f in kladder.1:share/man/man1/kladder.1 completions/kladder:share/bash-completion/completions/kladder \
    completions/_kladder:share/zsh/site-functions/_kladder; do
    if [ -f "$build/${f%%:*}" ]; then
        cmp -s "$build/${f%%:*}" "$prefix/${f#*:}" || fail "${f#*:} is not installed"
    fi
done

dynamic=$(readelf -d "$lib/libkladder.so.$version")
grep -Eq "SONAME.*\[libkladder\.so\.$soversion\]" <<<"$dynamic" || fail "soname is not libkladder.so.$soversion:
$dynamic"
grep -q 'NEEDED.*\[libOpenCL\.so' <<<"$dynamic" || fail "libkladder.so does not name libOpenCL"
if [ "$png" = 1 ]; then
    grep -q 'NEEDED.*\[libpng' <<<"$dynamic" || fail "libkladder.so does not name libpng"
fi
# Exported: exactly the functions kladder.h declares.
cc -E -P "$src/include/kladder.h" | grep -oE '\bkl_[a-z0-9_]+ *\(' | tr -d ' (' | sort -u >"$tmp/api"
nm -D --defined-only "$lib/libkladder.so.$version" | awk '{print $NF}' | sort -u >"$tmp/exported"
[ "$(wc -l <"$tmp/api")" -ge 10 ] || fail "found only $(wc -l <"$tmp/api") functions in kladder.h"
diff "$tmp/api" "$tmp/exported" >"$tmp/api.diff" ||
    fail "libkladder.so exports other than kladder.h's functions (< header only, > library only;
cmake/kladder.map lists them):
$(cat "$tmp/api.diff")"
# The CMake package names no absolute path: it finds itself wherever it lies.
if grep -rlF -e "$prefix" -e "$build" "$lib/cmake/kladder"; then
    fail "the CMake package holds absolute paths"
fi

# check_run NAME BINARY [ENV...]: runs the example and checks its rows; NAME.rows keeps
# the rung and status of each, for the next run to be compared with.
check_run() {
    local name=$1 bin=$2 out rows
    shift 2
    out=$(env "$@" "$bin" "$size" 2>&1) || fail "$name: exit $?:
$out"
    echo "$out" | sed -n '1p;$p' | sed "s/^/$name: /"
    grep -Eq "^kladder $version, .+, GEMM float M=$size N=$size K=$size\$" <<<"$out" ||
        fail "$name: no heading:
$out"
    rows=$(grep -E '^[0-9a-z_]+ +(verified|FAILED|skipped|measured) ' <<<"$out" | awk '{print $1, $2}')
    grep -qx '01_naive verified' <<<"$rows" || fail "$name: 01_naive is not verified:
$out"
    grep -qx '10_tiled verified' <<<"$rows" || fail "$name: 10_tiled is not verified:
$out"
    grep -Eqx "$(wc -l <<<"$rows") rows: [0-9]+ verified, 0 failed" <<<"$(tail -n 1 <<<"$out")" ||
        fail "$name: the summary does not match the rows:
$out"
    echo "$rows" >"$tmp/$name.rows"
    if [ -f "$tmp/first.rows" ]; then
        cmp -s "$tmp/first.rows" "$tmp/$name.rows" || fail "$name: other rows than the first run:
$(diff "$tmp/first.rows" "$tmp/$name.rows")"
    else
        cp "$tmp/$name.rows" "$tmp/first.rows"
    fi
}
# libkladder_of BINARY [ENV...]: the path its libkladder.so.N resolves to ("" if none).
libkladder_of() {
    local bin=$1
    shift
    env "$@" ldd "$bin" | awk '$1 ~ /^libkladder\.so/ {print $3}'
}

echo "== pkg-config (examples/Makefile)"
export PKG_CONFIG_PATH=$lib/pkgconfig
[ "$(pkg-config --modversion kladder)" = "$version" ] || fail "pkg-config: version is not $version"
[ "$(pkg-config --variable=prefix kladder)" = "$prefix" ] ||
    fail "pkg-config: prefix is $(pkg-config --variable=prefix kladder), not $prefix"
strict="-std=c99 -O2 -Wall -Wextra -pedantic -Werror"
mkdir "$tmp/pc" "$tmp/pc-static"
run "$tmp/pc.log" make -C "$tmp/pc" -f "$src/examples/Makefile" "CFLAGS=$strict"
run "$tmp/pc-static.log" make -C "$tmp/pc-static" -f "$src/examples/Makefile" "CFLAGS=$strict" STATIC=1
# The shared build finds the prefix's library by its run path: no LD_LIBRARY_PATH.
[ "$(libkladder_of "$tmp/pc/gemm_ladder")" = "$lib/libkladder.so.$soversion" ] ||
    fail "pkg-config: the program does not load $lib/libkladder.so.$soversion without LD_LIBRARY_PATH"
[ -z "$(libkladder_of "$tmp/pc-static/gemm_ladder")" ] || fail "pkg-config STATIC=1: linked libkladder.so"
check_run pkg-config "$tmp/pc/gemm_ladder"
check_run pkg-config-static "$tmp/pc-static/gemm_ladder"
unset PKG_CONFIG_PATH

echo "== find_package (examples/CMakeLists.txt), the prefix moved"
mv "$prefix" "$tmp/moved"
prefix=$tmp/moved lib=$tmp/moved/$libdir
for variant in shared static; do
    static=OFF
    [ $variant = shared ] || static=ON
    run "$tmp/cmake-$variant.log" cmake -S "$src/examples" -B "$tmp/cmake-$variant" \
        -DCMAKE_PREFIX_PATH="$prefix" -DKLADDER_EXAMPLE_STATIC=$static -DCMAKE_BUILD_TYPE=Release \
        "-DCMAKE_C_FLAGS=$strict"
    found=$(sed -n 's/^kladder_DIR:PATH=//p' "$tmp/cmake-$variant/CMakeCache.txt")
    [ "$found" = "$lib/cmake/kladder" ] || fail "find_package found kladder in $found, not $lib/cmake/kladder"
    run "$tmp/build-$variant.log" cmake --build "$tmp/cmake-$variant"
done
[ "$(libkladder_of "$tmp/cmake-shared/gemm_ladder")" = "$lib/libkladder.so.$soversion" ] ||
    fail "find_package: the program does not load $lib/libkladder.so.$soversion"
[ -z "$(libkladder_of "$tmp/cmake-static/gemm_ladder")" ] || fail "find_package static: linked libkladder.so"
check_run find_package "$tmp/cmake-shared/gemm_ladder"
check_run find_package-static "$tmp/cmake-static/gemm_ladder"
# The version file: 0.1.x matches 0.1, a later minor version does not.
mkdir "$tmp/version"
cat >"$tmp/version/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.17)
project(v LANGUAGES NONE)
find_package(kladder ${version%.*} REQUIRED)
message(STATUS "found kladder \${kladder_VERSION}")
find_package(kladder $soversion.99 QUIET)
if(kladder_FOUND)
  message(FATAL_ERROR "kladder $version accepted as $soversion.99")
endif()
EOF
run "$tmp/version.log" cmake -S "$tmp/version" -B "$tmp/version/build" -Dkladder_DIR="$lib/cmake/kladder"
grep -q "found kladder $version\$" "$tmp/version.log" || fail "the version file: $(cat "$tmp/version.log")"

echo "== cpack -G DEB"
if ! command -v dpkg-deb >/dev/null; then
    echo "SKIP: no dpkg-deb (not a Debian system): the package is not checked"
    exit 77
fi
run "$tmp/cpack.log" cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/deb"
debs=("$tmp"/deb/*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
    fail "cpack made no single .deb: $(ls "$tmp/deb")"
fi
deb=${debs[0]}
basename "$deb"
[ "$(dpkg-deb -f "$deb" Package)" = kladder ] || fail "the package is not named kladder"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "the package's version is not $version"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
grep -Eq '(ocl-icd-libopencl1|libopencl1)' <<<"$depends" || fail "the package does not depend on OpenCL"
if [ "$png" = 1 ]; then
    grep -q 'libpng16' <<<"$depends" || fail "the package does not depend on libpng"
fi
dpkg-deb -c "$deb" | awk '{print $6}' >"$tmp/deb.files"
for f in bin/kladder include/kladder.h "$libdir/libkladder.so.$version" "$libdir/libkladder.so.$soversion" \
    "$libdir/libkladder.so" "$libdir/libkladder.a" "$libdir/pkgconfig/kladder.pc" \
    "$libdir/cmake/kladder/kladderConfig.cmake" "$libdir/cmake/kladder/kladderConfigVersion.cmake" \
    "$libdir/cmake/kladder/kladderTargets.cmake"; do
    grep -qx "./usr/$f" "$tmp/deb.files" || fail "the package lacks /usr/$f:
$(cat "$tmp/deb.files")"
done
pc=$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./usr/$libdir/pkgconfig/kladder.pc")
grep -qx 'prefix=/usr' <<<"$pc" || fail "the package's kladder.pc does not say prefix=/usr:
$pc"
echo "ok: installed, consumed four ways, packed"
