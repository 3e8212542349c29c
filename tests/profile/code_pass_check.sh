#!/bin/sh
# gpuq profile's code pass (gpuq/code_pass.h, src/cli/profile_code.c) without
# a GPU: a fake program plays the collector of both passes from the recorded
# atomics_app files (tests/profile/data), a fake nvdisasm prints the recorded
# disassembly.  The unit that declares a pass is the shared-atomic one, so
# the checks are its opcode split's:
#   - without --second-run the program runs once: the launches the code
#     leaves unsettled get the fallback, and one line counts them;
#   - the second run (--second-run): GPUQ_SASS_METRIC is the pass's metric
#     unless the user set one; every launch gets the split known by
#     construction;
#   - the counters alone settle it when no launch has non-CAS atomics;
#   - --no-code-pass, its alias --no-opcode-split (the pass's own name for
#     it) and a --section without a code pass: one run, no cubins kept;
#     --second-run and --always-rerun contradict either name.
#   - with atomics_app's cubin as the saved code (CUBIN, compiled for sm_90
#     by the build where nvcc is there): one run, the Hopper reader settles
#     the one-opcode kernels, k_mixed alone falls back;
#   usage: code_pass_check.sh GPUQ SRCDIR WORKDIR [CUBIN]
set -u
gpuq=$1 src=$2 work=$3 cubin=${4:-}
rm -rf "$work" && mkdir -p "$work" || exit 2
work=$(cd "$work" && pwd) src=$(cd "$src" && pwd)
case $gpuq in /*) ;; *) gpuq=$(pwd)/$gpuq ;; esac
data="$src/tests/profile/data"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2'"; }

# The fake collector: the program gpuq runs.  The recorded sass file counts
# every instruction (it has no metric line), so the fake says so whatever
# metric it was asked for, and writes down the one it was asked for.
cat > "$work/fake.sh" <<EOF
#!/bin/sh
out="\$GPUQ_OUT\${GPUQ_OUT_TMP:-}"
pass=\${GPUQ_PASS:-counters}
if [ "\$pass" = counters ]; then
  cp "\${FAKE_COUNTERS:-$data/gh100_atomics_app.counters.csv}" "\$out"
  rows=\$(grep -vc '^#\\|^launch_id' "\$out")
  [ -n "\${GPUQ_CUBIN_DIR:-}" ] && echo cubins > "$work/cubins.\$\$"
  [ -n "\${GPUQ_CUBIN_DIR:-}" ] && [ -n "\${FAKE_CUBIN:-}" ] && mkdir -p "\$GPUQ_CUBIN_DIR" &&
    cp "\$FAKE_CUBIN" "\$GPUQ_CUBIN_DIR/app.cubin"
else
  mkdir -p "\$GPUQ_CUBIN_DIR" && echo x > "\$GPUQ_CUBIN_DIR/x.cubin"
  { echo "# gpuq sass pass v1"; echo "metric,smsp__sass_inst_executed"
    sed -e 1d -e "s|^cubin,\\([^,]*\\),.*|cubin,\\1,\$GPUQ_CUBIN_DIR/x.cubin|" \\
      "$data/gh100_atomics_app.sass.csv"; } > "\$out"
  echo "\${GPUQ_SASS_METRIC:-unset}" > "$work/sass_metric.\$\$"
  rows=10
fi
{ echo "# gpuq collector status v1"; echo "pid: \$\$"; echo "pass: \$pass"; echo "output: \$out"
  echo "device_name: NVIDIA H200"; echo "sm_count: 132"; echo "compute_capability: 9.0"
  echo "replay: user"; echo "passes: 1"; echo "profiled_launches: \$rows"
  echo "rows_written: \$rows"; echo "launches_seen: \$rows"; echo "drained: 1"
  echo "error_kind: none"; } > "\$GPUQ_STATUS.\$\$"
EOF
printf '#!/bin/sh\ncat "%s"\n' "$data/gh100_atomics_app.nvdisasm.txt" > "$work/nvdisasm"
chmod +x "$work/fake.sh" "$work/nvdisasm"
export GPUQ_INJECT_LIB="$work/fake.sh" GPUQ_NVDISASM="$work/nvdisasm"
unset GPUQ_SASS_METRIC
table="$src/tables/nvidia-h200/atomics.csv.gz"
run() { # NAME ARGS...: gpuq profile, counters in NAME.csv, stderr in NAME.err
  name=$1; shift
  rm -f "$work"/sass_metric.* "$work"/cubins.*
  (cd "$work" && "$gpuq" profile --table "$table" --force --keep-counters "$name.csv" \
     -f csv -o "$name.report.csv" "$@" -- ./fake.sh > "$name.out" 2> "$name.err")
  rc=$?
  [ $rc -eq 0 ] || fail "$name: gpuq exited $rc: $(cat "$work/$name.err")"
}
# split_valid,split_add,split_cas,split_popc_inc,split_other of each launch
splits() { awk -F, '!/^#/ && !/^launch_id/ {print $(NF-4) "," $(NF-3) "," $(NF-2) "," $(NF-1) "," $NF}' "$1"; }
# the same of FILE's first launch of KERNEL
split_of() { grep "^[0-9]*,\"$2(" "$1" | head -1 | splits /dev/stdin; }

# 0. The code does not settle it (no cubin holds the kernels), and no
# --second-run: one run; the CAS-only and atomic-free launches are settled by
# their counters, the six with non-CAS atomics are not, and a line says so.
run once
ls "$work"/sass_metric.* > /dev/null 2>&1 && fail "once: a second run"
has "$work/once.err" "no opcode split for 6 of 10 launches (in no cubin the program loaded: k_add_same): the report uses the hardware FAO/CAS split for them; --second-run runs the program again to count their instructions"
[ "$(splits "$work/once.csv" | grep -c '^1,')" = 4 ] || fail "once: not 4 launches with a split"
[ "$(splits "$work/once.csv" | grep -c '^0,')" = 6 ] || fail "once: not 6 launches without one"

# 0b. The code there, no --second-run: atomics_app's cubin compiled now, no
# disassembler (one that fails), so the Hopper reader alone reads it.
if [ -n "$cubin" ] && [ -f "$cubin" ]; then
  printf '#!/bin/sh\necho no disassembler here >&2\nexit 1\n' > "$work/nodis"
  chmod +x "$work/nodis"
  GPUQ_NVDISASM="$work/nodis" FAKE_CUBIN="$cubin" run code
  ls "$work"/sass_metric.* > /dev/null 2>&1 && fail "code: a second run"
  has "$work/code.err" "no opcode split for 1 of 10 launches (the kernel has several non-CAS ATOMS opcodes: k_mixed)"
  [ "$(splits "$work/code.csv" | grep -c '^1,')" = 9 ] || fail "code: not 9 launches with a split"
  for k in "k_add_same:1,4194304,0,0,0" "k_popc_inc:1,0,0,4194304,0" "k_mixed:0,,,,"; do
    kernel=${k%%:*} want=${k#*:}
    got=$(split_of "$work/code.csv" "$kernel")
    [ "$got" = "$want" ] || fail "code: $kernel: split $got, want $want"
  done
else
  echo "code pass: no cubin built (no nvcc): the Hopper reader case is not run"
fi

# 1. The same with --second-run: a second run, with the pass's SASS metric,
# and every launch's split known by construction.
run rerun --second-run
has "$work/rerun.err" "running the program again for the ATOMS opcode split (--second-run)"
[ "$(cat "$work"/sass_metric.* 2>/dev/null)" = smsp__sass_inst_executed_op_shared_atom ] ||
  fail "the sass pass ran with GPUQ_SASS_METRIC '$(cat "$work"/sass_metric.* 2>/dev/null)'"
[ "$(splits "$work/rerun.csv" | grep -c '^1,')" = 10 ] || fail "not every launch has a split"
for k in "k_add_same:1,4194304,0,0,0" "k_popc_inc:1,0,0,4194304,0" "k_cas_distinct:1,0,4194304,0,0" \
         "k_mixed:1,4194304,4194304,4194304,0" "k_no_atomics:1,0,0,0,0"; do
  kernel=${k%%:*} want=${k#*:}
  got=$(split_of "$work/rerun.csv" "$kernel")
  [ "$got" = "$want" ] || fail "$kernel: split $got, want $want"
done

# 2. A user's GPUQ_SASS_METRIC wins.
GPUQ_SASS_METRIC=smsp__sass_inst_executed run user --always-rerun
[ "$(cat "$work"/sass_metric.* 2>/dev/null)" = smsp__sass_inst_executed ] ||
  fail "the user's GPUQ_SASS_METRIC was not passed on"

# 3. No launch with non-CAS shared atomics: the counters settle it, one run.
awk '/^#|^launch_id/ {print; next} /cas_distinct|no_atomics/ {print}' \
  "$data/gh100_atomics_app.counters.csv" > "$work/cas_only.template"
FAKE_COUNTERS="$work/cas_only.template" run cas
has "$work/cas.err" "no launch has non-CAS shared atomics: the opcode split follows from the hardware counters, no second run"
ls "$work"/sass_metric.* > /dev/null 2>&1 && fail "cas: a second run"
[ "$(splits "$work/cas.csv" | grep -c '^1,')" = 4 ] || fail "cas: not every launch has a split"

# 4. --no-code-pass, --no-opcode-split, and a section without a code pass:
# one run, no cubins kept, no split.
# (The fake's counters hold the shared-atomic metrics whatever --section
# says: the pass follows the sections asked for, not what was gathered.)
for name in none alias other; do
  case $name in
    none) run none --no-code-pass ;;
    alias) run alias --no-opcode-split ;;
    other) run other --section gatomics ;;
  esac
  ls "$work"/sass_metric.* > /dev/null 2>&1 && fail "$name: a second run"
  ls "$work"/cubins.* > /dev/null 2>&1 && fail "$name: the cubins were kept"
  grep -q "opcode split" "$work/$name.err" && fail "$name: $(grep "opcode split" "$work/$name.err")"
  [ "$(splits "$work/$name.csv" | grep -c '^1,')" = 0 ] || fail "$name: a split"
done

for run_opt in --second-run --always-rerun; do
  for opt in --no-code-pass --no-opcode-split; do
    "$gpuq" profile $run_opt $opt -- /bin/true > /dev/null 2> "$work/both.err"
    [ $? -eq 1 ] || fail "$run_opt $opt: not a usage error"
    has "$work/both.err" "gpuq: profile: $run_opt and $opt contradict each other"
  done
done
"$gpuq" profile --help > "$work/help.txt" 2>&1
has "$work/help.txt" "--no-code-pass       skip the second run"
has "$work/help.txt" "--no-opcode-split    the same"

[ $fails -eq 0 ] && echo "code pass: one run, second run, user metric, counters alone, none: ok"
exit $fails
