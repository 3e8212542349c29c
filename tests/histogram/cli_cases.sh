#!/bin/sh
# Exit codes and messages of the histogram program that need no GPU
# (bad options and bad images are refused before the GPU is touched).
#   cli_cases.sh HISTOGRAM SOURCE_DIR
set -u
prog=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# expect WANT_RC GREP_TEXT ARGS...: runs the program, checks exit code and stderr/stdout text.
expect() {
    want=$1
    text=$2
    shift 2
    "$prog" "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -eq "$want" ] && grep -q -- "$text" "$tmp/out"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: histogram $* -> exit $rc (want $want, text '$text'):"
        sed 's/^/  | /' "$tmp/out"
    fi
}

printf 'P6\n2 2\n255\nabc' >"$tmp/short.ppm"
printf 'P6\n2 2\n4095\n' >"$tmp/deep.ppm"
printf 'P3\n2 2\n255\n' >"$tmp/ascii.ppm"

expect 0 "usage: histogram" --help
expect 0 "hist2_popc" --help
expect 1 "unknown kernel 'nope'" --kernel nope --image solid --pixels 10 --threads 32
expect 1 "--image is required" --kernel hist --pixels 10 --threads 32
expect 1 "--pixels (or --sizes) is required" --kernel hist --image solid --threads 32
expect 1 "--threads is required" --kernel hist --image solid --pixels 10
expect 1 "not a multiple of 32" --kernel hist --image solid --pixels 10 --threads 33
expect 1 "not a whole number" --kernel hist --image solid --pixels 0 --threads 32
expect 1 "not a whole number" --kernel hist --image solid --pixels 67108865 --threads 32
expect 1 "not a whole number" --kernel hist --image solid --pixels 12abc --threads 32
expect 1 "powers of two" --kernel hist --image solid --sizes 32:100 --threads 32
expect 1 "not LO:HI" --kernel hist --image solid --sizes 32 --threads 32
expect 1 "8 hex digits" --kernel hist --image solid --pixels 10 --threads 32 --color red
expect 1 "drop --kernel" --bench --kernel hist --image solid --pixels 10
expect 1 "unexpected argument" --kernel hist --image solid --pixels 10 --threads 32 extra
expect 1 "unknown or needs a value" --kernel hist --image solid --pixels 10 --threads 32 --frobnicate
expect 2 "No such file" --kernel hist --image "$tmp/missing.ppm" --pixels 10 --threads 32
expect 2 "truncated" --kernel hist --image "$tmp/short.ppm" --pixels 10 --threads 32
expect 2 "maxval 4095" --kernel hist --image "$tmp/deep.ppm" --pixels 10 --threads 32
expect 2 "magic is not P6" --kernel hist --image "$tmp/ascii.ppm" --pixels 10 --threads 32
expect 2 "magic is not P6" --kernel hist --image "$src/CMakeLists.txt" --pixels 10 --threads 32

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
