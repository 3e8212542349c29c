#!/usr/bin/env bash
# The validation suite, one command, on a GPU machine:
#
#   validation/run.sh BUILD_DIR OUTDIR [validate_app selection: --group G | --case NAME ...]
#
# BUILD_DIR is a gpuq build (validate_app in BUILD_DIR/validation, gpuq in
# BUILD_DIR).  Writes to OUTDIR:
#   env.txt          versions and device
#   sass_check.txt   opcodes of every validation kernel (check_sass.py)
#   times.csv        validate_app timing run: launch shapes, times, truth inputs
#   manifest.csv     the same cases run once each under the profiler
#   ncu.csv          ncu counters of that run (13 gpuq metrics + LSU latency
#                    + warp-stall counters),
#                    details page; ncu_raw.csv the raw page (gpuq model's input)
#   counters.csv     gpuq profile's counters of the same run (--keep-counters), when it works
#   model_<v>.csv    gpuq model --model <v> --format csv, per variant
#   joined.csv       truth, raw counters and every variant's U per case
#   report.md, scatter.svg   analyze.py report
#   latency.md       latency.py report: the throughput/latency verdict's bars
#   collectors.md, collectors.csv   gpuq profile's counters against ncu's
#                    (analyze.py collectors), when both ran
# Steps that cannot run (no ncu, gpuq model not built) are skipped with a
# message; the steps before them still leave their files.
#
# Environment: GPUQ_MODEL_ARGS (extra arguments for gpuq model, e.g.
# "--table FILE"), GPUQ_PROFILE_ARGS (extra for gpuq profile), NCU (ncu path),
# VALIDATE_REPS (timing repetitions, default 7), STALL_METRICS (the warp-stall
# counters ncu collects; "all": every stall reason).
set -euo pipefail

if [ $# -lt 2 ] || [ "$1" = "--help" ]; then
  sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -ge 1 ] && [ "$1" = "--help" ] && exit 0
  exit 1
fi
BUILD=$(cd "$1" && pwd)
OUTDIR=$2
shift 2
SELECT=("$@")
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

APP=$BUILD/validation/validate_app
[ -x "$APP" ] || APP=$BUILD/validate_app
if [ ! -x "$APP" ]; then
  echo "run.sh: no validate_app in $BUILD/validation (build the validate_app target first)" >&2
  exit 2
fi
GPUQ=$BUILD/gpuq
NCU=${NCU:-$(command -v ncu || true)}
[ -n "$NCU" ] || { [ -x /usr/local/cuda/bin/ncu ] && NCU=/usr/local/cuda/bin/ncu; } || true
PY=${PYTHON:-python3}
# The variant names as gpuq model lists them (src/papers/atomics/atomics_model.c); the five
# of the first recording when gpuq is not built yet.
VARIANTS=(paper steady measured-n opcode default)
if [ -x "$GPUQ" ]; then
  listed=$("$GPUQ" model --help 2>/dev/null | sed -n 's/.*model variant: \([a-z0-9,-]*\).*/\1/p')
  [ -n "$listed" ] && IFS=, read -r -a VARIANTS <<< "$listed"
fi

# The metric list: the 13 names of include/gpuq/metrics.h (read from the
# header, the one place they are written down) plus the LSU latency metric
# that analyze.py needs for the Little's-law check.
# (The names moved there from counters.h with the metric table; a grep that
# finds none must say so, not end the script silently under pipefail.)
HEADER=$HERE/../include/gpuq/metrics.h
METRICS=$({ grep -oE '/\* *(smsp|sm|l1tex|gpu)__[a-z0-9_.]+' "$HEADER" || true; } | sed 's|/\* *||' | paste -sd, -)
METRICS=$METRICS,sm__average_inst_latency_pipe_lsu_mem_shared_cmd_read.ratio
if [ "$(echo "$METRICS" | tr ',' '\n' | wc -l)" -ne 14 ]; then
  echo "run.sh: expected 13 metric names in $HEADER, got: $METRICS" >&2
  exit 2
fi
# The latency quantity's counters (docs/validation.md, "The latency
# quantity"): warps stalled, by reason, over active warps, per cycle.
# STALL_METRICS=all: every smsp__warps_issue_stalled_* counter ncu lists.
S=smsp__warps_issue_stalled
STALL=${STALL_METRICS:-smsp__warps_active.sum,${S}_short_scoreboard.sum,${S}_mio_throttle.sum,${S}_wait.sum,${S}_selected.sum}
if [ "$STALL" = all ] && [ -n "$NCU" ]; then
  STALL=smsp__warps_active.sum,$("$NCU" --query-metrics |
    awk '/^smsp__warps_issue_stalled_[a-z_]+ / {printf "%s%s.sum", sep, $1; sep=","}')
fi
METRICS=$METRICS,$STALL

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi -L 2>&1 || true
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1 || true
  command -v nvcc >/dev/null && nvcc --version | tail -1
  [ -n "$NCU" ] && "$NCU" --version | tail -1
  echo "metrics: $METRICS"
  echo "selection: ${SELECT[*]:-(all cases)}"
} > "$OUTDIR/env.txt"
cat "$OUTDIR/env.txt"

# SASS: every kernel issues exactly the intended opcode (hopper-probe.md).
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$APP" | "$PY" "$HERE/check_sass.py" --arch sm_90 > "$OUTDIR/sass_check.txt" \
    || echo "run.sh: SASS check found problems (see sass_check.txt)" >&2
  tail -1 "$OUTDIR/sass_check.txt"
fi

# (a) Times and truth inputs.
echo "run.sh: timing run"
"$APP" --reps "${VALIDATE_REPS:-7}" "${SELECT[@]}" > "$OUTDIR/times.csv"

# (b) Counters.  ncu always when present (raw counters for Little's law);
# gpuq profile as the model's input when it works, else ncu's CSV.
PROFILE_CMD=("$APP" --profile --iters-from "$OUTDIR/times.csv" "${SELECT[@]}")
MODEL_INPUT=()
if [ -n "$NCU" ]; then
  echo "run.sh: ncu run ($(( $(grep -vc '^#' "$OUTDIR/times.csv") - 1 )) cases)"
  if "$NCU" --clock-control none --metrics "$METRICS" --export "$OUTDIR/ncu" --force-overwrite \
       --log-file "$OUTDIR/ncu_log.txt" "${PROFILE_CMD[@]}" > "$OUTDIR/manifest.csv" &&
     "$NCU" --import "$OUTDIR/ncu.ncu-rep" --csv --print-units base > "$OUTDIR/ncu.csv" &&
     "$NCU" --import "$OUTDIR/ncu.ncu-rep" --csv --page raw --print-units base > "$OUTDIR/ncu_raw.csv"; then
    # gpuq model reads the raw page: it names the device, so the model can
    # pick the calibration table; analyze.py reads the details page.
    MODEL_INPUT=(--ncu-csv "$OUTDIR/ncu_raw.csv")
  else
    echo "run.sh: ncu failed (see ncu_log.txt): $(grep -m1 -i error "$OUTDIR/ncu_log.txt" || true)" >&2
    rm -f "$OUTDIR/ncu.csv" "$OUTDIR/ncu_raw.csv"
  fi
else
  echo "run.sh: no ncu: raw counters and Little's-law check skipped" >&2
fi
if [ -x "$GPUQ" ] && "$GPUQ" profile --help >/dev/null 2>&1 && ! "$GPUQ" profile --help | grep -q "not built"; then
  echo "run.sh: gpuq profile run"
  # gpuq profile runs the program twice (counters, then the opcode split), so
  # manifest_gpuq.csv holds the case list twice; analyze.py keeps the first.
  # Its own report may fail (no calibration table yet); the counters file is
  # what counts here.
  # shellcheck disable=SC2086
  "$GPUQ" profile ${GPUQ_PROFILE_ARGS:-} ${GPUQ_MODEL_ARGS:-} --keep-counters "$OUTDIR/counters.csv" \
    -o "$OUTDIR/profile_report.txt" -- "${PROFILE_CMD[@]}" > "$OUTDIR/manifest_gpuq.csv" \
    2> "$OUTDIR/profile_log.txt" || echo "run.sh: gpuq profile exited $? (see profile_log.txt)" >&2
  if [ -s "$OUTDIR/counters.csv" ]; then
    MODEL_INPUT=("$OUTDIR/counters.csv")
    [ -s "$OUTDIR/manifest.csv" ] || cp "$OUTDIR/manifest_gpuq.csv" "$OUTDIR/manifest.csv"
  else
    echo "run.sh: gpuq profile left no counters; the model reads ncu's" >&2
  fi
fi
if [ ${#MODEL_INPUT[@]} -eq 0 ]; then
  echo "run.sh: no counters (neither ncu nor gpuq profile): stopping after the timing run" >&2
  exit 0
fi

# (c) Every model variant.
VARIANT_ARGS=()
if [ -x "$GPUQ" ] && "$GPUQ" model --help 2>/dev/null | grep -q -- "--model"; then
  for v in "${VARIANTS[@]}"; do
    # shellcheck disable=SC2086
    if "$GPUQ" model --model "$v" --format csv ${GPUQ_MODEL_ARGS:-} "${MODEL_INPUT[@]}" \
        > "$OUTDIR/model_$v.csv" 2> "$OUTDIR/model_$v.err"; then
      VARIANT_ARGS+=(--variant "$v=$OUTDIR/model_$v.csv")
    else
      echo "run.sh: gpuq model --model $v failed: $(head -1 "$OUTDIR/model_$v.err")" >&2
    fi
  done
else
  echo "run.sh: gpuq model is not built yet: joining truth and raw counters only" >&2
fi

# (d) Join and report.
JOIN_NCU=()
[ -s "$OUTDIR/ncu.csv" ] && JOIN_NCU=(--ncu "$OUTDIR/ncu.csv")
"$PY" "$HERE/analyze.py" join --times "$OUTDIR/times.csv" --manifest "$OUTDIR/manifest.csv" \
  "${JOIN_NCU[@]}" "${VARIANT_ARGS[@]}" --out "$OUTDIR/joined.csv"
DEVICE=$(grep -m1 '^# device:' "$OUTDIR/times.csv" | sed 's/^# device: //')
"$PY" "$HERE/analyze.py" report "$OUTDIR/joined.csv" --md "$OUTDIR/report.md" --svg "$OUTDIR/scatter.svg" \
  --source "$DEVICE, $(date -u +%Y-%m-%d), validation/run.sh BUILD OUT ${SELECT[*]}"
cat "$OUTDIR/report.md"
# The two-kind verdict (throughput or latency) against the truth, where the
# stall counters were collected (docs/validation.md, "The latency quantity").
"$PY" "$HERE/latency.py" report "$OUTDIR/joined.csv" --md "$OUTDIR/latency.md" \
  --source "$DEVICE, $(date -u +%Y-%m-%d), validation/run.sh BUILD OUT ${SELECT[*]}" &&
  cat "$OUTDIR/latency.md" || echo "run.sh: latency report failed" >&2

# (e) gpuq profile's counters against ncu's, case by case (both ran).
if [ -s "$OUTDIR/counters.csv" ] && [ -s "$OUTDIR/ncu.csv" ]; then
  "$PY" "$HERE/analyze.py" collectors "$OUTDIR" --md "$OUTDIR/collectors.md" --csv "$OUTDIR/collectors.csv" \
    --source "$DEVICE, $(date -u +%Y-%m-%d), validation/run.sh BUILD OUT ${SELECT[*]}" &&
    cat "$OUTDIR/collectors.md" || echo "run.sh: collector comparison failed" >&2
fi
