#!/usr/bin/env python3
"""No include circles: the graph of `#include "..."` between the headers of
src/ and include/ (a header's include resolved as the compiler does: beside
the including file first, then the include directories) has no cycle.

usage: check_includes.py SOURCE_DIR      exit 0 none, 1 a cycle (printed)"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
dirs = [os.path.join(root, "include")]
headers = []
for top in ("src", "include"):
    for dp, dn, fn in os.walk(os.path.join(root, top)):
        dirs.append(dp)
        headers += [os.path.join(dp, f) for f in fn if f.endswith((".h", ".cuh"))]


def resolve(frm, name):
    for d in [os.path.dirname(frm)] + dirs:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(p):
            return p
    return None  # a system or generated header


edges = {}
for h in headers:
    with open(h, errors="replace") as f:
        names = re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)
    edges[os.path.normpath(h)] = [p for p in (resolve(h, n) for n in names) if p]

state, bad = {}, []


def visit(u, path):
    state[u] = 1
    path.append(u)
    for v in edges.get(u, ()):
        if state.get(v) == 1:
            bad.append(path[path.index(v):] + [v])
        elif v in edges and not state.get(v):
            visit(v, path)
    path.pop()
    state[u] = 2


for h in sorted(edges):
    if not state.get(h):
        visit(h, [])
for c in bad:
    print("include circle: " + " -> ".join(os.path.relpath(p, root) for p in c))
if not edges:
    print("check_includes: no headers under %s" % root)
    sys.exit(1)
print("includes: %d headers, %d include edges, %d circles" %
      (len(edges), sum(len(v) for v in edges.values()), len(bad)))
sys.exit(1 if bad else 0)
