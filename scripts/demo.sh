#!/bin/sh
# make demo: the main job of gpuq, on whatever machine this is.
#   With a GPU: profile the shipped histogram example with the shipped table.
#   Without one: apply the model to counters recorded on a real GPU and
#   shipped in data/recorded/, and say so.
set -u
build=${1:-build}
gpuq="$build/gpuq"
app="$build/examples/histogram/histogram"
[ -x "$gpuq" ] || { echo "demo: $gpuq not built (run 'make build')" >&2; exit 2; }

have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  have_gpu=1
fi

if [ "$have_gpu" = 1 ] && [ -x "$app" ] && "$gpuq" version | grep -q "CUPTI collector: yes"; then
  echo "== gpuq demo: profiling the histogram example on this GPU"
  echo "== (4 Mpixel solid image, 1024 threads: hist with ATOMS.ADD, then with ATOMS.POPC.INC)"
  for kernel in hist hist_popc; do
    symbol=$kernel; [ "$kernel" = hist ] && symbol=hist_add
    echo
    echo "\$ gpuq profile -k '^$symbol\$' -- $app --kernel $kernel --image solid --pixels 4194304 --threads 1024 --reps 3"
    "$gpuq" profile -k "^$symbol\$" --keep-counters "$build/demo-$kernel.counters.csv" -- \
      "$app" --kernel "$kernel" --image solid --pixels 4194304 --threads 1024 --reps 3 || exit $?
  done
  exit 0
fi

if [ "$have_gpu" = 1 ]; then
  echo "== gpuq demo: a GPU is present but this build lacks CUDA or the CUPTI collector;"
else
  echo "== gpuq demo: no GPU on this machine."
fi
recorded=data/recorded/histogram-hist-solid-4m-nvidia-h200.counters.csv
[ -f "$recorded" ] || recorded=$(ls data/recorded/*.counters.csv 2>/dev/null | head -n 1)
if [ -n "$recorded" ]; then
  echo "== Applying the model to counters RECORDED on a real GPU and shipped in the repo:"
  echo "==   $recorded"
  grep -E '^# (device_name|source|command):' "$recorded" | sed 's/^# /==   /'
  echo
  echo "== (docs/profile-demo.md has the full run; the POPC.INC and uniform-image runs"
  echo "== are beside it in data/recorded/)"
  echo
  echo "\$ gpuq model $recorded --summary"
  exec "$gpuq" model "$recorded" --summary
fi
echo "demo: no recorded counters in data/recorded/ (a broken checkout?)" >&2
exit 2
