#!/usr/bin/env bash
# One-off measurements for the gpuq profile overhead work (engineer h3b):
# batch sizes, per-call breakdown, split from the disassembly, tests.
# usage: tests/profile/overhead_experiments.sh OUTDIR
set -u
OUT=${1:?outdir}
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
nvidia-smi -L; nvcc --version | tail -1; ncu --version | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
B=/tmp/b
cmake -S . -B $B -DGPUQ_DEPS_PREFIX=$PWD/.deps -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/build.log 2>&1
cmake --build $B -j16 --target gpuq gpuq_inject atomics_app histogram profile_check \
  test_gi_static test_gi_sass test_gi_filter >> $OUT/build.log 2>&1 || { tail -40 $OUT/build.log; exit 1; }
echo "== built at $(elapsed) s"
(cd $B && ctest -R test_gi 2>&1 | tail -3)
G=$B/gpuq
HIST=($B/examples/histogram/histogram --kernel hist --image solid --pixels 4194304 --threads 256 --reps 10 --warmup 2 --quiet)
APP=($B/tests/profile/atomics_app --repeat 3)
ms() { local t0=$(date +%s%N); "$@" >/dev/null 2>>/tmp/ms.err; echo $(( ($(date +%s%N) - t0) / 1000000 )); }

echo "== plain histogram (ms):" $(ms "${HIST[@]}") $(ms "${HIST[@]}") $(ms "${HIST[@]}")
echo "== plain atomics_app --repeat 3 (ms):" $(ms "${APP[@]}") $(ms "${APP[@]}") $(ms "${APP[@]}")
for prog in HIST APP; do
  eval "P=(\"\${$prog[@]}\")"
  for K in 1 8 32 128; do
    t=""
    for r in 1 2 3; do
      t="$t $(ms env GPUQ_BATCH=$K timeout 60 $G profile --no-opcode-split --keep-counters /tmp/$prog-k$K.csv -o /dev/null -- "${P[@]}")"
    done
    echo "== $prog counters only, GPUQ_BATCH=$K (ms):$t"
    GPUQ_DEBUG=1 GPUQ_BATCH=$K timeout 60 $G profile --no-opcode-split --keep-counters /tmp/$prog-k$K.csv -o /dev/null -- "${P[@]}" 2>/tmp/dbg.err >/dev/null
    grep -v "window [0-9]*:" /tmp/dbg.err | grep -E "debug|warning|mismatch|error|stopped" | head -40
    grep "window [0-9]*:" /tmp/dbg.err | head -3
  done
  # Event counts must not depend on the batch; times should agree closely.
  python3 - /tmp/$prog-k1.csv /tmp/$prog-k32.csv /tmp/$prog-k128.csv <<'EOF'
import csv, sys
def load(p):
    rows = [l for l in open(p) if not l.startswith('#')]
    return list(csv.DictReader(rows))
base = load(sys.argv[1])
for other in sys.argv[2:]:
    o = load(other)
    worst = {}
    same = len(o) == len(base)
    for a, b in zip(base, o):
        same &= a['kernel'] == b['kernel']
        for c in ['N_atom','N_cas','N_alu','O_wavefronts','shared_inst','cycles_sum','duration_ns','occupancy_pct','shared_pending']:
            x, y = float(a[c] or 'nan'), float(b[c] or 'nan')
            d = abs(x - y) / max(abs(x), abs(y), 1e-30)
            worst[c] = max(worst.get(c, 0), d)
    print('==', other, 'vs', sys.argv[1], 'rows', len(o), len(base), 'same kernels' if same else 'KERNELS DIFFER',
          ' '.join('%s %.4f%%' % (k, 100 * v) for k, v in worst.items()))
EOF
done
echo "== at $(elapsed) s"

# The default (split from the disassembly when it settles it) and the
# instrumented second run, on the histogram.
for r in 1 2 3; do echo "== histogram default (ms): $(ms $G profile --keep-counters /tmp/hd.csv -o /dev/null -- "${HIST[@]}")"; done
GPUQ_DEBUG=1 GPUQ_KEEP_TEMP=1 $G profile --keep-counters /tmp/hd.csv -o /dev/null -- "${HIST[@]}" 2>/tmp/hd.err >/dev/null
grep -v "window [0-9]*:" /tmp/hd.err | head -60
for r in 1 2; do echo "== histogram --always-rerun (ms): $(ms $G profile --always-rerun --keep-counters /tmp/hr.csv -o /dev/null -- "${HIST[@]}")"; done
GPUQ_DEBUG=1 $G profile --always-rerun --keep-counters /tmp/hr.csv -o /dev/null -- "${HIST[@]}" 2>&1 >/dev/null | grep -E "gpuq: profile|sass flush|ctx synchronize|save cubin|timeline"
python3 - /tmp/hd.csv /tmp/hr.csv <<'EOF'
import csv, sys
def load(p):
    return list(csv.DictReader([l for l in open(p) if not l.startswith('#')]))
a, b = load(sys.argv[1]), load(sys.argv[2])
diff = sum(1 for x, y in zip(a, b) if any(x[c] != y[c] for c in ['split_valid','split_add','split_cas','split_popc_inc','split_other']))
print('== split from disassembly vs second run: %d of %d launches differ' % (diff, len(a)), a[1]['kernel'], [a[1][c] for c in ['split_add','split_cas','split_popc_inc','split_other']], [b[1][c] for c in ['split_add','split_cas','split_popc_inc','split_other','N_atom_sass','N_atom']])
EOF
# Disassembler costs on the histogram's cubin.
kept=$(grep -o "temporary files kept in .*" /tmp/hd.err | awk '{print $5}')
ls -la $kept/cubins-counters 2>&1 | head
for c in $kept/cubins-counters/*.cubin; do
  echo "== $c: cuobjdump -sass -fun hist_add $(ms cuobjdump -sass -fun hist_add $c) ms, nvdisasm -c whole $(ms nvdisasm -c $c) ms, cuobjdump --version $(ms cuobjdump --version) ms, nvdisasm --version $(ms nvdisasm --version) ms"
  python3 - $c <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
shoff, = struct.unpack_from('<Q', d, 0x28); ent, num, stridx = struct.unpack_from('<HHH', d, 0x3a)
so, ss = struct.unpack_from('<QQ', d, shoff + stridx * ent + 0x18)
for i in range(num):
    nm, = struct.unpack_from('<I', d, shoff + i * ent)
    name = d[so + nm: d.index(b'\0', so + nm)].decode()
    if name == '.text.hist_add':
        o, s = struct.unpack_from('<QQ', d, shoff + i * ent + 0x18)
        open('/tmp/hist_add.code', 'wb').write(d[o:o + s]); print('== .text.hist_add', s, 'bytes')
EOF
  [ -f /tmp/hist_add.code ] && { echo "== nvdisasm -b SM90 raw: $(ms nvdisasm -b SM90 /tmp/hist_add.code) ms"; nvdisasm -b SM90 /tmp/hist_add.code | grep -E "ATOM|RED|CALL" | head; nvdisasm -b SM90 /tmp/hist_add.code | head -3; }
done
echo "== at $(elapsed) s"

(cd $B && timeout 200 ctest -R "profile_(atomics|filter|exit|ncu)" --output-on-failure > $OUT/ctest.log 2>&1; tail -8 $OUT/ctest.log)
grep -E "^(ok|FAIL|gpuq vs|  [a-z_]+__)|passed|FAILED|launches kept" $OUT/ctest.log | head -60
echo "== at $(elapsed) s"
if [ $(elapsed) -lt 175 ]; then
  (cd $B && timeout 45 ctest -R profile_torch --output-on-failure > $OUT/torch.log 2>&1; tail -3 $OUT/torch.log)
fi
echo "== done at $(elapsed) s"
