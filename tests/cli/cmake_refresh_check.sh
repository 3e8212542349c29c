#!/bin/sh
# scripts/cmake_refresh.sh decides when make reconfigures a build directory
# (no CMake run: GPUQ_CMAKE_REFRESH_DRY=1 prints the decision).
#   cmake_refresh_check.sh SRCDIR WORKDIR
set -u
src=$1 work=$2
rm -rf "$work" && mkdir -p "$work/b" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
header="$work/cmocka.h"
cache() { # cmocka state (found|missing), pretend (ON|OFF), require (ON|OFF)
    if [ "$1" = found ]; then inc=/usr/include lib=/usr/lib/x86_64-linux-gnu/libcmocka.so
    else inc=CMOCKA_INCLUDE_DIR-NOTFOUND lib=CMOCKA_LIBRARY-NOTFOUND; fi
    printf 'CMOCKA_INCLUDE_DIR:PATH=%s\nCMOCKA_LIBRARY:FILEPATH=%s\nGPUQ_PRETEND_NO_CMOCKA:BOOL=%s\nGPUQ_REQUIRE_UNIT_TESTS:BOOL=%s\n' \
        "$inc" "$lib" "$2" "$3" > "$work/b/CMakeCache.txt"
}
decide() { # header present (yes|no), then CMAKE_ARGS
    has=$1; shift
    if [ "$has" = yes ]; then : > "$header"; else rm -f "$header"; fi
    (cd "$src" && GPUQ_CMAKE_REFRESH_DRY=1 GPUQ_CMOCKA_HEADER="$header" \
        sh scripts/cmake_refresh.sh "$work/b" cmake "$@")
}
expect() { # case, wanted ("" for none, else a word of the reason), output
    case_=$1 want=$2 got=$3
    if [ -z "$want" ]; then
        [ -z "$got" ] || fail "$case_: reconfigured ($got), expected nothing"
    else
        case $got in *"$want"*) echo "ok: $case_: $got" ;; *) fail "$case_: '$got', expected '$want'" ;; esac
    fi
}
# make demo without cmocka, then make test after deps.sh installed it
cache missing OFF OFF; expect "cmocka installed since" "cmocka was missing" "$(decide yes)"
cache missing OFF OFF; expect "cmocka still missing" "" "$(decide no)"
cache found OFF OFF;   expect "cmocka found at configure" "" "$(decide yes)"
cache missing ON OFF;  expect "GPUQ_PRETEND_NO_CMOCKA=ON" "" "$(decide yes)"
cache found OFF OFF;   expect "new CMAKE_ARGS" "GPUQ_REQUIRE_UNIT_TESTS=ON" \
                              "$(decide no -DGPUQ_REQUIRE_UNIT_TESTS=ON)"
cache found OFF ON;    expect "CMAKE_ARGS already applied" "" "$(decide no -DGPUQ_REQUIRE_UNIT_TESTS=ON)"
rm -f "$work/b/CMakeCache.txt"
expect "no cache yet" "" "$(decide yes -DGPUQ_REQUIRE_UNIT_TESTS=ON)"
echo "cmake_refresh_check: $fails failure(s)"
[ $fails -eq 0 ]
