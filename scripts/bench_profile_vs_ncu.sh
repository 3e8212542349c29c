#!/usr/bin/env bash
# What gpuq's default report costs against ncu collecting the same metrics,
# side by side in one invocation:
#
#   scripts/bench_profile_vs_ncu.sh [-n RUNS] [-g GPUQ] [-F] PROGRAM [ARGS...]
#     -n RUNS   timed rounds after one warm-up round (default 3); each round
#               runs every variant once, so that drift spreads over all alike
#     -g GPUQ   the gpuq program (default: build/gpuq)
#     -F        leave out the "gpuq full" variant (long programs)
#
# Variants:
#   plain          the program alone
#   gpuq           gpuq profile (every section: the default report)
#   gpuq atomics   gpuq profile --section atomics
#   gpuq full      gpuq profile --full-launches 0: every launch measured in
#                  full, replays and all (the default measures a kernel
#                  shape's repeats in one pass)
#   ncu            ncu --metrics <every metric column that has a value in the
#                  gpuq variant's counters file>, kernel replay, clocks and
#                  caches as found
#   ncu atomics    the same with the gpuq atomics variant's columns
# The metric lists are read from the warm-up round's counters files, so ncu
# collects what gpuq's report was made from (the instrumented _sass_ counts
# included, which gpuq takes from its code pass).  "added" is variant -
# plain (median wall time); the ratio is gpuq's added time over ncu's.
set -u
runs=3
gpuq=build/gpuq
names=(plain gpuq gpuq_atomics gpuq_full ncu ncu_atomics)
while getopts "n:g:Fh" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    g) gpuq=$OPTARG ;;
    F) names=(plain gpuq gpuq_atomics ncu ncu_atomics) ;;
    h) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "bench_profile_vs_ncu: see -h" >&2; exit 1 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "bench_profile_vs_ncu: no program given (see -h)" >&2; exit 1; }
[ -x "$gpuq" ] || { echo "bench_profile_vs_ncu: '$gpuq' is not executable (build gpuq, or -g)" >&2; exit 2; }
command -v ncu >/dev/null 2>&1 || { echo "bench_profile_vs_ncu: ncu not found on PATH" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuq-vs-ncu.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GPUQ_LOCK_DIR=$work

# Metric columns with a value in some row of a counters file, comma-joined.
metrics_of() {
  python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.reader(l for l in open(sys.argv[1]) if not l.startswith("#")))
hdr, body = rows[0], rows[1:]
print(",".join(h for i, h in enumerate(hdr)
               if "__" in h and any(i < len(r) and r[i] not in ("", "nan") for r in body)))
PY
}
run_variant() {
  local v=$1 t0 t1; shift
  t0=$(date +%s%N)
  case $v in
    plain) "$@" ;;
    gpuq) "$gpuq" profile --keep-counters "$work/all.csv" -o "$work/all.txt" -- "$@" ;;
    gpuq_atomics) "$gpuq" profile --section atomics --keep-counters "$work/atom.csv" -o "$work/atom.txt" -- "$@" ;;
    gpuq_full) "$gpuq" profile --full-launches 0 --keep-counters "$work/full.csv" -o "$work/full.txt" -- "$@" ;;
    ncu) ncu --clock-control none --cache-control none --target-processes all --metrics "$m_all" "$@" ;;
    ncu_atomics) ncu --clock-control none --cache-control none --target-processes all --metrics "$m_atom" "$@" ;;
  esac >"$work/$v.stdout" 2>"$work/$v.stderr"
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 ))
}
declare -A ms
for ((round = 0; round <= runs; round++)); do
  for v in "${names[@]}"; do
    if [ "$round" -eq 0 ]; then
      case $v in ncu*) continue ;; esac
    fi
    t=$(run_variant "$v" "$@")
    [ "$round" -gt 0 ] && ms[$v]="${ms[$v]:-} $t"
  done
  if [ "$round" -eq 0 ]; then
    m_all=$(metrics_of "$work/all.csv") && m_atom=$(metrics_of "$work/atom.csv") ||
      { echo "bench_profile_vs_ncu: gpuq wrote no counters:" >&2; tail -5 "$work/gpuq.stderr" >&2; exit 3; }
  fi
done
median() { printf '%s\n' $1 | sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
range() { printf '%s\n' $1 | sort -n | awk 'NR==1{lo=$1} {hi=$1} END {printf "%.2f-%.2f", lo/1e3, hi/1e3}'; }
launches=$(grep -c '^[0-9]' "$work/all.csv")
ncu_launches=$(grep -c '^==PROF== Profiling' "$work/ncu.stdout" "$work/ncu.stderr" | awk -F: '{s+=$2} END {print s}')
same=""
# The program's output as in the plain run (gpuq runs it once: no variant
# asks for --second-run).
for v in "${names[@]}"; do
  case $v in plain | ncu*) continue ;; esac
  cmp -s "$work/plain.stdout" "$work/$v.stdout" || same="$same $v"
done
echo "device:    $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1); $(ncu --version | tail -1)"
echo "date:      $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "program:   $*"
echo "rounds:    $runs after a warm-up round; wall time median (min-max)"
echo "launches:  gpuq $launches rows; ncu $ncu_launches profiled"
echo "repeats:   $(grep -ho '^gpuq: profile: [0-9]* of the [0-9]* launches repeated' "$work/gpuq.stderr" | head -1 | sed 's/gpuq: profile: //') a measured kernel shape (default); atomics: $(grep -ho '^gpuq: profile: [0-9]* of the' "$work/gpuq_atomics.stderr" | head -1 | sed 's/gpuq: profile: //; s/ of the//') "
echo "metrics:   every section $(echo "$m_all" | tr ',' '\n' | wc -l), atomics $(echo "$m_atom" | tr ',' '\n' | wc -l)"
echo "passes:    $(grep -ho 'need [0-9]* passes' "$work/gpuq.stderr" | head -1) (every section); $(grep -ho 'need [0-9]* passes' "$work/gpuq_atomics.stderr" | head -1) (atomics)"
if [ -n "$same" ]; then echo "output:    DIFFERENT from the plain run's under:$same"
else echo "output:    as the plain run's under every gpuq variant"; fi
p=$(median "${ms[plain]}")
printf '\n%-14s %10s %14s %10s\n' variant "median s" "(min-max) s" "added s"
for v in "${names[@]}"; do
  m=$(median "${ms[$v]}")
  awk -v v="$v" -v m="$m" -v p="$p" -v r="$(range "${ms[$v]}")" \
    'BEGIN {printf "%-14s %10.2f %14s %10s\n", v, m / 1e3, r, v == "plain" ? "" : sprintf("%.2f", (m - p) / 1e3)}'
done
ga=$(median "${ms[gpuq]}"); na=$(median "${ms[ncu]}"); gt=$(median "${ms[gpuq_atomics]}"); nt=$(median "${ms[ncu_atomics]}")
gf=$(median "${ms[gpuq_full]:-}")
awk -v p="$p" -v ga="$ga" -v na="$na" -v gt="$gt" -v nt="$nt" -v gf="$gf" 'BEGIN {
  printf "\nadded time, gpuq / ncu: every section %.3f, atomics %.3f (goal: at most 0.1)",
         (ga - p) / (na - p), (gt - p) / (nt - p)
  if (gf != "") printf "; every launch in full %.3f", (gf - p) / (na - p)
  printf "\n" }'
