#!/bin/sh
# Reconfigures a build directory whose configuration is out of date with the
# machine, before make builds it:
#
#   scripts/cmake_refresh.sh BUILD CMAKE [CMAKE_ARGS...]
#
# - cmocka: `make demo` (which does not need it) may configure BUILD on a
#   machine without libcmocka-dev; `make test` then installs it
#   (scripts/deps.sh), but CMake keeps "not found" in the cache and the
#   unit tests would not be built.  When the cache says cmocka was missing
#   and its header is there now, CMake runs again.
# - CMAKE_ARGS given to make (CI's -DGPUQ_REQUIRE_UNIT_TESTS=ON) after an
#   earlier configure: they are applied.
# Nothing to do without a cache (make configures it) or when it is current.
# GPUQ_CMAKE_REFRESH_DRY=1 prints the decision instead (tests/cli).
set -u
[ $# -ge 2 ] || { echo "usage: scripts/cmake_refresh.sh BUILD CMAKE [CMAKE_ARGS...]" >&2; exit 2; }
build=$1 cmake=$2
shift 2
cache=$build/CMakeCache.txt
[ -f "$cache" ] || exit 0
prefix=${GPUQ_DEPS_PREFIX:-.deps}
why=""
if grep -q '^GPUQ_PRETEND_NO_CMOCKA:BOOL=ON$' "$cache"; then
    :  # asked to behave as without cmocka
elif grep -Eq '^CMOCKA_(INCLUDE_DIR|LIBRARY):[A-Z]+=.*NOTFOUND$' "$cache"; then
    for h in ${GPUQ_CMOCKA_HEADER:-/usr/include/cmocka.h "$prefix/usr/include/cmocka.h"}; do
        if [ -f "$h" ]; then
            why="cmocka was missing when it was configured and is installed now"
            break
        fi
    done
fi
if [ -z "$why" ] && [ $# -gt 0 ]; then
    # the arguments as the cache already holds them need no new configure
    for a in "$@"; do
        case $a in
        -D*=*)
            kv=${a#-D}
            name=${kv%%=*}
            name=${name%%:*}
            value=${kv#*=}
            grep -Eq "^$name:[A-Z]+=$value\$" "$cache" || why="CMAKE_ARGS $a"
            ;;
        *) why="CMAKE_ARGS $a" ;;
        esac
        [ -n "$why" ] && break
    done
fi
[ -n "$why" ] || exit 0
if [ "${GPUQ_CMAKE_REFRESH_DRY:-}" = 1 ]; then
    echo "reconfigure $build: $why"
    exit 0
fi
echo "reconfiguring $build ($why)"
# Stale "not found" results are searched again.
exec "$cmake" -U 'CMOCKA_*' -S . -B "$build" "$@"
