#!/usr/bin/env bash
# What profiling costs: runs a program plain, under `gpuq profile` and under
# `ncu --metrics <the same metrics>`, several times each, and prints the
# median wall time and the time added per profiled kernel launch.
#
#   usage: scripts/bench_profile_overhead.sh [-n RUNS] [-g GPUQ] [-G "GPUQ OPTIONS"]
#                                            PROGRAM [ARGS...]
#     -n RUNS   timed runs of each variant after one warm-up run (default 5)
#     -g GPUQ   the gpuq program (default: build/gpuq)
#     -G OPTS   extra options for gpuq profile, e.g. "--table T.csv --force"
#
# Variants:
#   plain            the program alone
#   gpuq counters    gpuq profile --no-opcode-split (one run of the program)
#   gpuq both        gpuq profile (a second run for the ATOMS opcode split)
#   ncu              ncu --clock-control none --cache-control none --metrics <list>
#   gpuq/ncu fixed   the same with a kernel filter nothing matches: start-up
#                    and teardown without any profiled launch
# "added per launch" is (variant - plain) / launches; "marginal per launch"
# is (variant - its fixed cost) / launches, the cost of one more launch.
# Launches = rows of gpuq's counters file (ncu profiles the same launches,
# plus the kernel nodes of CUDA graphs, which gpuq skips).
set -u

runs=5
gpuq=build/gpuq
gpuq_opts=""
while getopts "n:g:G:h" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    g) gpuq=$OPTARG ;;
    G) gpuq_opts=$OPTARG ;;
    h) sed -n '2,24p' "$0"; exit 0 ;;
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

# gm_metric_list_csv() in src/model/counters.c: the metrics gpuq collects.
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

# Prints the wall time of one run in microseconds.
time_us() {
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null 2>"$work/last.stderr"
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 ))
}

# Runs a variant 1 + runs times; prints "median min max" in microseconds.
measure() {
  local i samples=()
  time_us "$@" >/dev/null
  for ((i = 0; i < runs; i++)); do
    samples+=("$(time_us "$@")")
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk '{ v[NR] = $1 }
    END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR] }'
}

# shellcheck disable=SC2086  # gpuq_opts is a list of options
plain=$(measure "$@")
g1=$(measure "$gpuq" profile --no-opcode-split --keep-counters "$counters" -o "$work/report.txt" $gpuq_opts -- "$@")
launches=$(grep -c '^[0-9]' "$counters" 2>/dev/null || echo 0)
if [ "$launches" -eq 0 ]; then
  echo "bench_profile_overhead: gpuq profiled no launch:" >&2
  cat "$work/last.stderr" >&2
  exit 3
fi
g2=$(measure "$gpuq" profile --keep-counters "$counters" -o "$work/report.txt" $gpuq_opts -- "$@")
g0=$(measure "$gpuq" profile --no-opcode-split -k "$nothing" --keep-counters "$counters" $gpuq_opts -- "$@")
n1=$(measure ncu --clock-control none --cache-control none --metrics "$metrics" "$@")
n0=$(measure ncu --clock-control none --cache-control none -k "regex:$nothing" --metrics "$metrics" "$@")

echo "device:   $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "program:  $*"
echo "runs:     $runs timed runs per variant after one warm-up; wall time median (min-max)"
echo "profiled: $launches launches per run"
echo
awk -v runs="$runs" -v L="$launches" -v plain="$plain" -v g1="$g1" -v g2="$g2" -v g0="$g0" \
    -v n1="$n1" -v n0="$n0" 'BEGIN {
  split(plain, p); split(g1, a); split(g2, b); split(g0, f); split(n1, c); split(n0, z)
  printf "%-28s %10s %19s %16s %19s\n", "variant", "median s", "(min-max) s", "added/launch ms", "marginal/launch ms"
  row("plain", p, "", "")
  row("gpuq profile, counters only", a, (a[1] - p[1]) / L, (a[1] - f[1]) / L)
  row("gpuq profile, both passes", b, (b[1] - p[1]) / L, (b[1] - 2 * f[1]) / L)
  row("ncu --metrics (same list)", c, (c[1] - p[1]) / L, (c[1] - z[1]) / L)
  row("gpuq fixed (no launch)", f, "", "")
  row("ncu fixed (no launch)", z, "", "")
  printf "\nncu / gpuq (both passes), added per launch: %.1fx\n", (c[1] - p[1]) / (b[1] - p[1])
}
function row(name, v, added, marginal) {
  printf "%-28s %10.3f %9.3f-%-9.3f %16s %19s\n", name, v[1] / 1e6, v[2] / 1e6, v[3] / 1e6,
         added == "" ? "" : sprintf("%.2f", added / 1e3), marginal == "" ? "" : sprintf("%.2f", marginal / 1e3)
}'
