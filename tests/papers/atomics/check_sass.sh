#!/bin/sh
# SASS check of the calibrate kernels (test bench_sass, label gpu).
#   usage: check_sass.sh CUOBJDUMP OBJECT...
# Fails unless each class's kernels hold exactly the intended ATOMS opcodes
# (ADD: ATOMS.ADD and ATOMS.CAS, since its series mixes CAS in; CAS:
# ATOMS.CAS; POPC_INC: ATOMS.POPC.INC), none of them addressed through a
# uniform register ("[UR...]": the compiler proved the address warp-uniform
# and may aggregate the warp's lanes into one operation), no REDUX/MATCH/VOTE
# (the instructions of warp aggregation) ahead of the last ATOMS, and the
# completion clock read after every ATOMS comes after an instruction that
# reads the atomic's result register (for POPC.INC, which has none: the
# result of the shared load that follows it), so in-order issue makes the
# clock wait for the result.
# Exits 77 when cuobjdump cannot be found.
cuobjdump=$1
shift
if ! command -v "$cuobjdump" >/dev/null 2>&1; then
  echo "skipped: cuobjdump not found ('$cuobjdump'; it ships with the CUDA toolkit)"
  exit 77
fi
# One cuobjdump per object: given several files it read only the first
# (seen with check_suite_sass.sh on CUDA 13).
sass=""
for obj in "$@"; do
  out=$("$cuobjdump" -sass "$obj" 2>&1) || { echo "FAIL: $cuobjdump -sass $obj: $out"; exit 1; }
  sass="$sass
$out"
done

# One line per kernel: name, then the findings.
report=$(printf '%s\n' "$sass" | awk '
  function flush() {
    if (name != "") {
      n = split(opset, parts, " "); out = ""
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (parts[j] < parts[i]) { t = parts[i]; parts[i] = parts[j]; parts[j] = t }
      for (i = 1; i <= n; i++) if (i == 1 || parts[i] != parts[i-1]) out = out (out == "" ? "" : ",") parts[i]
      printf "%s ops=%s uniform_addr=%d aggregation_before_atoms=%d clock_after_result=%d\n", name, (out == "" ? "none" : out), uni, agg_before_last, (checked > 0 && bad == 0)
    }
  }
  /Function :/ { flush(); name = $3; opset = ""; uni = 0; agg = 0; agg_before_last = 0; pending = 0; need_load = 0; checked = 0; bad = 0; next }
  /\/\*[0-9a-f]+\*\// {
    line = $0
    sub(/^[^*]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line)
    sub(/[ \t]*;.*$/, "", line)
    pred = ""
    if (line ~ /^@/) { pred = line; sub(/[ \t].*$/, "", pred); sub(/^@[^ \t]+[ \t]+/, "", line) }
    op = line; sub(/[ \t].*$/, "", op)
    args = line; sub(/^[^ \t]+[ \t]*/, "", args)
    dest = args; sub(/,.*$/, "", dest)
    srcs = args; if (index(srcs, ",")) sub(/^[^,]*,/, "", srcs); else srcs = ""
    if (op ~ /^(REDUX|MATCH|VOTE)/) agg = 1
    if (op ~ /^ATOMS\./) {
      base = op; sub(/\.(32|U32|S32|64|U64)$/, "", base)
      opset = opset " " base
      if (args ~ /\[UR/) uni = 1
      if (agg) agg_before_last = 1
      # The completion clock must wait for this result (or, without one,
      # for the shared load that follows the atomic).
      pending = 1; satisfied = 0
      if (dest == "RZ") { need_load = 1; wait = "" } else { need_load = 0; wait = dest }
      next
    }
    if (pending && need_load && op ~ /^LDS/) { need_load = 0; wait = dest; next }
    if (op ~ /^CS2R/ && args ~ /SR_CLOCKLO/) {
      if (pending) { checked++; if (!satisfied) bad = 1 }
      pending = 0
      next
    }
    if (pending && wait != "" && srcs ~ ("(^|[^0-9A-Z_.])" wait "([^0-9]|$)")) satisfied = 1
  }
  END { flush() }')

status=0
for cls in add cas popc_inc; do
  case $cls in
    add) want="ATOMS.ADD,ATOMS.CAS"; pat="gb_op_addE" ;;
    cas) want="ATOMS.CAS"; pat="gb_op_casE" ;;
    popc_inc) want="ATOMS.POPC.INC"; pat="gb_op_popc_incE" ;;
  esac
  lines=$(printf '%s\n' "$report" | grep "gb_atomic_kernel" | grep "$pat")
  # Distinct names: the object holds one SASS copy per real architecture
  # (CMAKE_CUDA_ARCHITECTURES), and every copy is checked below.
  count=$(printf '%s\n' "$lines" | awk 'NF { print $1 }' | sort -u | grep -c . )
  if [ "$count" -ne 2 ]; then
    echo "FAIL: $cls: expected 2 kernels (single_shot, steady_state), found $count"
    status=1
    continue
  fi
  printf '%s\n' "$lines" | while read -r name ops uni agg pclock; do
    echo "$cls: $ops $uni $agg $pclock  ($name)"
    [ "$ops" = "ops=$want" ] || { echo "FAIL: $cls kernel $name: $ops, want ops=$want"; exit 1; }
    [ "$uni" = "uniform_addr=0" ] || { echo "FAIL: $cls kernel $name: ATOMS on a uniform-register address"; exit 1; }
    [ "$agg" = "aggregation_before_atoms=0" ] || { echo "FAIL: $cls kernel $name: REDUX/MATCH/VOTE before an ATOMS"; exit 1; }
    [ "$pclock" = "clock_after_result=1" ] || { echo "FAIL: $cls kernel $name: a completion clock read does not wait for the atomic's result"; exit 1; }
  done || status=1
done
[ $status -eq 0 ] && echo "ok: every calibrate kernel holds exactly its intended ATOMS opcodes"
exit $status
