#!/bin/sh
# Checks that nvcc emitted the shared-memory atomic each kernel is meant to
# exercise (paper 000, Sec. 2 and 4): counts the ATOMS.* instructions of
# every kernel in the histogram program's SASS (cuobjdump -sass) and fails if
#   hist_add, hist2_add     have no ATOMS.ADD, or any ATOMS.POPC.INC
#   hist_popc, hist2_popc   have no ATOMS.POPC.INC, or any ATOMS.ADD
#   hist_fast_add, hist_fast_h16*   have no ATOMS.ADD, or any ATOMS.POPC.INC
#                           (increments of 1 + opaque 0, or of 1 << 16)
#   other hist_fast*        have no ATOMS.POPC.INC
# in any architecture's code.  Exit 77 (skipped) where cuobjdump is missing.
#
#   examples/histogram/check_sass.sh HISTOGRAM_BINARY [SASS_OUT.txt]
set -eu
bin=$1
sass_out=${2:-}
cuobjdump=${CUOBJDUMP:-cuobjdump}
if ! command -v "$cuobjdump" >/dev/null 2>&1; then
    if [ -x /usr/local/cuda/bin/cuobjdump ]; then
        cuobjdump=/usr/local/cuda/bin/cuobjdump
    else
        echo "skipped: cuobjdump not found (it ships with the CUDA toolkit on GPU machines)"
        exit 77
    fi
fi
tmp=$(mktemp)
table=$(mktemp)
trap 'rm -f "$tmp" "$table"' EXIT
"$cuobjdump" -sass "$bin" >"$tmp"
[ -n "$sass_out" ] && cp "$tmp" "$sass_out"
awk '
    /code for sm_/ { match($0, /sm_[0-9]+[a-z]*/); arch = substr($0, RSTART, RLENGTH) }
    /Function : / { fn = $NF; seen[arch " " fn] = 1 }
    /ATOMS\./ {
        match($0, /ATOMS\.[A-Z0-9.]+/); op = substr($0, RSTART, RLENGTH)
        sub(/\.(32|64|U32|S32)$/, "", op)
        count[arch " " fn " " op]++
    }
    END {
        bad = 0
        for (k in seen) {
            split(k, p, " "); a = p[1]; f = p[2]
            add = count[k " ATOMS.ADD"] + 0; popc = count[k " ATOMS.POPC.INC"] + 0
            line = sprintf("%-6s %-24s ATOMS.ADD %3d  ATOMS.POPC.INC %3d", a, substr(f, 1, 24), add, popc)
            for (c in count) { split(c, q, " "); if (q[1] == a && q[2] == f && q[3] != "ATOMS.ADD" && q[3] != "ATOMS.POPC.INC") line = line sprintf("  %s %d", q[3], count[c]) }
            ok = 1
            if (f == "hist_add" || f == "hist2_add") ok = add > 0 && popc == 0
            else if (f == "hist_popc" || f == "hist2_popc") ok = popc > 0 && add == 0
            else if (f == "hist_fast_add" || f ~ /^hist_fast_h16/) ok = add > 0 && popc == 0
            else if (f ~ /^hist_fast/) ok = popc > 0
            print line (ok ? "" : "   <-- not the intended opcode")
            if (!ok) bad++
            checked += (f ~ /^hist/) ? 1 : 0
        }
        if (checked == 0) { print "no histogram kernels found in the SASS"; exit 1 }
        exit bad ? 1 : 0
    }' "$tmp" >"$table" && rc=0 || rc=$?
sort "$table"
exit $rc
