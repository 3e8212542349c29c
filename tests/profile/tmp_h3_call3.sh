#!/usr/bin/env bash
# temporary diagnostic run (h3), deleted after use
set -u
B=/tmp/b; A=$B/tests/profile/atomics_app; L=$B/libgpuq_inject.so
nvidia-smi -L; nvcc --version | tail -1
cmake -S . -B $B -DGPUQ_DEPS_PREFIX=$PWD/.deps -DCMAKE_CUDA_ARCHITECTURES=90 >/tmp/cfg.log 2>&1 || tail -20 /tmp/cfg.log
cmake --build $B -j16 --target gpuq gpuq_inject atomics_app profile_check histogram test_gi_sass test_gi_filter 2>&1 | grep -E "error|warning"
ctest --test-dir $B -R "profile_|test_gi" -E profile_torch --output-on-failure > $OUT/ctest.txt 2>&1; echo ctest rc $?
grep -E "^ok|FAIL|passed|skipped|Test +#|tests passed|torch:|  [a-z_]+__|gpuq vs" $OUT/ctest.txt | head -60
echo "== phases"
for mode in each once; do for pass in counters sass; do
  rm -rf /tmp/ph; mkdir -p /tmp/ph
  CUDA_INJECTION64_PATH=$L GPUQ_VERBOSE=1 GPUQ_RP_SETCONFIG=$mode GPUQ_PASS=$pass GPUQ_OUT=/tmp/ph/out.csv GPUQ_CUBIN_DIR=/tmp/ph/c $A --repeat 3 2>&1 | grep -E "mean per|stopped|error" | sed "s/^/$mode $pass: /"
  [ $pass = counters ] && cp /tmp/ph/out.csv /tmp/ph-$mode.csv
done; done
cut -d, -f1,14-18 /tmp/ph-each.csv | head -5; cut -d, -f1,14-18 /tmp/ph-once.csv | head -5
python3 - <<'EOF'
import csv
def load(p): 
    r=list(csv.reader(l for l in open(p) if not l.startswith('#'))); return r[0], r[1:]
h,a=load('/tmp/ph-each.csv'); _,b=load('/tmp/ph-once.csv')
worst={}
for x,y in zip(a,b):
    for i,c in enumerate(h):
        if i<12 or c.startswith('split') or not x[i] or not y[i]: continue
        u,v=float(x[i]),float(y[i]); d=abs(u-v)/max(abs(u),abs(v),1e-9); worst[c]=max(worst.get(c,0),d)
print(len(a),len(b),'rows; each vs once worst rel diff:',{k:round(v,4) for k,v in worst.items()})
EOF
echo "== torch"
T=$B/tests/profile/work-atomics/synthetic.table.csv
GPUQ_KEEP_TEMP=1 $B/gpuq profile --table $T --force -o /tmp/torch.txt -- python3 tests/profile/torch_bincount.py > /tmp/torch.out 2>&1; cat /tmp/torch.out
D=$(grep -o '/tmp/gpuq-profile[^ ]*' /tmp/torch.out | tail -1); ls -la $D $D/cubins | head -30; grep -E "^cubin|^launch|^end" $D/sass.csv
F=$(grep -o 'first: [^+]*' /tmp/torch.out | cut -c8-)
for c in $D/cubins/*.cubin; do nvdisasm -c $c > $c.txt 2>&1; grep -q "$F" $c.txt && echo "has $F: $c"; done
tar czf $OUT/torch.tgz $D/sass.csv $D/*.status 2>/dev/null
echo "== bench"
timeout 100 bash scripts/bench_profile_overhead.sh -n 3 -g $B/gpuq -G "--table $T --force" $A --repeat 3 > $OUT/bench_atomics.txt 2>&1; cat $OUT/bench_atomics.txt
timeout 100 bash scripts/bench_profile_overhead.sh -n 2 -g $B/gpuq -G "--table $T --force" $B/examples/histogram/histogram --image solid --pixels 4194304 > $OUT/bench_hist.txt 2>&1; cat $OUT/bench_hist.txt
echo "== record"
bash tests/profile/collector_smoke.sh $B /tmp/rec > /tmp/rec.log 2>&1; echo smoke rc $?
cp /tmp/rec/counters.csv /tmp/rec/sass.csv $OUT/ ; nvdisasm -c /tmp/rec/cubins/*.cubin > $OUT/app.nvdisasm.txt; cuobjdump -sass $A > $OUT/app.cuobjdump.txt
