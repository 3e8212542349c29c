"""Reduces cuobjdump -sass text on stdin to examples per full mnemonic:
mnemonic<TAB>count<TAB>lo,hi;lo,hi;... (up to 12 distinct encodings)."""
import re, sys, collections
ins = re.compile(r'^\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)[^;]*;\s*/\* (0x[0-9a-f]{16}) \*/')
hi_re = re.compile(r'^\s*/\* (0x[0-9a-f]{16}) \*/\s*$')
ex = collections.defaultdict(list); cnt = collections.Counter()
pending = None
for line in sys.stdin:
    m = ins.match(line)
    if m:
        pending = (m.group(2), m.group(3)); continue
    h = hi_re.match(line)
    if h and pending:
        mn, lo = pending; pending = None
        cnt[mn] += 1
        e = (lo, h.group(1))
        if len(ex[mn]) < 12 and e not in ex[mn]:
            ex[mn].append(e)
for mn in sorted(cnt):
    print(f"{mn}\t{cnt[mn]}\t" + ";".join(f"{a},{b}" for a, b in ex[mn]))
