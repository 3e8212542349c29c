#!/bin/sh
# What gpuq leaves on disk when an output is mistyped, cannot be written,
# or is interrupted: no input replaced, no earlier file lost, no temporary
# file left, no write error passed for success.
#
#   output_files.sh GPUQ SRCDIR
#
# Each check prints "FAIL what: why" when it fails; the script ends with
# "N passed, N failed" and exits 1 if anything failed.  Needs no GPU: the
# profile checks stand a shell script in for the collector (GPUQ_INJECT_LIB
# only has to be readable; the script writes what the collector would).
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 GPUQ SRCDIR" >&2
    exit 2
fi
gpuq=$1
src=$2
case $gpuq in /*) ;; *) gpuq=$(pwd)/$gpuq ;; esac
case $src in /*) ;; *) src=$(pwd)/$src ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuq-out.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
recorded=$src/data/recorded/histogram-hist-solid-4m-nvidia-h100-80gb-hbm3.counters.csv
sched=$src/tables/nvidia-h100-80gb-hbm3/sched.csv
atomics=$src/tables/nvidia-h100-80gb-hbm3/atomics.csv.gz
passed=0
failed=0

ok() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    echo "FAIL $1: $2"
    [ -f err ] && sed 's/^/    stderr: /' err | head -5
}

# run WHAT WANT_EXIT GREP cmd...: the exit code, exactly one stderr line
# holding GREP (a fixed string) when WANT_EXIT is not 0.
run() {
    what=$1 want=$2 grep=$3
    shift 3
    "$@" >out 2>err
    got=$?
    if [ "$got" != "$want" ]; then
        fail "$what" "exit $got, want $want"
        return 1
    fi
    if [ "$want" != 0 ] && [ "$(wc -l <err)" -ne 1 ]; then
        fail "$what" "$(wc -l <err) lines on stderr, want one"
        return 1
    fi
    if [ -n "$grep" ] && ! grep -F -q -- "$grep" err; then
        fail "$what" "stderr lacks '$grep'"
        return 1
    fi
    ok
}

# same WHAT FILE COPY: FILE still holds what COPY holds
same() {
    if cmp -s "$2" "$3"; then ok; else fail "$1" "$2 changed"; fi
}

# no_temp WHAT: no *.tmp.* or *.part.* file left in this folder
no_temp() {
    left=$(ls -a | grep -E '\.(tmp|part)\.[0-9]+' || true)
    if [ -z "$left" ]; then ok; else fail "$1" "left behind: $left"; rm -f $left; fi
}

# ---- an output that is an input is refused, the input untouched
cp "$recorded" x.csv
cp x.csv x.orig
run "model -o its input" 1 "cannot write x.csv (it is the input x.csv" \
    "$gpuq" model x.csv -o x.csv && same "model -o its input" x.csv x.orig
mkdir sub
run "model -o its input by another path" 1 "is the input x.csv" \
    "$gpuq" model x.csv -o sub/../x.csv && same "model -o another path" x.csv x.orig
ln x.csv link.csv
run "model -o a hard link of its input" 1 "is the input x.csv" \
    "$gpuq" model x.csv -o link.csv && same "model -o hard link" x.csv x.orig
ln -s x.csv sym.csv
run "model -o a symlink to its input" 1 "is the input x.csv" \
    "$gpuq" model x.csv -o sym.csv && same "model -o symlink" x.csv x.orig
cp "$sched" s.csv
cp s.csv s.orig
run "diag -o its --table" 1 "cannot write s.csv (it is the input s.csv" \
    "$gpuq" diag --table s.csv -o s.csv && same "diag -o its --table" s.csv s.orig
run "diag -o its --tails" 1 "is the input s.csv" \
    "$gpuq" diag --table "$sched" --tails s.csv -o s.csv && same "diag -o --tails" s.csv s.orig
"$gpuq" table convert "$atomics" -o t.csv 2>err || fail "table convert" "exit $?"
cp t.csv t.orig
run "table convert -o its input" 1 "cannot write t.csv (it is the input t.csv" \
    "$gpuq" table convert t.csv -o t.csv && same "table convert -o its input" t.csv t.orig
run "profile -o its --keep-counters" 1 "is the input k.csv" \
    "$gpuq" profile --keep-counters k.csv -o k.csv -- /bin/true
run "profile -o its --keep-counters, other spelling" 1 "is the input" \
    "$gpuq" profile --keep-counters k.csv -o ./sub/../k.csv -- /bin/true
run "model -o its --table" 1 "is the input" \
    "$gpuq" model x.csv --table t.csv -o t.csv && same "model -o its --table" t.csv t.orig
no_temp "refusals"

# ---- write errors exit non-zero with the reason, on files and on stdout
for c in "model x.csv" "diag --table s.csv" "table convert t.csv -o -" "table show t.csv" \
    "model --sections" "--help"; do
    run "gpuq $c > /dev/full" 2 "cannot write the standard output (No space left on device)" \
        sh -c "exec \"\$0\" $c >/dev/full" "$gpuq"
done
run "diag -o /dev/full" 2 "cannot write /dev/full (No space left on device)" \
    "$gpuq" diag --table s.csv -o /dev/full
run "table convert -o /dev/full" 2 "cannot write /dev/full (No space left on device)" \
    "$gpuq" table convert t.csv -o /dev/full
run "model -o /dev/full" 2 "cannot write /dev/full (No space left on device)" \
    "$gpuq" model x.csv -o /dev/full

# ---- a write that fails midway leaves the old file as it was (atomic):
# a file size limit of 1 KiB, SIGXFSZ ignored, makes the write fail
for c in "diag --table s.csv -o old.txt" "model x.csv -o old.txt" \
    "table convert t.csv -o old.txt"; do
    echo "the old file" >old.txt
    cp old.txt old.orig
    run "gpuq $c past the file size limit" 2 "cannot write old.txt" \
        sh -c "trap '' XFSZ; ulimit -f 1; exec \"\$0\" $c" "$gpuq" &&
        same "gpuq $c past the file size limit" old.txt old.orig
done
run "diag --plot past the file size limit" 2 "cannot write figs/fu.svg" \
    sh -c "trap '' XFSZ; ulimit -f 1; exec \"\$0\" diag --table s.csv --plot figs -o /dev/null" \
    "$gpuq" && if ls figs | grep -q '\.tmp\.'; then
        fail "diag --plot past the file size limit" "left $(ls figs)"
    else ok; fi
no_temp "failed writes"
# and a complete write does replace it
run "diag -o old.txt" 0 "" "$gpuq" diag --table s.csv -o old.txt &&
    if grep -q "GPUDIAG parameters" old.txt; then ok; else fail "diag -o old.txt" "not replaced"; fi

# ---- SIGTERM and SIGINT during a report remove its temporary file.  The
# report of 100,000 launches (JSON) takes long enough to be caught while
# its temporary file exists.
awk -v n=100000 '/^#/ || /^launch_id/ { print; next } { rest[m++] = substr($0, index($0, ",")) }
    END { for (i = 0; i < n; i++) print i rest[i % m] }' "$recorded" >big.csv
for sig in TERM INT; do
    rm -f big.json
    # a background job of sh starts with SIGINT ignored; perl (Debian's
    # perl-base is essential) restores the default action before the exec
    perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or exit 127' \
        "$gpuq" model big.csv -f json -o big.json 2>err &
    pid=$!
    tries=0
    while [ ! -e "big.json.tmp.$pid" ] && kill -0 "$pid" 2>/dev/null && [ $tries -lt 30000 ]; do
        tries=$((tries + 1))
        sleep 0.01
    done
    if [ ! -e "big.json.tmp.$pid" ]; then
        wait "$pid"
        fail "SIG$sig during a report" "the temporary file was never seen (report done first?)"
        continue
    fi
    kill -"$sig" "$pid"
    wait "$pid"
    got=$?
    if [ "$got" -lt 128 ]; then
        fail "SIG$sig during a report" "exit $got: the report finished before the signal"
    elif [ -e "big.json.tmp.$pid" ] || [ -e big.json ]; then
        fail "SIG$sig during a report" "left $(ls big.json*)"
    else
        ok
    fi
done

# ---- gpuq profile keeps an earlier counters file until a run measured
# something.  fake.sh plays the collector: "none" stands down like one
# without a GPU, "rows" writes a recorded counters file where the collector
# would, "crash" does so and dies of SIGSEGV.
cat >fake.sh <<'EOF'
#!/bin/sh
out="$GPUQ_OUT$GPUQ_OUT_TMP"
case $1 in
rows | crash)
    cp "$FAKE_SRC" "$out"
    printf 'pid: %s\noutput: %s\nrows_written: 6\nprofiled_launches: 6\nlaunches_seen: 6\nerror_kind: none\n' \
        $$ "$out" >"$GPUQ_STATUS.$$"
    [ "$1" = crash ] && kill -SEGV $$ ;;
none)
    printf 'pid: %s\noutput: %s\nrows_written: 0\nerror_kind: permission\nerror: no GPU here\n' \
        $$ "$GPUQ_OUT" >"$GPUQ_STATUS.$$" ;;
esac
exit 0
EOF
chmod +x fake.sh
export FAKE_SRC="$recorded"
echo "an earlier measurement" >earlier.counters.csv
cp earlier.counters.csv earlier.orig
# the real collector, or none in a build without CUPTI: no GPU here, exit 3
"$gpuq" profile --keep-counters earlier.counters.csv -- /bin/true >out 2>err
got=$?
if [ "$got" = 3 ]; then
    same "profile --keep-counters, no GPU (exit 3)" earlier.counters.csv earlier.orig
else
    fail "profile --keep-counters, no GPU" "exit $got, want 3"
fi
cp earlier.orig gpuq-profile.counters.csv
"$gpuq" profile -- /bin/true >out 2>err
got=$?
if [ "$got" = 3 ]; then
    same "profile, default counters file, no GPU (exit 3)" gpuq-profile.counters.csv earlier.orig
else
    fail "profile, default counters file, no GPU" "exit $got, want 3"
fi
export GPUQ_INJECT_LIB="$tmp/fake.sh"
GPUQ_INJECT_LIB="$tmp/fake.sh" "$gpuq" profile --keep-counters earlier.counters.csv -- \
    ./fake.sh none >out 2>err
got=$?
if [ "$got" = 3 ]; then
    same "profile --keep-counters, collector stood down" earlier.counters.csv earlier.orig
else
    fail "profile --keep-counters, collector stood down" "exit $got, want 3"
fi
"$gpuq" profile -- ./fake.sh none >out 2>err
same "profile, default counters file, collector stood down" gpuq-profile.counters.csv earlier.orig
no_temp "profile that measured nothing"
# A program that crashes after its rows: gpuq reports them and exits with
# the program's status (128 + SIGSEGV), as for any failing program.
for mode in rows crash; do
    cp earlier.orig earlier.counters.csv
    want=0
    [ $mode = crash ] && want=139
    "$gpuq" profile --no-opcode-split --keep-counters earlier.counters.csv -o rep.txt -- \
        ./fake.sh $mode >out 2>err
    got=$?
    if [ $got -eq $want ] && grep -q "hist_add" rep.txt; then
        same "profile --keep-counters, $mode: the new counters replace the old" \
            earlier.counters.csv "$recorded"
    else
        fail "profile --keep-counters, $mode" "exit $got (want $want) or no report"
    fi
    no_temp "profile $mode"
done
unset GPUQ_INJECT_LIB

# ---- a script whose interpreter is missing: one line naming it
printf '#!/nonexistent/python3\nprint(1)\n' >noint.py
printf '#!/usr/bin/env gpuq-no-such-interpreter\n' >noenv.sh
chmod +x noint.py noenv.sh
run "profile a script with a missing interpreter" 2 \
    "gpuq: profile: cannot run './noint.py' (its interpreter /nonexistent/python3 does not exist)" \
    "$gpuq" profile -- ./noint.py
run "profile a script whose env interpreter is missing" 2 \
    "(its interpreter gpuq-no-such-interpreter is not in \$PATH)" "$gpuq" profile -- ./noenv.sh

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
