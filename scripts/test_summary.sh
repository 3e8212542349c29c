#!/bin/sh
# The end of `make test`: what ran, from ctest's JUnit files.
#
#   scripts/test_summary.sh BUILD/ctest-junit.xml [more.xml ...]
#
# Prints per build the tests that ran, failed and were skipped, and the
# number of cmocka cases that ran (the unit tests are many cases in few
# programs: "100% tests passed" alone hides a group that was never built).
# Every skipped test is listed with its reason.  The last line says whether
# this was a full pass.  Exit status 1 when a test failed, a unit-test group
# was skipped or a file is missing; a GPU group skipped on a machine without
# a GPU is reported but is not an error.
set -u
[ $# -gt 0 ] || { echo "usage: scripts/test_summary.sh JUNIT.xml..." >&2; exit 2; }
status=0
skipped_all=0
for f in "$@"; do
    if [ ! -f "$f" ]; then
        echo "test summary: $f missing (did ctest run?)"
        status=1
        continue
    fi
    build=$(dirname "$f")
    out=$(awk -v build="$build" '
        function unescape(s) {
            gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s)
            gsub(/&apos;/, "\047", s); gsub(/&amp;/, "\\&", s); return s
        }
        /<testcase / {
            tests++
            name = $0; sub(/.*<testcase name="/, "", name); sub(/".*/, "", name)
            st = $0; sub(/.* status="/, "", st); sub(/".*/, "", st)
            if (st == "fail") { failed++; print "  FAILED  (" build "): " name }
            want_reason = (st == "notrun")
            if (want_reason) { skipped++; skipname = name; if (name ~ /^unit_/) unit_skipped++ }
        }
        # The reason: the first output line that says "skip", else the first.
        /<system-out>/ && want_reason { in_out = 1; first = ""; reason = "" }
        in_out {
            r = $0; sub(/.*<system-out>/, "", r); sub(/<\/system-out>.*/, "", r)
            if (first == "" && r != "") first = r
            if (reason == "" && tolower(r) ~ /skip/) reason = r
            if ($0 ~ /<\/system-out>/) {
                print "  skipped (" build "): " skipname ": " unescape(reason != "" ? reason : first)
                in_out = 0; want_reason = 0
            }
        }
        /\[==========\] [0-9]+ test\(s\) run\./ {
            n = $0; sub(/.*\[==========\] /, "", n); sub(/ test.*/, "", n)
            cases += n; programs++
        }
        END {
            printf "test summary: %s: %d tests, %d failed, %d skipped; %d cmocka cases ran in %d programs\n",
                   build, tests, failed, skipped, cases, programs
            printf "#%d %d %d\n", failed + 0, skipped + 0, unit_skipped + 0
        }' "$f")
    echo "$out" | grep -v '^#'
    read -r nfailed nskipped nunit <<EOF_COUNTS
$(echo "$out" | sed -n 's/^#//p')
EOF_COUNTS
    [ "$nfailed" -gt 0 ] && status=1
    [ "$nunit" -gt 0 ] && status=1
    skipped_all=$((skipped_all + nskipped))
done
if [ $status -ne 0 ]; then
    echo "test summary: NOT A PASS (failures or a skipped unit-test group, listed above)"
elif [ $skipped_all -gt 0 ]; then
    echo "test summary: passed, but NOT a full run: $skipped_all test(s) skipped (listed above)"
else
    echo "test summary: full pass, every test ran"
fi
exit $status
