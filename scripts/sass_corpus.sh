#!/usr/bin/env bash
# Collects the SASS encodings that the Hopper opcode reader
# (src/host/host_decode_sm90.c) is built from and tested against: every
# instruction cuobjdump prints for the given binaries (sm_90 code), reduced
# to examples per mnemonic (scripts/sass_reduce.py).
#
#   usage: scripts/sass_corpus.sh OUT.tsv BINARY_OR_CUBIN...
#   e.g.   scripts/sass_corpus.sh corpus.tsv build/gpuq build/examples/histogram/histogram \
#            build/validation/validate_app build/tests/profile/atomics_app zoo.cubin
#          (zoo.cubin: nvcc -arch=sm_90 -cubin -o zoo.cubin tests/profile/atoms_zoo.cu)
# Then regenerate the opcode table with the snippet in host_decode_sm90.c if new
# opcodes appear, and rerun test_host_decode.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,12p' "$0" >&2; exit 1; }
out=$1; shift
command -v cuobjdump >/dev/null || { echo "sass_corpus: cuobjdump not found (CUDA toolkit bin on PATH?)" >&2; exit 2; }
here=$(dirname "$0")
{
  echo "# SASS encodings (sm_90) as cuobjdump -sass printed them: mnemonic, instructions seen,"
  echo "# up to 12 distinct encodings \"lo,hi\" (bits 0-63, 64-127).  Made by scripts/sass_corpus.sh"
  echo "# on $(date -u +%Y-%m-%d) from: $(for b in "$@"; do basename "$b"; done | tr '\n' ' ')"
  for bin in "$@"; do cuobjdump -sass -arch sm_90 "$bin" 2>/dev/null || cuobjdump -sass "$bin"; done |
    python3 "$here/sass_reduce.py"
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "sass_corpus: $(grep -vc '^#' "$out") mnemonics in $out"
