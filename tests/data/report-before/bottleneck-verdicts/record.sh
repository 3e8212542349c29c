#!/bin/sh
# Writes the reports that the bottleneck section's verdicts changed on
# purpose since ec755ce (README.md here): for each line "NAME ARGS..." of
# commands.txt, `gpuq model ARGS` run from the repository root with
# GPUQ_TABLE_DIR=tables, its stdout gzipped into NAME.gz.  test_report_before_
# after compares these reports byte for byte instead of ec755ce's, and checks
# that their CSV cells outside the bottleneck section are still ec755ce's.
#   usage: sh tests/data/report-before/bottleneck-verdicts/record.sh GPUQ
set -eu
gpuq=$1
here=$(cd "$(dirname "$0")" && pwd)
while read -r name args; do
  # shellcheck disable=SC2086 # ARGS are words
  GPUQ_TABLE_DIR=tables "$gpuq" model $args 2>/dev/null | gzip -9 -n -c >"$here/$name.gz"
done <"$here/commands.txt"
