#!/bin/sh
# The floors of docs/architecture.md hold (test layout, label cli):
#   - the generic code (src/core, src/cli, src/inject, src/host, include/gpuq)
#     includes no paper's header and names no unit or suite of the two tables
#     in its code (the names come from the program itself: gpuq model
#     --sections, gpuq calibrate --list);
#   - the public headers include only public headers;
#   - no source file is over 800 lines; no source list skips a missing file.
#   usage: check_layout.sh GPUQ SOURCE_DIR
gpuq=$1
src=$2
cd "$src" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
generic="src/core src/cli src/inject src/host include/gpuq"

hits=$(grep -rn '#include "papers/' $generic)
[ -z "$hits" ] || bad "generic code includes a paper's header:
$hits"

hits=$(grep -n '#include "' include/gpuq/*.h | grep -v '#include "gpuq/')
[ -z "$hits" ] || bad "a public header includes a header that is not public:
$hits"

units=$("$gpuq" model --sections | sed -n 's/^\([a-z][a-z0-9_]*\) .*/\1/p')
suites=$("$gpuq" calibrate --list | sed -n 's/^\([a-z][a-z0-9_]*\) .*/\1/p')
[ -n "$units" ] && [ -n "$suites" ] || bad "no unit or suite names from $gpuq"
# the generic code without its comments, FILE:LINE:code, once
code=$(for f in $(find $generic -name '*.[ch]' | sort); do
         sed -e 's|/\*.*||' -e 's|//.*||' -e 's|^[[:space:]]*\*.*||' "$f" | grep -n . |
           sed "s|^|$f:|"
       done)
for name in $(printf '%s\n' $units $suites | sort -u); do
  # a string literal that is the name, or starts with it as a key
  # ("atomics", "atomics:", "atomics=", "atomics.")
  hits=$(printf '%s\n' "$code" | grep -E "\"$name([\":=.]|\$)")
  [ -z "$hits" ] || bad "generic code names '$name':
$hits"
done

for f in $(find src include -name '*.[ch]' -o -name '*.cu' | sort); do
  n=$(wc -l <"$f")
  [ "$n" -le 800 ] || bad "$f has $n lines (at most about 800)"
done

hits=$(grep -rn 'if(EXISTS' src --include=CMakeLists.txt)
[ -z "$hits" ] || bad "a source list skips missing files:
$hits"

[ $fail -eq 0 ] && echo "layout: generic code names no paper ($(printf "%s\n" $units $suites | sort -u | wc -l) names checked), public headers include only public ones, every file <= 800 lines"
exit $fail
