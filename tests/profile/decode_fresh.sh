#!/usr/bin/env bash
# Checks the Hopper opcode reader against cuobjdump on code compiled now:
# the ATOMS zoo and the test programs, every function read both ways
# (test_host_decode LISTING...).  Needs nvcc and cuobjdump, not a GPU; exits
# 77 (skipped) without them.
#   usage: decode_fresh.sh TEST_GI_DECODE WORKDIR ZOO_SOURCE BINARY...
set -u
tester=$1 work=$2 zoo=$3; shift 3
for tool in nvcc cuobjdump; do
  command -v $tool >/dev/null 2>&1 || { echo "decode_fresh: $tool not found: skipped"; exit 77; }
done
mkdir -p "$work"
nvcc -arch=sm_90 -cubin -o "$work/zoo.cubin" "$zoo" || exit 1
listings=()
for bin in "$work/zoo.cubin" "$@"; do
  out="$work/$(basename "$bin").sass"
  cuobjdump -sass -arch sm_90 "$bin" > "$out" 2>/dev/null || cuobjdump -sass "$bin" > "$out" || exit 1
  listings+=("$out")
done
exec "$tester" "${listings[@]}"
