#!/bin/sh
# What `make test` and `make demo` need from the system (Debian packages):
#
#   scripts/deps.sh test|demo
#
# Missing packages are installed with apt-get when run as root; otherwise
# one line gives the exact command and the exit status is 1.  A package
# unpacked under .deps/ (GPUQ_DEPS_PREFIX, for machines without apt) counts
# as present.  GPUQ_DEPS=skip skips the check (the build then says what it
# could not find, and the test summary shows what did not run).
set -u
cd "$(dirname "$0")/.." || exit 2
what=${1:-test}
# optional: installed with the others as root; otherwise missing only
# skips the tests that need it (the HTML report's browser test), so a
# missing one is a note, not a stop.
optional=""
case $what in
test) pkgs="cmake make gcc libcmocka-dev zlib1g-dev python3"; optional="chromium" ;;
demo) pkgs="cmake make gcc zlib1g-dev" ;;
*) echo "usage: scripts/deps.sh test|demo" >&2; exit 2 ;;
esac
[ "${GPUQ_DEPS:-}" = skip ] && exit 0
# Not Debian: nothing to ask apt about; CMake reports what is missing.
command -v dpkg-query >/dev/null 2>&1 || exit 0

prefix=${GPUQ_DEPS_PREFIX:-.deps}
missing=""
for p in $pkgs; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        continue
    fi
    case $p in
    libcmocka-dev) [ -f "$prefix/usr/include/cmocka.h" ] && continue ;;
    zlib1g-dev) [ -f "$prefix/usr/include/zlib.h" ] && continue ;;
    esac
    missing="$missing $p"
done
missing_optional=""
for p in $optional; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing_optional="$missing_optional $p"
done
[ -z "$missing" ] && [ -z "$missing_optional" ] && exit 0
if [ -z "$missing" ] && { [ "$(id -u)" -ne 0 ] || [ "${GPUQ_DEPS:-}" = report ]; }; then
    echo "deps: note: without${missing_optional} the HTML report's browser test skips ('sudo apt-get install -y${missing_optional}')" >&2
    exit 0
fi
missing="$missing$missing_optional"

if [ "$(id -u)" -eq 0 ] && [ "${GPUQ_DEPS:-}" != report ]; then
    echo "deps: installing${missing} (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing && exit 0
    echo "deps: apt-get install failed; run: apt-get install -y${missing}" >&2
    exit 1
fi
echo "make $what needs${missing}: run 'sudo apt-get install -y${missing}' (or GPUQ_DEPS=skip make $what to go on without)" >&2
exit 1
