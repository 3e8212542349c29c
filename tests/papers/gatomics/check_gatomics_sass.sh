#!/bin/sh
# SASS check of the gatomics suite's timings (test bench_gatomics_sass, label
# gpu): in every stall kernel (ga_stall_*, sm_90 and sm_80 code alike), each
# timed memory instruction (LDG, STG, ATOMG, RED/REDG) must be followed by the
# instruction that waits for it (STS of the result for loads and atomics,
# MEMBAR for stores and reductions) before the next clock read (SR_CLOCKLO;
# load+store: its load; its store is issued, not awaited, as in the paper):
# the timing then includes the operation's completion.  The control kernels
# (ga_nodep_*) must fail that test, so that the check is known to bite.
#   usage: check_gatomics_sass.sh CUOBJDUMP GPUQ
# Exits 77 when cuobjdump cannot be found.
cuobjdump=$1
gpuq=$2
if ! command -v "$cuobjdump" >/dev/null 2>&1; then
  echo "skipped: cuobjdump not found ('$cuobjdump')"
  exit 77
fi
"$cuobjdump" -sass "$gpuq" | awk '
  function finish() {
    if (fn == "") return
    if (fn ~ /^ga_stall_none/) { fn = ""; return }
    ok = (nmem > 0 && nclk >= 2 && bad == 0)
    if (fn ~ /^ga_nodep_/) {
      if (ok) { print "FAIL: control " fn ": every clock read waits (the check cannot tell)"; status = 1 }
      else { print "ok: control " fn ": a clock read does not wait (" bad " unguarded)"; nctl++ }
    } else if (fn ~ /^ga_stall_/) {
      if (!ok) { print "FAIL: " fn ": " nmem " memory ops, " nclk " clock reads, " bad " clock read(s) not waiting"; status = 1 }
      else nok++
    }
    fn = ""
  }
  /Function : / { finish(); fn = $3; nmem = 0; nclk = 0; bad = 0; pending = 0; guarded = 0; next }
  fn != "" && /\/\*[0-9a-f]+\*\// {
    line = $0
    sub(/^[^*]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line)
    if (line ~ /^@/) sub(/^@[^ \t]+[ \t]+/, "", line)
    op = line; sub(/[ \t;].*$/, "", op)
    if (op ~ /^(LDG|STG|ATOMG|RED|REDG)(\.|$)/ && op !~ /^REDUX/) {
      # A store is timed only in the store kernels; elsewhere an STG is the
      # store half of load+store (issued, not awaited, as in the paper
      # load_store) or the epilogue writing the results.
      if (op ~ /^STG/ && fn !~ /^ga_stall_st(32|64)_/) next
      nmem++; pending = 1; guarded = 0
      next
    }
    if (op ~ /^(STS|MEMBAR)/) { if (pending) guarded = 1; next }
    if (line ~ /SR_CLOCKLO/) {
      nclk++
      if (pending && !guarded) bad++
      pending = 0; guarded = 0
    }
  }
  END {
    finish()
    print nok " stall kernel(s) wait for their results, " nctl " control(s) do not"
    if (nok == 0 || nctl == 0) status = 1
    exit status
  }'
