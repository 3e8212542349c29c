#!/bin/sh
# Table-driven tests of the gpuq command line: exit codes and messages.
#
#   run_cli_cases.sh GPUQ SRCDIR [CASES]
#
# Runs in SRCDIR (so cases name files as tests/data/...).  CASES defaults to
# SRCDIR/tests/cli/cli_cases.txt, one case per line:
#
#   ARGS | EXIT n | STDERR-GREP text
#   ARGS | EXIT n | STDOUT-GREP text
#   ARGS | EXIT n
#
# ARGS are split like shell words (quotes work); leading NAME=VALUE words set
# environment variables for that case only.  The grep is a fixed string.
# ARGS may name $tmp/fifo (a FIFO without a writer) and $tmp/hostile/...
# (made by tests/cli/hostile/mutate.py named); each case runs under
# `timeout 60` (exit 124 when it hangs).
# A case that expects a non-zero exit also requires exactly one line on
# stderr.  '#' lines and blank lines are ignored.  Prints one line per failure and a
# final "N passed, N failed"; exits 1 if anything failed.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 GPUQ SRCDIR [CASES]" >&2
    exit 2
fi
gpuq=$1
srcdir=$2
cases=${3:-$srcdir/tests/cli/cli_cases.txt}
case $gpuq in /*) ;; *) gpuq=$(pwd)/$gpuq ;; esac
case $cases in /*) ;; *) cases=$(pwd)/$cases ;; esac
cd "$srcdir" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuq-cli.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
# Inputs made at test time, named by cases as $tmp/...: a FIFO no one
# writes to, and the hostile files of tests/cli/hostile/mutate.py.
mkfifo "$tmp/fifo" || exit 2
python3 "$srcdir/tests/cli/hostile/mutate.py" named "$srcdir" "$tmp/hostile" || exit 2
# A case that hangs fails instead of stopping the run.
run_limit=""
command -v timeout >/dev/null 2>&1 && run_limit="timeout 60"

trim() {
    printf '%s' "$1" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//'
}

passed=0
failed=0
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    case $(trim "$line") in '' | '#'*) continue ;; esac
    args=$(trim "${line%%|*}")
    rest=${line#*|}
    expect=$(trim "${rest%%|*}")
    check=""
    case $rest in *'|'*) check=$(trim "${rest#*|}") ;; esac
    want_exit=${expect#EXIT }
    if [ "$want_exit" = "$expect" ]; then
        echo "FAIL $cases:$lineno: second field must be 'EXIT n', got '$expect'"
        failed=$((failed + 1))
        continue
    fi
    # Leading NAME=VALUE words become the case's environment.
    envs=""
    while :; do
        first=${args%% *}
        case $first in
        [A-Z_]*=*) envs="$envs $first"; [ "$first" = "$args" ] && args="" || args=${args#* } ;;
        *) break ;;
        esac
    done
    eval "$run_limit env $envs \"\$gpuq\" $args" >"$tmp/out" 2>"$tmp/err" </dev/null
    got=$?
    why=""
    if [ "$got" != "$want_exit" ]; then
        why="exit $got, want $want_exit"
    else
        case $check in
        STDERR-GREP\ *) grep -F -q -- "${check#STDERR-GREP }" "$tmp/err" ||
                why="stderr lacks '${check#STDERR-GREP }'" ;;
        STDOUT-GREP\ *) grep -F -q -- "${check#STDOUT-GREP }" "$tmp/out" ||
                why="stdout lacks '${check#STDOUT-GREP }'" ;;
        '') ;;
        *) why="third field must be STDERR-GREP or STDOUT-GREP, got '$check'" ;;
        esac
        # Bad input gets exactly one line on stderr.
        if [ -z "$why" ] && [ "$want_exit" != 0 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
            why="exit $got with $(wc -l <"$tmp/err") lines on stderr, want exactly one"
        fi
    fi
    if [ -z "$why" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $cases:$lineno: gpuq $args: $why"
        sed 's/^/    stderr: /' "$tmp/err" | head -5
        sed 's/^/    stdout: /' "$tmp/out" | head -3
    fi
done <"$cases"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
