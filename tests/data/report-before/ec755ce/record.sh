#!/bin/sh
# Writes the reports test_report_before_after compares byte for byte:
# for each line "NAME ARGS..." of commands.txt, `gpuq model ARGS` run from the
# repository root with GPUQ_TABLE_DIR=tables, its stdout gzipped into NAME.gz
# and its exit status and stderr into stderr.txt.
#   usage: sh tests/data/report-before/ec755ce/record.sh GPUQ
# (run from the repository root, with the gpuq built from commit ec755ce)
set -eu
gpuq=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/stderr.txt"
while read -r name args; do
  rc=0
  # shellcheck disable=SC2086 # ARGS are words
  GPUQ_TABLE_DIR=tables "$gpuq" model $args >"$tmp/out" 2>"$tmp/err" || rc=$?
  gzip -9 -n -c "$tmp/out" >"$here/$name.gz"
  printf '%s exit=%s\n' "$name" "$rc" >>"$tmp/stderr.txt"
  sed 's/^/  /' "$tmp/err" >>"$tmp/stderr.txt"
done <"$here/commands.txt"
mv "$tmp/stderr.txt" "$here/stderr.txt"
