#!/usr/bin/env python3
"""A 10,000-launch profile makes an HTML report under 5 MB that still holds
every launch: made from a recorded run by scripts/synth_counters.py (100
kernel names, every launch's numbers different).  How fast a browser draws
it is a benchmark, not a test: scripts/bench_html.sh.

    large_check.py GPUQ SRCDIR WORKDIR"""
import json
import os
import re
import subprocess
import sys

GPUQ, SRC, WORK = sys.argv[1:4]
LAUNCHES, NAMES, LIMIT = 10000, 50, 5 * 1024 * 1024
os.makedirs(WORK, exist_ok=True)
rec = os.path.join(SRC, "data/recorded/histogram-hist-solid-4m-nvidia-h100-80gb-hbm3.all-units.counters.csv")
counters, page = os.path.join(WORK, "large.counters.csv"), os.path.join(WORK, "large.html")
subprocess.run([sys.executable, os.path.join(SRC, "scripts/synth_counters.py"), rec, counters,
                "--launches", str(LAUNCHES), "--names", str(NAMES)], check=True)
env = dict(os.environ, GPUQ_TABLE_DIR=os.path.join(SRC, "tables"))
subprocess.run([GPUQ, "model", counters, "-f", "html", "-o", page], env=env, check=True)
size = os.path.getsize(page)
with open(page, encoding="utf-8") as f:
    text = f.read()
m = re.search(r'<script type="application/json" id="gpuq-data">(.*?)</script>', text, re.S)
if not m:
    sys.exit("FAIL: no data block in %s" % page)
data = json.loads(m.group(1))
bad = []
if size >= LIMIT:
    bad.append("%d bytes, the limit is %d" % (size, LIMIT))
if len(data["launches"]["id"]) != LAUNCHES or data["launches"]["id"] != list(range(LAUNCHES)):
    bad.append("%d launches in the data, expected %d" % (len(data["launches"]["id"]), LAUNCHES))
# two kernels in the recording, each under NAMES names
if len(data["kernels"]) != 2 * NAMES:
    bad.append("%d kernels, expected %d" % (len(data["kernels"]), 2 * NAMES))
if sum(k["n"] for k in data["kernels"]) != LAUNCHES:
    bad.append("the kernels' launches do not add up to %d" % LAUNCHES)
ns = len(data["sections"])
for key in ("sev", "sv", "cells"):
    if len(data["launches"][key]) != LAUNCHES * ns:
        bad.append("launches.%s has %d entries, expected %d" % (key, len(data["launches"][key]), LAUNCHES * ns))
if max(data["launches"]["cells"]) >= len(data["cells"]) or data.get("incomplete"):
    bad.append("launch cells point past the table (or the data says it is incomplete)")
for b in bad:
    print("FAIL: " + b)
print("%s: %d launches of %d kernels, %d sections: %.2f MB (limit 5 MB), %d distinct cell rows"
      % (os.path.basename(page), LAUNCHES, len(data["kernels"]), ns, size / 1048576, len(data["cells"])))
sys.exit(1 if bad else 0)
