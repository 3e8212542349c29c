#!/usr/bin/env bash
# What profiling costs: runs a program plain, under `gpuq profile` (several
# ways) and under `ncu --metrics <the same metrics>`, side by side in one
# invocation, and prints the median wall time and the time added per
# profiled kernel launch.
#
#   usage: scripts/bench_profile_overhead.sh [-n RUNS] [-g GPUQ] [-G "GPUQ OPTIONS"]
#                                            [-O OLD_GPUQ] PROGRAM [ARGS...]
#     -n RUNS   timed rounds after one warm-up round (default 5); each round
#               runs every variant once, in the order below, so that drift
#               of the machine spreads over all variants alike
#     -g GPUQ   the gpuq program (default: build/gpuq)
#     -G OPTS   extra options for gpuq profile, e.g. "--table T.csv --force"
#     -O GPUQ   also time this other gpuq build's default run ("before", e.g.
#               the code before a change), in the same rounds
#
# gpuq collects the hardware metrics of the ncu list below (GPUQ_METRICS;
# ncu's list adds the instrumented _sass_ one, which gpuq's split replaces):
# paper 000's Table 1, one pass.  "gpuq all units" collects every registered
# unit's metrics, gpuq's default (several passes: kernel replay).
#
# Variants:
#   plain             the program alone
#   gpuq default      gpuq profile: the counters run, and a second run for the
#                     ATOMS opcode split only when the counters and the
#                     disassembly do not settle it (the line says which)
#   gpuq counters     gpuq profile --no-opcode-split (one run)
#   gpuq counters K=1 the same with GPUQ_BATCH=1: one range profiler window
#                     per launch, the collector's behaviour before batching
#   gpuq two runs     gpuq profile --always-rerun (instrumented second run)
#   gpuq all units    gpuq profile --no-opcode-split with every unit's metrics
#   before            -O GPUQ's default run
#   ncu               ncu --clock-control none --cache-control none
#                     --target-processes all --metrics <list>
#   gpuq/ncu fixed    the same with a kernel filter nothing matches: start-up
#                     and teardown without any profiled launch
# "added per launch" is (variant - plain) / launches; "marginal per launch"
# is (variant - its fixed cost x program runs) / launches, the cost of one
# more launch.  Launches = rows of gpuq's counters file (ncu profiles the
# same launches, plus the kernel nodes of CUDA graphs, which gpuq skips; its
# count, its "==PROF== Profiling" lines, is printed beside).  The program's
# standard output under gpuq is compared with the plain run's.
# BENCH_VARIANTS="plain default ..." times only these variants;
# BENCH_NCU_ROUNDS=N runs the two ncu variants in the first N timed rounds
# only and not in the warm-up round (ncu costs about 0.1 s per launch: on a
# program of hundreds of launches one ncu run takes most of a minute).
set -u

runs=5
gpuq=build/gpuq
gpuq_opts=""
old_gpuq=""
while getopts "n:g:G:O:h" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    g) gpuq=$OPTARG ;;
    G) gpuq_opts=$OPTARG ;;
    O) old_gpuq=$OPTARG ;;
    h) sed -n '2,46p' "$0"; exit 0 ;;
    *) echo "bench_profile_overhead: see -h" >&2; exit 1 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ]; then
  echo "bench_profile_overhead: no program given (see -h)" >&2
  exit 1
fi
[ -x "$gpuq" ] || { echo "bench_profile_overhead: '$gpuq' is not executable (build gpuq, or -g)" >&2; exit 2; }
command -v ncu >/dev/null 2>&1 || { echo "bench_profile_overhead: ncu not found on PATH" >&2; exit 2; }

# gm_metric_list_csv() in src/core/counters.c: the metrics gpuq collects.
metrics=smsp__sass_inst_executed_op_shared_atom.sum,smsp__inst_executed_op_shared_atom.sum,\
smsp__inst_executed_op_shared_atom_dot_cas.sum,smsp__inst_executed_op_shared_atom_dot_alu.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,sm__cycles_active.sum,\
sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,\
sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,\
sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum,sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum
nothing='^gpuq_bench_matches_no_kernel$'

work=$(mktemp -d "${TMPDIR:-/tmp}/gpuq-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
counters="$work/counters.csv"

export GPUQ_METRICS=${GPUQ_METRICS:-${metrics#smsp__sass_inst_executed_op_shared_atom.sum,}}
names=(plain default counters counters_k1 two_runs all_units ncu gpuq_fixed ncu_fixed)
[ -n "$old_gpuq" ] && names+=(before)
# BENCH_VARIANTS="plain default ...": time only these (plain, default and
# gpuq_fixed are always kept: the table is computed from them).
if [ -n "${BENCH_VARIANTS:-}" ]; then
  keep=()
  for v in "${names[@]}"; do
    case " plain default gpuq_fixed $BENCH_VARIANTS " in *" $v "*) keep+=("$v") ;; esac
  done
  names=("${keep[@]}")
fi
# Runs variant $1 once; prints its wall time in microseconds.
run_variant() {
  local t0 t1 v=$1
  shift
  t0=$(date +%s%N)
  # shellcheck disable=SC2086  # gpuq_opts is a list of options
  case $v in
    plain) "$@" ;;
    default) "$gpuq" profile --keep-counters "$counters" -o "$work/report.txt" $gpuq_opts -- "$@" ;;
    counters) "$gpuq" profile --no-opcode-split --keep-counters "$work/c1.csv" -o "$work/r1.txt" $gpuq_opts -- "$@" ;;
    counters_k1) GPUQ_BATCH=1 "$gpuq" profile --no-opcode-split --keep-counters "$work/c2.csv" -o "$work/r2.txt" $gpuq_opts -- "$@" ;;
    two_runs) "$gpuq" profile --always-rerun --keep-counters "$work/c3.csv" -o "$work/r3.txt" $gpuq_opts -- "$@" ;;
    all_units) env -u GPUQ_METRICS -u GPUQ_SECTIONS "$gpuq" profile --no-opcode-split --keep-counters "$work/c5.csv" -o "$work/r5.txt" $gpuq_opts -- "$@" ;;
    before) env -u GPUQ_METRICS -u GPUQ_SECTIONS "$old_gpuq" profile --keep-counters "$work/c6.csv" -o "$work/r6.txt" $gpuq_opts -- "$@" ;;
    ncu) ncu --clock-control none --cache-control none --target-processes all --metrics "$metrics" "$@" ;;
    gpuq_fixed) "$gpuq" profile --no-opcode-split -k "$nothing" --keep-counters "$work/c4.csv" $gpuq_opts -- "$@" ;;
    ncu_fixed) ncu --clock-control none --cache-control none --target-processes all -k "regex:$nothing" --metrics "$metrics" "$@" ;;
  esac >"$work/$v.stdout" 2>"$work/$v.stderr"
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 ))
}

declare -A samples
for ((round = 0; round <= runs; round++)); do   # round 0 is the warm-up
  for v in "${names[@]}"; do
    case $v in ncu|ncu_fixed)
      if [ -n "${BENCH_NCU_ROUNDS:-}" ] && { [ "$round" -eq 0 ] || [ "$round" -gt "$BENCH_NCU_ROUNDS" ]; }; then
        continue
      fi ;;
    esac
    t=$(run_variant "$v" "$@")
    [ "$round" -gt 0 ] && samples[$v]="${samples[$v]:-} $t"
  done
done

launches=$(grep -c '^[0-9]' "$counters" 2>/dev/null || echo 0)
if [ "$launches" -eq 0 ]; then
  echo "bench_profile_overhead: gpuq profiled no launch:" >&2
  cat "$work/default.stderr" >&2
  exit 3
fi
# ncu's launches: one "==PROF== Profiling" line each.
ncu_launches=""
[ -f "$work/ncu.stdout" ] && ncu_launches=$(cat "$work/ncu.stdout" "$work/ncu.stderr" | grep -c '^==PROF== Profiling')
# The program's output under gpuq against the plain run's (gpuq writes its
# report to -o in these variants, so their standard output is the program's).
same=""; differ=""
for v in default counters counters_k1 two_runs; do
  [ -f "$work/$v.stdout" ] || continue
  if cmp -s "$work/plain.stdout" "$work/$v.stdout"; then same="$same $v"; else differ="$differ $v"; fi
done
# Rows of each gpuq variant's counters file (last run), against the default's.
rows=""
for f in c1:counters c2:counters_k1 c3:two_runs c5:all_units; do
  [ -f "$work/${f%%:*}.csv" ] && rows="$rows, ${f#*:} $(grep -c '^[0-9]' "$work/${f%%:*}.csv")"
done
# How many times the default variant ran the program.
default_runs=1
grep -q "running the program again" "$work/default.stderr" && default_runs=2

# "median min max" of a variant's samples, microseconds.
stats() {
  [ -n "${samples[$1]:-}" ] || return 0
  printf '%s\n' ${samples[$1]} | sort -n | awk '{ v[NR] = $1 }
    END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR] }'
}

echo "device:   $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "program:  $*"
echo "gpuq:     $gpuq profile $gpuq_opts (GPUQ_BATCH ${GPUQ_BATCH:-default})"
echo "runs:     $runs rounds of every variant after one warm-up round; wall time median (min-max)"
echo "profiled: $launches launches per run; the default variant ran the program $default_runs time(s)"
[ -n "$ncu_launches" ] && echo "ncu:      $ncu_launches launches profiled in its last run${BENCH_NCU_ROUNDS:+ (ncu variants in $BENCH_NCU_ROUNDS timed round(s) only)}"
[ -n "$rows" ] && echo "rows:     default $launches$rows"
echo "output:   as the plain run's:${same:- none}${differ:+; DIFFERENT:$differ}"
echo
awk -v L="$launches" -v dr="$default_runs" -v plain="$(stats plain)" -v d="$(stats default)" \
    -v c="$(stats counters)" -v k1="$(stats counters_k1)" -v two="$(stats two_runs)" \
    -v n="$(stats ncu)" -v gf="$(stats gpuq_fixed)" -v nf="$(stats ncu_fixed)" \
    -v au="$(stats all_units)" -v bf="$( [ -n "$old_gpuq" ] && stats before)" 'BEGIN {
  split(plain, p); split(d, D); split(c, C); split(k1, K); split(two, T); split(n, N)
  split(gf, F); split(nf, Z); split(au, A); split(bf, B)
  printf "%-34s %10s %19s %16s %19s\n", "variant", "median s", "(min-max) s", "added/launch ms", "marginal/launch ms"
  row("plain", p, "", "")
  row(sprintf("gpuq profile (default, %d run%s)", dr, dr == 1 ? "" : "s"), D, (D[1] - p[1]) / L, (D[1] - dr * F[1]) / L)
  if (c != "") row("gpuq profile --no-opcode-split", C, (C[1] - p[1]) / L, (C[1] - F[1]) / L)
  if (k1 != "") row("  the same, GPUQ_BATCH=1", K, (K[1] - p[1]) / L, (K[1] - F[1]) / L)
  if (two != "") row("gpuq profile --always-rerun", T, (T[1] - p[1]) / L, (T[1] - 2 * F[1]) / L)
  if (au != "") row("gpuq, metrics of every unit", A, (A[1] - p[1]) / L, "")
  if (bf != "") row("before (-O, its default run)", B, (B[1] - p[1]) / L, "")
  if (n != "") row("ncu --metrics (same list)", N, (N[1] - p[1]) / L, (N[1] - Z[1]) / L)
  row("gpuq fixed (no launch)", F, "", "")
  if (nf != "") row("ncu fixed (no launch)", Z, "", "")
  if (n != "")
    printf "\nadded per launch, ncu / gpuq: default %.1fx\n", (N[1] - p[1]) / (D[1] - p[1])
}
function row(name, v, added, marginal) {
  printf "%-34s %10.3f %9.3f-%-9.3f %16s %19s\n", name, v[1] / 1e6, v[2] / 1e6, v[3] / 1e6,
         added == "" ? "" : sprintf("%.2f", added / 1e3), marginal == "" ? "" : sprintf("%.2f", marginal / 1e3)
}'
