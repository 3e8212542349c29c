#!/bin/sh
# SASS check of every calibrate suite (test bench_suite_sass, label gpu).
#   usage: check_suite_sass.sh CUOBJDUMP GPUQ [OBJECT...]
# The expectations come from the suite table itself ('gpuq calibrate
# --sass-expect': suite, kernel name part, opcode prefix, min count per
# kernel); the SASS from 'cuobjdump -sass' of the gpuq program (which links
# every suite's kernels) and of any extra OBJECTs.  For each row, every
# function whose name contains the kernel part must hold at least min_count
# instructions whose mnemonic starts with the opcode ("A|B": either; the
# binary holds code for several architectures), and at least one
# function must match.  Kernels a suite JIT-compiles at run time are not in
# the program; such a suite lists their rows against an OBJECT it builds.
# Exits 77 when cuobjdump cannot be found.
cuobjdump=$1
gpuq=$2
shift 2
if ! command -v "$cuobjdump" >/dev/null 2>&1; then
  echo "skipped: cuobjdump not found ('$cuobjdump'; it ships with the CUDA toolkit)"
  exit 77
fi
expect=$("$gpuq" calibrate --sass-expect) || { echo "FAIL: $gpuq calibrate --sass-expect"; exit 1; }
[ -n "$expect" ] || { echo "FAIL: no SASS expectations listed"; exit 1; }
tmp=$(mktemp /tmp/gpuq_sass.XXXXXX) || exit 1
trap 'rm -f "$tmp"' EXIT
# one file per cuobjdump call (it reads only the first of several)
for f in "$gpuq" "$@"; do
  "$cuobjdump" -sass "$f" 2>&1 || { echo "FAIL: $cuobjdump -sass $f"; exit 1; }
done >"$tmp" || { cat "$tmp"; exit 1; }

# One line per function: name, then every mnemonic (predicate dropped).
ops=$(awk '
  /Function :/ { if (name != "") print name ops; name = $3; ops = ""; next }
  /\/\*[0-9a-f]+\*\// {
    line = $0
    sub(/^[^*]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line)
    if (line ~ /^@/) sub(/^@[^ \t]+[ \t]+/, "", line)
    op = line; sub(/[ \t;].*$/, "", op)
    if (op != "") ops = ops " " op
  }
  END { if (name != "") print name ops }' "$tmp")

status=0
rows=0
printf '%s\n' "$expect" | {
  while read -r suite kernel opcode min; do
    rows=$((rows + 1))
    matched=$(printf '%s\n' "$ops" | awk -v k="$kernel" 'index($1, k) > 0' )
    nfun=$(printf '%s\n' "$matched" | grep -c .)
    if [ "$nfun" -eq 0 ]; then
      echo "FAIL: $suite: no kernel named like '$kernel' in the SASS"
      status=1
      continue
    fi
    fewest=$(printf '%s\n' "$matched" | awk -v o="$opcode" '
      BEGIN { na = split(o, alt, "|") }
      { c = 0; for (i = 2; i <= NF; i++) for (a = 1; a <= na; a++) if (index($i, alt[a]) == 1 && (length($i) == length(alt[a]) || substr($i, length(alt[a]) + 1, 1) == ".")) { c++; break }
        if (NR == 1 || c < m) m = c }
      END { print m + 0 }')
    if [ "$fewest" -lt "$min" ]; then
      echo "FAIL: $suite: a kernel named like '$kernel' holds $fewest x $opcode, want >= $min"
      status=1
    else
      echo "ok: $suite: $nfun kernel(s) like '$kernel' hold >= $fewest x $opcode (want >= $min)"
    fi
  done
  [ $status -eq 0 ] && echo "ok: $rows SASS expectations of $(printf '%s\n' "$expect" | cut -d' ' -f1 | sort -u | wc -l) suite(s) hold"
  exit $status
}
