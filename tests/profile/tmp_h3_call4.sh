#!/usr/bin/env bash
# temporary diagnostic run (h3), deleted after use
set -u
B=/tmp/b; A=$B/tests/profile/atomics_app; L=$B/libgpuq_inject.so
nvidia-smi -L; nvcc --version | tail -1
cmake -S . -B $B -DGPUQ_DEPS_PREFIX=$PWD/.deps -DCMAKE_CUDA_ARCHITECTURES=90 >/tmp/cfg.log 2>&1 || tail -20 /tmp/cfg.log
cmake --build $B -j16 --target gpuq gpuq_inject atomics_app profile_check histogram 2>&1 | grep -E "error|warning"
ctest --test-dir $B -R "profile_" --output-on-failure > $OUT/ctest.txt 2>&1; echo ctest rc $?
grep -E "^ok|FAIL|passed|skipped|Test +#|tests passed|torch:|  [a-z_]+__|gpuq vs|warning" $OUT/ctest.txt | head -60
echo "== modes"
run() { rm -rf /tmp/ph; mkdir -p /tmp/ph; env CUDA_INJECTION64_PATH=$L GPUQ_VERBOSE=1 GPUQ_OUT=/tmp/ph/out.csv GPUQ_STATUS=/tmp/ph/st GPUQ_CUBIN_DIR=/tmp/ph/c "$@" $A --repeat 3 2>&1 | grep -E "mean per|stopped|error|ranges in" | sed "s/^/$*: /"; grep -E "mismatch|error:" /tmp/ph/st | tr '\n' ' '; echo; }
run GPUQ_PASS=counters; cp /tmp/ph/out.csv /tmp/w.csv
run GPUQ_PASS=counters GPUQ_RANGE_MODE=session; cp /tmp/ph/out.csv /tmp/s.csv
run GPUQ_PASS=counters GPUQ_REPLAY=kernel; cp /tmp/ph/out.csv /tmp/k.csv
python3 - <<'EOF'
import csv
def load(p):
    r=list(csv.reader(l for l in open(p) if not l.startswith('#'))); return r[0], r[1:]
h,a=load('/tmp/w.csv')
for f in ('/tmp/s.csv','/tmp/k.csv'):
    _,b=load(f); worst={}
    for x,y in zip(a,b):
        for i,c in enumerate(h):
            if i<12 or c.startswith('split') or not x[i] or not y[i]: continue
            u,v=float(x[i]),float(y[i]); d=abs(u-v)/max(abs(u),abs(v),1e-9); worst[c]=max(worst.get(c,0),d)
    print(f,len(a),len(b),{k:round(v,4) for k,v in worst.items()})
EOF
CUDA_INJECTION64_PATH=$L GPUQ_VERBOSE=2 GPUQ_PASS=sass GPUQ_OUT=/tmp/l.csv GPUQ_CUBIN_DIR=/tmp/lc $A 2>&1 | grep "SASS metric" | cut -c1-160 > $OUT/sass_metrics.txt; wc -l $OUT/sass_metrics.txt; grep -i "atom\|shared" $OUT/sass_metrics.txt | head
run GPUQ_PASS=sass
M=$(grep -o "SASS metric smsp__sass_inst_executed_op_shared_atom[a-z_.]*" $OUT/sass_metrics.txt | head -1 | cut -d' ' -f3)
[ -n "$M" ] && { run GPUQ_PASS=sass GPUQ_SASS_METRIC=$M; grep -c "^inst" /tmp/ph/out.csv; grep "^inst,1," /tmp/ph/out.csv | head -3; }
echo "== torch"
GPUQ_KEEP_TEMP=1 $B/gpuq profile --table $B/tests/profile/work-atomics/synthetic.table.csv --force -o /tmp/torch.txt -- python3 tests/profile/torch_bincount.py 2>&1 | grep -v "^torch_bincount"
D=$(ls -d /tmp/gpuq-profile.* | tail -1); grep -E "^cubin" $D/sass.csv; ls -la $D/cubins
echo "== bench"
T=$B/tests/profile/work-atomics/synthetic.table.csv
timeout 100 bash scripts/bench_profile_overhead.sh -n 3 -g $B/gpuq -G "--table $T --force" $B/examples/histogram/histogram --kernel hist --image solid --pixels 4194304 > $OUT/bench_hist.txt 2>&1; cat $OUT/bench_hist.txt
