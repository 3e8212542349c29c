#!/bin/sh
# The collector's memory over a launch-heavy program stays bounded: the
# profiled program's peak resident memory (collector included) may not grow
# by more than GROWTH_KB between a fifth of its launches and all of them.
#   launch_memory.sh GPUQ LAUNCH_LOOP WORKDIR
# Three runs: 1,000,000 launches with the first 2,000 profiled (-c: the
# collector still sees every launch), 20,000 launches all profiled (each a
# counters row), and 20,000 CUDA graphs of 64 kernel nodes each
# instantiated, launched and destroyed (the collector's graph records go
# with their graphs; one plain launch is the run's row).  gpuq's own peak (it loads the rows) is checked
# against 200 MB: GNU time's maximum RSS is that of gpuq and of the
# program it waited for, whichever was larger (wait4 counts waited
# descendants), so gpuq's own is bounded by that maximum only when it
# exceeds the program's VmHWM; the check is on that excess.  (On an H200,
# 2026-12-01, the program's peak was 400 MB and time's figure 402 MB.)
# Exit 77 when there is no GPU.
set -u
gpuq=$1 loop=$2 work=$3
GROWTH_KB=16384
rm -rf "$work" && mkdir -p "$work" || exit 2
[ -x /usr/bin/time ] || { echo "launch_memory: needs GNU time (apt-get install time)"; exit 2; }
"$loop" 5 2>/dev/null
[ $? -eq 77 ] && { echo "launch_memory: no GPU"; exit 77; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

check() { # NAME LAUNCHES PROFILED (-c value; 0 all) [graphs]
    name=$1 n=$2 c=$3 mode=${4:-}
    /usr/bin/time -v -o "$work/$name.time" "$gpuq" profile --no-opcode-split --section waves \
        -c "$c" --keep-counters "$work/$name.csv" -o "$work/$name.txt" -- "$loop" "$n" $mode \
        >"$work/$name.out" 2>"$work/$name.err"
    rc=$?
    cat "$work/$name.err"
    [ $rc -eq 0 ] || { fail "$name: gpuq exited $rc"; return; }
    first=$(sed -n "s/^launch_loop: VmHWM_kB after $((n / 5)): //p" "$work/$name.err")
    last=$(sed -n "s/^launch_loop: VmHWM_kB after $n: //p" "$work/$name.err")
    rss=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$work/$name.time")
    echo "launch_memory: $name: program VmHWM $first kB after $((n / 5)) launches, $last kB" \
         "after $n; gpuq max RSS $rss kB"
    [ -n "$first" ] && [ -n "$last" ] || { fail "$name: no VmHWM lines"; return; }
    [ $((last - first)) -le $GROWTH_KB ] ||
        fail "$name: the program grew by $((last - first)) kB over $((n - n / 5)) launches"
    [ -n "$rss" ] && [ $((rss - last)) -le 204800 ] ||
        fail "$name: gpuq's max RSS $rss kB exceeds the program's $last kB by more than 200 MB"
    want=$([ "$c" -eq 0 ] && echo "$n" || echo "$c")
    [ "$mode" = graphs ] && want=1
    rows=$(grep -c '^[0-9]' "$work/$name.csv")
    [ "$rows" -eq "$want" ] || fail "$name: $rows counters rows, want $want"
}
check filtered 1000000 2000
check profiled 20000 0
check graphs 20000 0 graphs
echo "launch_memory: $fails failure(s)"
[ $fails -eq 0 ]
