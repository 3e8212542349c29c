#!/bin/sh
# A hostile-input campaign through the gpuq binary:
#
#   run_campaign.sh GPUQ SRCDIR [N [SEED]]
#
# tests/cli/hostile/mutate.py makes N seeded mutations (default 40, seed 1)
# of each shipped counters file, ncu export and machine-data file; each is
# given to the command that reads it (gpuq model, model --ncu-csv, diag
# --table, model with the file as the GPU's machine data), in text, CSV or
# JSON, under `timeout 20` and a memory limit (ulimit -v 2 GiB; the
# sanitizer build, which reserves terabytes of shadow memory, gets
# ASAN_OPTIONS=hard_rss_limit_mb=2048 instead).  A case fails on
#   a hang or the memory limit (exit 124, 137, or any signal),
#   an exit other than 0 (report) or 2 (input refused),
#   a sanitizer report on stderr (ASan, UBSan, LSan),
#   a refusal that is not one "gpuq: ..." line,
#   a report that prints nan or inf as a value or a number of 1e30 or more
#   (every input quantity is below 2^63, docs/input-ranges.md: such a
#   number means an out-of-range value got through).
# Prints one line per failure (its input kept in ./hostile-failures/) and a
# summary; exits 1 if any case failed.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 GPUQ SRCDIR [N [SEED]]" >&2
    exit 2
fi
gpuq=$1
srcdir=$2
n=${3:-80}
seed=${4:-1}
case $gpuq in /*) ;; *) gpuq=$(pwd)/$gpuq ;; esac
keep_dir=$(pwd)/hostile-failures
cd "$srcdir" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuq-hostile.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 tests/cli/hostile/mutate.py campaign . "$tmp/in" "$n" "$seed" || exit 2

# ulimit -v unless the binary cannot even start under it (a sanitizer build)
limit_kb=2097152
if sh -c 'ulimit -v "$1" && exec "$2" --version' sh "$limit_kb" "$gpuq" >/dev/null 2>&1; then
    vlimit="ulimit -v $limit_kb"
    limit_note="ulimit -v $limit_kb"
else
    vlimit=":"
    limit_note="hard_rss_limit_mb=2048"
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=2048"
    export ASAN_OPTIONS
fi
UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1"
export UBSAN_OPTIONS

h100=data/recorded/histogram-hist-solid-4m-nvidia-h100-80gb-hbm3.all-units.counters.csv
h100_sections="--section bottleneck --section waves --section gatomics"
formats="text csv json"
# A number no in-range input can give: nan or inf as a JSON value (names are
# quoted), as "= nan" in a sentence, or with an exponent of 30 or more.
bad_number='(: |\[|,)-?(nan|inf|infinity)[],} ]|= -?(nan|inf)|[0-9]e\+?(3[0-9]|[4-9][0-9]|[0-9]{3})'

passed=0
failed=0
refused=0
i=0
while read -r kind path; do
    i=$((i + 1))
    set -- $formats
    shift $((i % 3))
    fmt=$1
    case $kind in
    counters)
        case $path in
        *valid.csv*) set -- model "$path" --table tests/data/tables/test_gpu.csv ;;
        *) set -- model "$path" $h100_sections ;;
        esac ;;
    ncu) set -- model --ncu-csv "$path" --table tests/data/tables/test_gpu.csv --force ;;
    sched) set -- diag --table "$path" ;;
    throughput) set -- model "$h100" --section bottleneck ;;
    gatomics) set -- model "$h100" --section gatomics ;;
    *) echo "run_campaign.sh: unknown kind '$kind'" >&2; exit 2 ;;
    esac
    table_dir=""
    case $kind in throughput | gatomics) table_dir=$path ;; esac
    (
        eval "$vlimit"
        if [ -n "$table_dir" ]; then GPUQ_TABLE_DIR=$table_dir; export GPUQ_TABLE_DIR; fi
        exec timeout 20 "$gpuq" "$@" -f "$fmt"
    ) >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    why=""
    if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
        why="exit $rc (124: hang; 137 or >128: killed or crashed)"
    elif grep -E -q "runtime error:|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer" "$tmp/err"; then
        why="sanitizer report"
    elif [ $rc -eq 2 ] && { [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q '^gpuq: ' "$tmp/err"; }; then
        why="refused with $(wc -l <"$tmp/err") stderr lines, want one 'gpuq: ...' line"
    elif [ $rc -eq 0 ] && grep -E -i -q "$bad_number" "$tmp/out"; then
        why="report prints nan, inf or a number >= 1e30"
    fi
    [ $rc -eq 2 ] && refused=$((refused + 1))
    if [ -z "$why" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        mkdir -p "$keep_dir"
        keep="$keep_dir/case-$i-$kind"
        echo "FAIL gpuq $* -f $fmt ($kind): $why"
        sed 's/^/    stderr: /' "$tmp/err" | head -5
        grep -E -i -m 3 "$bad_number" "$tmp/out" | sed 's/^/    stdout: /'
        cp -R "$path" "$keep" 2>/dev/null && echo "    input kept as $keep"
    fi
done <"$tmp/in/cases.txt"
echo "hostile campaign: $i cases (seed $seed, $n per source, $limit_note), $passed passed ($refused refused with a message), $failed failed"
[ "$failed" -eq 0 ]
