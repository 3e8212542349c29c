#!/bin/sh
# gpuq profile's side of the collector protocol, without a GPU: a fake
# collector (fake_collector.c) writes what the real one writes, per process.
#   protocol_check.sh GPUQ FAKE_COLLECTOR SRCDIR WORKDIR
# Checks: status files of several processes (one file each, <status>.<pid>),
# output patterns (%p, %q{VAR}) for the counters and the report, the line
# naming every process's file, the CUDA graph lines and the node attribution
# kept next to the counters, the count of launches run during a capture,
# the usage errors of bad patterns, and the HTML report.
set -u
gpuq=$1 fake=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2'"; }
export GPUQ_INJECT_LIB="$fake"   # readable, as gpuq asks; the fake needs no injection
table="$src/tests/data/tables/test_gpu.csv"
template="$src/tests/data/counters/valid.csv"

# 1. One process, with graphs and launches skipped during a capture.
"$gpuq" profile --no-opcode-split --table "$table" --force --keep-counters "$work/one.csv" \
    -f csv -o "$work/one.report.csv" -- "$fake" 1 "$template" graphs \
    > "$work/one.out" 2> "$work/one.err"
rc=$?
cat "$work/one.err"
[ $rc -eq 0 ] || fail "one process: gpuq exited $rc"
has "$work/one.err" "CUDA graph 7 (2 kernel nodes): 2 of 2 launches profiled node by node"
has "$work/one.err" "CUDA graph 9 (3 kernel nodes): 1 launch not profiled: its kernel nodes run on parallel branches"
has "$work/one.err" "2 launches ran while a stream capture was in progress"
has "$work/one.err" "5 launches profiled; counters saved in $work/one.csv"
[ "$(wc -l < "$work/one.csv.graphs.csv" 2>/dev/null)" = 5 ] || fail "one.csv.graphs.csv: not 4 node rows"
has "$work/one.csv.graphs.csv" "launch_id,graph,graph_launch,node_index,node_id"
has "$work/one.csv.graphs.csv" "4,7,1,1,101"
[ -s "$work/one.report.csv" ] || fail "no report one.report.csv"

# 1b. gpuq profile -f html: the report as one page, with its data block; the
# CSV report opens with the ranked kernels.
"$gpuq" profile --no-opcode-split --table "$table" --force -f html -o "$work/one.html" -- \
    "$fake" 1 "$template" > /dev/null 2> "$work/html.err" || fail "-f html: gpuq failed: $(cat "$work/html.err")"
has "$work/one.html" "<!DOCTYPE html>"
has "$work/one.html" '<script type="application/json" id="gpuq-data">{"format":"gpuq report html v1"'
has "$work/one.report.csv" "# kernels by GPU time: "

# 2. Three processes, one file each by pid; the report named by pattern too.
"$gpuq" profile --no-opcode-split --table "$table" --force --keep-counters "$work/m.%p.csv" \
    -f csv -o "$work/r.%p.csv" -- "$fake" 3 "$template" > "$work/m.out" 2> "$work/m.err"
rc=$?
cat "$work/m.err"
[ $rc -eq 0 ] || fail "three processes: gpuq exited $rc"
has "$work/m.err" "3 processes wrote counters"
n=$(ls "$work" | grep -c '^m\.[0-9]*\.csv$')
[ "$n" -eq 3 ] || fail "$n files m.<pid>.csv, expected 3"
for f in "$work"/m.*.csv; do
  case $f in *.graphs.csv) continue ;; esac
  has "$work/m.err" "5 launches in $f"
done
reports=$(ls "$work" | grep '^r\.[0-9]*\.csv$')
[ "$(echo "$reports" | grep -c .)" -eq 1 ] || fail "reports: '$reports', expected one"
pid=${reports#r.}; pid=${pid%.csv}
[ -f "$work/m.$pid.csv" ] || fail "report $reports names no profiled process"
has "$work/m.err" "this report covers $work/m.$pid.csv (process $pid)"

# 3. %q{VAR}: a rank from the environment.
RANK=5 "$gpuq" profile --no-opcode-split --table "$table" --force \
    --keep-counters "$work/q.%q{RANK}.csv" -o "$work/q.report.txt" -- "$fake" 1 "$template" \
    > /dev/null 2> "$work/q.err" || fail "%q{RANK}: gpuq failed: $(cat "$work/q.err")"
[ -f "$work/q.5.csv" ] || fail "no q.5.csv"

# 4. Bad patterns are usage errors, before anything runs.
"$gpuq" profile --keep-counters "$work/x.%z.csv" -- "$fake" 1 "$template" 2> "$work/z.err"
[ $? -eq 1 ] || fail "unknown %z: exit status not 1"
has "$work/z.err" "unknown %z"
"$gpuq" profile -o "$work/r.%q{RANK" -- "$fake" 1 "$template" 2> "$work/q2.err"
[ $? -eq 1 ] || fail "unclosed %q{: exit status not 1"

# Every process's counters were written under a temporary name
# (<name>.part.<gpuq pid>) and renamed: none is left.
left=$(ls "$work" | grep '\.part\.[0-9]*$')
[ -z "$left" ] || fail "temporary counters files left: $left"

# 5. A failing program's status is gpuq's, after the report of what was
#    measured: its exit code, or 128 + the signal that killed it.
for how in 7 abort; do
  FAKE_EXIT=$how "$gpuq" profile --no-opcode-split --table "$table" --force \
      --keep-counters "$work/e.csv" -o "$work/e.report.txt" -- "$fake" 1 "$template" \
      > /dev/null 2> "$work/e.err"
  rc=$?
  cat "$work/e.err"
  if [ "$how" = abort ]; then want=134 says="was killed by signal 6"; else want=7 says="exited with status 7"; fi
  [ $rc -eq $want ] || fail "FAKE_EXIT=$how: gpuq exited $rc, expected the program's $want"
  has "$work/e.err" "warning: the program $says"
  has "$work/e.err" "(gpuq exits with the program's status, $want)"
  [ -s "$work/e.report.txt" ] || fail "FAKE_EXIT=$how: no report of what was measured"
done

echo "protocol_check: $fails failure(s)"
[ $fails -eq 0 ]
