#!/bin/sh
# The injection library must not need static TLS (no CUDA GPU needed).
#   static_tls.sh LIBRARY|-
# libcuda dlopen()s libgpuq_inject.so inside the program's cuInit; a library
# with the ELF flag STATIC_TLS (thread-locals of the initial-exec model)
# takes glibc's static TLS surplus, which a program that loaded many
# libraries first has used up (a Hugging Face script: the dlopen fails with
# "cannot allocate memory in static TLS block" and CUDA silently runs the
# program unprofiled).  "-": the library is not built here (no CUPTI): skip.
set -u
lib=$1
if [ "$lib" = "-" ]; then
    echo "skipped: libgpuq_inject.so is not built (no CUDA/CUPTI)"
    exit 77
fi
[ -f "$lib" ] || { echo "FAIL: $lib does not exist"; exit 1; }
command -v readelf > /dev/null || { echo "FAIL: readelf (binutils) is not installed"; exit 1; }
dyn=$(readelf -dW "$lib") || { echo "FAIL: readelf -d $lib failed"; exit 1; }
echo "$dyn" | grep -q '(FLAGS)' && echo "$dyn" | grep '(FLAGS)'
if echo "$dyn" | grep '(FLAGS)' | grep -q STATIC_TLS; then
    echo "FAIL: $lib has the ELF flag STATIC_TLS (a thread-local of the initial-exec or"
    echo "      local-exec model): CUDA cannot load it into programs that loaded many libraries"
    exit 1
fi
tls=$(readelf -lW "$lib" | awk '$1 == "TLS" { print $6 }')
echo "passed: no STATIC_TLS in $lib (TLS segment memory size: ${tls:-none})"
exit 0
