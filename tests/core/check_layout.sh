#!/bin/sh
# The floors of docs/architecture.md hold (test layout, label cli):
#   - the generic code (src/core, src/cli, src/inject, src/host, include/gpuq)
#     includes no paper's header and names no unit or suite of the two tables
#     nor a paper by its number ("paper 000": gpuq table's row is the
#     papers', src/papers/commands.c) in its code (the names come from the program itself: gpuq model
#     --sections, gpuq calibrate --list), no identifier a paper's header
#     declares (a paper's function, type or macro copied or declared again),
#     and no metric of the table (gpuq model --metrics) but the two every
#     report sums or ranks by: a unit's metrics are the unit's, named in its
#     row (its code pass's too: the counts the opcode split works from are
#     paper 000's, not profile's), nor its code pass's result columns or
#     option;
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
  # ("atomics", "atomics:", "atomics=", "atomics."), or an option's value
  # inside a message ("... --section atomics ...")
  hits=$(printf '%s\n' "$code" |
         grep -E "\"$name([\":=.]|\$)|\"[^\"]*(--section|--set|--model|-m) $name([^a-z0-9_]|\$)")
  [ -z "$hits" ] || bad "generic code names '$name':
$hits"
done

# a paper by its number in a message or a table row ("... (paper 000)"):
# the papers' rows say that (units.c, suites.c, commands.c)
hits=$(printf '%s\n' "$code" | grep -E '"[^"]*[Pp]aper [0-9]{3}')
[ -z "$hits" ] || bad "generic code names a paper by its number:
$hits"

# a code pass's result key and option (its row's .result_key, .option):
# the counters file's and the reports' columns and gpuq profile's alias of
# --no-code-pass come from the pass's row ("split" as "split_valid"...)
pass_words=$(grep -rhoE '\.(result_key|option) = "[^"]+"' src/papers |
             sed 's/.*= "\(.*\)"/\1/' | sort -u)
[ -n "$pass_words" ] || bad "no code pass's result key or option found in src/papers"
for w in $pass_words; do
  hits=$(printf '%s\n' "$code" | grep -E "\"$w([\"_]|\$)|[-\"]$w[\" ]")
  [ -z "$hits" ] || bad "generic code names the code pass word '$w' (the pass's row names it):
$hits"
done

# identifiers the papers' headers declare: #define NAME, a function's NAME(,
# a typedef's or struct's closing "} NAME;", extern ... NAME;
paper_ids=$(for h in $(find src/papers -name '*.h' | sort); do
              sed -e 's|/\*.*||' -e 's|//.*||' -e 's|^[[:space:]]*\*.*||' "$h" |
                sed -n -e 's/^#define \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' \
                       -e 's/^[A-Za-z_].*[ *]\([a-z_][a-z0-9_]*\)(.*/\1/p' \
                       -e 's/^} *\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' \
                       -e 's/^extern .*[ *]\([A-Za-z_][A-Za-z0-9_]*\)\(\[.*\]\)*;.*/\1/p'
            done | grep -v '^GPUQ_.*_H$' | sort -u)
[ -n "$paper_ids" ] || bad "no identifier found in the papers' headers"
hits=$(printf '%s\n' "$code" | grep -wF "$paper_ids")
[ -z "$hits" ] || bad "generic code names a paper's identifier:
$hits"

# metrics named in generic code: only the cycle weight of a summed kernel
# (src/core/report.c) and the duration the launches are ranked by
shared_metrics="sm__cycles_active.sum gpu__time_duration.sum"
metrics=$("$gpuq" model --metrics | tr ',' '\n')
[ -n "$metrics" ] || bad "no metric names from $gpuq"
metric_code=$(printf '%s\n' "$code" | grep -v '^src/core/metrics\.c:')
for m in $metrics; do
  case " $shared_metrics " in *" $m "*) continue ;; esac
  hits=$(printf '%s\n' "$metric_code" | grep -F "\"$m\"")
  [ -z "$hits" ] || bad "generic code names the metric '$m' (a unit's, named in its row):
$hits"
done

# One C prefix per paper (docs/architecture.md, "C names"): the prefixes the
# papers no longer use do not come back, in code (comments and string
# literals aside), nor the names that were a prefix alone (gm_bnv, gb_jit).
# Kernels keep their short names, so in CUDA files only the model's (gm_,
# GM_) and upper-case ones are checked, less those a kernel file keeps for
# the macros beside its kernels (cuda_kept: TU_MMA_LOOP, TP_I); a launcher
# or type is declared in a header, where every one is.  One line of each
# list per paper.
retired_model="gm_ga GM_GA" # paper 002
retired_suite="ga GA" # paper 002
retired_whole=""
cuda_kept=""
retired_model="$retired_model gm_zo GM_ZO gm_bnv GM_BNV gm_bn GM_BN gm_bu GM_BU GM_TU gm_tx GM_TX" # paper 004
retired_suite="$retired_suite tp TP tu TU bn BN bu BU" # paper 004
retired_whole="$retired_whole gm_bnv" # paper 004
cuda_kept="$cuda_kept TU TP" # paper 004
retired_model="$retired_model gm_gd GM_GD" # paper 003
retired_suite="$retired_suite gs GS gd GD wv tgb gb_jit GB_JIT gb_kern gb_fu gb_ptx" # paper 003
retired_whole="$retired_whole gb_jit gb_kern gb_dev" # paper 003
retired_model="$retired_model gm_table GM_TABLE gm_model GM_MODEL GM_NOTE GM_CLASS GM_M gm_atomic GM_ATOMIC_KIND" # paper 000
retired_suite="$retired_suite gb_sched gb_run" # paper 000
retired_whole="$retired_whole gm_opcode_split" # paper 000
strip_code() { sed -e 's|/\*.*\*/||g' -e 's|//.*||' -e 's|^[[:space:]]*/\?\*.*||' \
                   -e 's/"\([^"\\]\|\\.\)*"/""/g' "$1" | grep -n . | sed "s|^|$1:|"; }
for f in $(find src include tests validation examples -name '*.[ch]' -o -name '*.cu' \
             -o -name '*.cuh' | sort); do
  case $f in
    src/*|include/*|tests/*) ;;
    *) [ "${f%.cu}" = "$f" ] || continue ;; # validation/examples: their programs' own names
  esac
  case $f in
    *.cu|*.cuh) prefixes="$retired_model $(printf '%s\n' $retired_suite | grep -v '[a-z]' |
                                              grep -vxF "$(printf '%s\n' $cuda_kept)")" ;;
    src/*|include/*|tests/*) prefixes="$retired_model $retired_suite" ;;
    *) prefixes=$retired_model ;;
  esac
  re=$(printf '%s_|' $prefixes | sed 's/|$//')
  whole=$(printf '%s|' $retired_model $retired_whole | sed 's/|$//')
  hits=$(strip_code "$f" |
         grep -E "(^|[^A-Za-z0-9_])(($re)[A-Za-z0-9_]*|($whole)([^A-Za-z0-9_]|\$))")
  [ -z "$hits" ] || bad "a retired prefix ($re) in $f (docs/architecture.md, C names):
$hits"
done

# What a paper's C headers declare carries its name behind a floor's prefix
# (gm_<name>_, gb_<name>_, cli_<name>_, upper case alike; the include guard
# GPUQ_<NAME>_...).  Two macros keep older names because
# validation/latency.py reads them from the header and prints them.
kept_names="GM_L_LATENCY GM_L_LATENCY_SB_MIO"
for d in src/papers/*/; do
  p=$(basename "$d")
  P=$(printf '%s' "$p" | tr a-z A-Z)
  for h in "$d"*.h; do
    [ -f "$h" ] || continue
    hits=$(sed -e 's|/\*.*||' -e 's|//.*||' -e 's|^[[:space:]]*\*.*||' "$h" |
           sed -n -e 's/^#define \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' \
                  -e 's/^[A-Za-z_].*[ *]\([a-z_][a-z0-9_]*\)(.*/\1/p' \
                  -e 's/^} *\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' \
                  -e 's/^extern .*[ *]\([A-Za-z_][A-Za-z0-9_]*\)\(\[.*\]\)*;.*/\1/p' |
           grep -vE "^(gm_$p|GM_$P|gb_$p|GB_$P|cli_$p|CLI_$P|GPUQ_$P)(_|\$)" |
           grep -vxF "$(printf '%s\n' $kept_names)")
    [ -z "$hits" ] || bad "$h declares names without the paper's prefix (docs/architecture.md, C names):
$hits"
  done
done

for f in $(find src include -name '*.[ch]' -o -name '*.cu' | sort); do
  n=$(wc -l <"$f")
  [ "$n" -le 800 ] || bad "$f has $n lines (at most about 800)"
done

hits=$(grep -rn 'if(EXISTS' src --include=CMakeLists.txt)
[ -z "$hits" ] || bad "a source list skips missing files:
$hits"

[ $fail -eq 0 ] && echo "layout: generic code names no paper ($(printf "%s\n" $units $suites | sort -u | wc -l) names, $(printf "%s\n" $paper_ids | wc -l) identifiers of the papers' headers, $(printf "%s\n" $metrics | wc -l) metrics checked), public headers include only public ones, every file <= 800 lines"
exit $fail
