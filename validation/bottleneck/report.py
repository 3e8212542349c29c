#!/usr/bin/env python3
"""Tables and figures of docs/bottleneck.md from one validation run.

  report.py RESULTS_DIR THROUGHPUT.csv SVG_DIR > tables.md

RESULTS_DIR holds run.sh's outputs and bn_compare's (bn_model.csv,
mm_model.csv, spmv_model.csv, cr_model.csv, cr_steps.csv, patterns.csv,
probes.csv).  Figures are plain SVG (no plotting library needed)."""
import csv, math, os, statistics, sys

res, tp_path, svg_dir = sys.argv[1], sys.argv[2], sys.argv[3]


def rows(name):
    return list(csv.DictReader(open(os.path.join(res, name))))


def tp_rows():
    lines = [l for l in open(tp_path) if not l.startswith('#')]
    return list(csv.DictReader(lines))


COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#17becf', '#7f7f7f']


def svg_plot(path, title, xlabel, ylabel, series, logx=False, logy=False, w=560, h=340):
    """series: [(label, [(x, y)...])]"""
    pts = [p for _, s in series for p in s if p[1] > 0]
    fx = (lambda v: math.log2(v)) if logx else (lambda v: v)
    fy = (lambda v: math.log10(v)) if logy else (lambda v: v)
    x0, x1 = min(fx(p[0]) for p in pts), max(fx(p[0]) for p in pts)
    y0, y1 = (min(fy(p[1]) for p in pts) if logy else 0), max(fy(p[1]) for p in pts) * (1 if logy else 1.08)
    L, R, T, B = 60, 150, 30, 45
    sx = lambda v: L + (fx(v) - x0) / (x1 - x0 or 1) * (w - L - R)
    sy = lambda v: h - B - (fy(v) - y0) / (y1 - y0 or 1) * (h - T - B)
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (w, h),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="18" font-size="13">%s</text>' % (L, title),
         '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, h - B, w - R, h - B),
         '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, T, L, h - B),
         '<text x="%d" y="%d" text-anchor="middle">%s</text>' % ((L + w - R) / 2, h - 8, xlabel),
         '<text x="14" y="%d" transform="rotate(-90 14 %d)" text-anchor="middle">%s</text>' % ((T + h - B) / 2, (T + h - B) / 2, ylabel)]
    xs = sorted({p[0] for p in pts})
    ticks = xs if len(xs) <= 14 else xs[::max(1, len(xs) // 10)]
    for v in ticks:
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>' % (sx(v), h - B + 14, v))
    for i in range(6):
        v = y0 + (y1 - y0) * i / 5
        val = 10 ** v if logy else v
        o.append('<text x="%d" y="%.1f" text-anchor="end">%.3g</text>' % (L - 4, sy(val) + 4, val))
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (L, sy(val), w - R, sy(val)))
    for i, (label, s) in enumerate(series):
        c = COLORS[i % len(COLORS)]
        s = [p for p in s if p[1] > 0]
        o.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>' % (c, ' '.join('%.1f,%.1f' % (sx(x), sy(y)) for x, y in s)))
        for x, y in s:
            o.append('<circle cx="%.1f" cy="%.1f" r="2" fill="%s"/>' % (sx(x), sy(y), c))
        o.append('<text x="%d" y="%d" fill="%s">%s</text>' % (w - R + 8, T + 14 * i + 8, c, label))
    o.append('</svg>')
    open(path, 'w').write('\n'.join(o))


tp = tp_rows()
# ---- Fig. 2 left: instruction throughput vs warps ----
ser = []
for pipe, sass in [('fma', 'FFMA'), ('fmaheavy', 'IMAD'), ('alu', 'LOP3'), ('fp64', 'DFMA'), ('fp16', 'HFMA2'), ('xu', 'MUFU.EX2')]:
    for ilp in ('1', '4'):
        s = sorted((float(r['warps']), float(r['value'])) for r in tp if r['kind'] == 'inst' and r['name'] == pipe and r['ilp'] == ilp)
        if ilp == '1' or pipe in ('fma', 'fp64'):
            ser.append(('%s ilp %s' % (sass, ilp), s))
ser.append(('issue (2 FFMA+LOP3)', sorted((float(r['warps']), float(r['value'])) for r in tp if r['kind'] == 'issue')))
svg_plot(os.path.join(svg_dir, 'fig2-inst.svg'), 'Fig. 2 left on H100: instruction throughput', 'warps per SM',
         'warp-instructions / clock / SM', ser, logx=True)
print('### Instruction throughput, warp-instructions per clock per SM (Fig. 2 left)\n')
print('| SASS (pipe counter) | documented | ilp 1: 1 warp | 8 | 16 | 64 | ilp 4: 1 warp | 8 | 64 |')
print('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for pipe, sass in [('fma', 'FFMA (fma)'), ('fmaheavy', 'IMAD (fmaheavy)'), ('alu', 'LOP3 (alu)'), ('fp64', 'DFMA (fp64)'), ('fp16', 'HFMA2 (fma, see text)'), ('xu', 'MUFU.EX2 (xu)')]:
    def v(ilp, w):
        for r in tp:
            if r['kind'] == 'inst' and r['name'] == pipe and r['ilp'] == ilp and r['warps'] == w:
                return float(r['value']), r['documented']
        return float('nan'), ''
    d = v('1', '64')[1]
    print('| %s | %s | %s |' % (sass, d, ' | '.join('%.3f' % v(i, w)[0] for i, w in [('1', '1'), ('1', '8'), ('1', '16'), ('1', '64'), ('4', '1'), ('4', '8'), ('4', '64')])))
iss = {r['warps']: float(r['value']) for r in tp if r['kind'] == 'issue'}
print('| FFMA+FFMA+LOP3 (issue) | 4 | %.3f | %.3f | %.3f | %.3f | | | |' % (iss['1'], iss['8'], iss['16'], iss['64']))
launch = [float(r['value']) for r in tp if r['kind'] == 'launch'][0]
print('\nEmpty launch, back to back: %.2f us.\n' % (launch / 1e3))

# ---- Fig. 2 right: shared ----
ser = []
for b in ('4', '8', '16'):
    for k in ('1', '4', '32'):
        s = sorted((float(r['warps']), float(r['value'])) for r in tp if r['kind'] == 'shared' and r['bytes'] == b and r['ways'] == k)
        if s and (b == '4' or k == '1'):
            ser.append(('%sB %s-way' % (b, k), s))
svg_plot(os.path.join(svg_dir, 'fig2-shared.svg'), 'Fig. 2 right on H100: shared-memory copy', 'warps per SM',
         'wavefronts / clock / SM', ser, logx=True)
print('### Shared memory, wavefronts per clock per SM (Fig. 2 right)\n')
print('| access | k-way | 1 warp | 2 | 4 | 8 | 16 | 32 | 64 |')
print('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for b in ('4', '8', '16'):
    for k in ('1', '2', '4', '8', '16', '32'):
        vals = {r['warps']: float(r['value']) for r in tp if r['kind'] == 'shared' and r['bytes'] == b and r['ways'] == k}
        print('| %s B | %s | %s |' % (b, k, ' | '.join(('%.3f' % vals[w]) if w in vals else '-' for w in ('1', '2', '4', '8', '16', '32', '64'))))

# ---- Fig. 3: global ----
ser = []
for t in ('64', '256', '1024'):
    for m in ('1', '16'):
        s = sorted((float(r['blocks']), float(r['value'])) for r in tp if r['kind'] == 'global' and r['name'] == 'dram_ld' and r['bytes'] == '4' and r['threads'] == t and r['per_thread'] == m)
        ser.append(('%sT %sM' % (t, m), s))
svg_plot(os.path.join(svg_dir, 'fig3-global.svg'), 'Fig. 3 on H100: DRAM loads, 4 B per thread', 'blocks', 'GB/s', ser, logx=True)
print('\n### Global memory, best bandwidth seen (GB/s, Fig. 3)\n')
print('| memory, op | 4 B | 8 B | 16 B |')
print('| --- | --- | --- | --- |')
for name in ('dram_ld', 'dram_st', 'l2_ld', 'l2_st'):
    print('| %s | %s |' % (name, ' | '.join('%.0f' % max(float(r['value']) for r in tp if r['kind'] == 'global' and r['name'] == name and r['bytes'] == b) for b in ('4', '8', '16'))))

# ---- validation ----
bn = rows('bn_model.csv')
print('\n### Validation: kernels with a known bottleneck (60 cases x 2 forms)\n')
print('| form | median abs error | worst | within 25% | bottleneck named |')
print('| --- | --- | --- | --- | --- |')
for form in ('hopper', 'paper'):
    r = [x for x in bn if x['form'] == form]
    e = [abs(float(x['error'])) for x in r]
    print('| %s | %.1f%% | %.1f%% (%s) | %d/%d | %d/%d |' % (form, 100 * statistics.median(e), 100 * max(e),
          max(r, key=lambda x: abs(float(x['error'])))['case'], sum(1 for v in e if v <= 0.25), len(e),
          sum(1 for x in r if x['correct'] == '1'), len(r)))
print('\n| group | hopper median / worst | paper median / worst |')
print('| --- | --- | --- |')
groups = {}
for x in bn:
    groups.setdefault(x['case'].rsplit('_w', 1)[0], {}).setdefault(x['form'], []).append(abs(float(x['error'])))
for g, d in groups.items():
    print('| %s | %.1f%% / %.1f%% | %.1f%% / %.1f%% |' % (g, 100 * statistics.median(d['hopper']), 100 * max(d['hopper']),
          100 * statistics.median(d['paper']), 100 * max(d['paper'])))
print('\n<details><summary>every case</summary>\n')
print('| case | warps | measured us | hopper us | err | paper us | err | named (h/p) |')
print('| --- | --- | --- | --- | --- | --- | --- | --- |')
by = {}
for x in bn:
    by.setdefault(x['case'], {})[x['form']] = x
for c, d in by.items():
    h, p = d['hopper'], d['paper']
    print('| %s | %.1f | %.1f | %.1f | %+.1f%% | %.1f | %+.1f%% | %s / %s |' % (c, float(h['warps']), float(h['measured_us']),
          float(h['predicted_us']), 100 * float(h['error']), float(p['predicted_us']), 100 * float(p['error']), h['named'], p['named']))
print('\n</details>\n')

# ---- what-ifs ----
t = {x['case']: float(x['measured_us']) for x in bn if x['form'] == 'hopper'}
iters = {'shared_1way': 256, 'shared_8way': 32, 'shared_32way': 8}
print('### What-if checks: predicted speedup against the changed kernel, measured\n')
print('| change | case | predicted (hopper) | predicted (paper) | measured | error (hopper) |')
print('| --- | --- | --- | --- | --- | --- |')
wi = []
for k in ('shared_8way', 'shared_32way'):
    for w in (2, 4, 8, 16):
        c = '%s_w%d' % (k, w)
        twin = '%s_w%d' % ('shared_1way', w)
        if c not in by or float(by[c]['hopper']['warps']) < w * 0.9:
            continue  # the 32-way kernel at 16+ warps ran with fewer warps (shared memory)
        meas = t[c] / (t[twin] * iters[k] / iters['shared_1way'])
        ph, pp = float(by[c]['hopper']['speedup_no_conflicts']), float(by[c]['paper']['speedup_no_conflicts'])
        wi.append((ph - meas) / meas)
        print('| no bank conflicts | %s | %.2fx | %.2fx | %.2fx | %+.1f%% |' % (c, ph, pp, meas, 100 * (ph - meas) / meas))
crm = {(x['case'], x['form']): x for x in rows('cr_model.csv')}
meas = float(crm[('cr_s10', 'hopper')]['measured_us']) / float(crm[('crnbc_s10', 'hopper')]['measured_us'])
ph, pp = float(crm[('cr_s10', 'hopper')]['speedup_no_conflicts']), float(crm[('cr_s10', 'paper')]['speedup_no_conflicts'])
wi.append((ph - meas) / meas)
print('| no bank conflicts | CR -> CR-NBC (whole solve) | %.2fx | %.2fx | %.2fx | %+.1f%% |' % (ph, pp, meas, 100 * (ph - meas) / meas))
print('\nWithin 15%%: %d of %d.\n' % (sum(1 for e in wi if abs(e) <= 0.15), len(wi)))
print('| change | case | predicted by the twin\'s sectors (hopper) | measured |')
print('| --- | --- | --- | --- |')
for w in (2, 4, 8, 16, 32, 64):
    a, b = by['gather_stride8_w%d' % w]['hopper'], by['gather_stride1_w%d' % w]['hopper']
    print('| perfect coalescing | gather_stride8_w%d | %.2fx | %.2fx |' % (w, float(a['predicted_us']) / float(b['predicted_us']),
          float(a['measured_us']) / float(b['measured_us'])))

# ---- case studies ----
print('\n### Matrix multiply (Table 2, Fig. 4)\n')
mm = rows('mm_model.csv')
mt = {x['case']: x for x in csv.DictReader(l for l in open(os.path.join(res, 'mm_times.csv')))}
print('| sub-matrix | regs | smem B | blocks/SM | warps/SM (occupancy API) | achieved warps | measured us | GFLOP/s | form | predicted us | inst / shared / global us | bottleneck | x noBC |')
print('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for x in mm:
    m = mt[x['case']]
    print('| %s | %s | %s | %s | %s | %.1f | %.1f | %s | %s | %.1f (%+.0f%%) | %.0f / %.0f / %.0f | %s | %.2fx |' % (
        x['case'].split('_')[1], m['regs'], m['smem_bytes'], m['blocks_per_sm'], m['warps_per_sm'], float(x['warps']),
        float(x['measured_us']), m['gflops'], x['form'], float(x['predicted_us']), 100 * float(x['error']),
        float(x['inst_us']), float(x['shared_us']), float(x['global_us']), x['named'], float(x['speedup_no_conflicts'])))
print('\n### Cyclic reduction, 8192 systems of 512 equations (Fig. 6-8)\n')
st = rows('cr_steps.csv')
print('| step | CR measured us | CR hopper us (bottleneck) | CR paper us | CR wavefronts / conflict-free | CR-NBC measured | CR-NBC hopper (bottleneck) | CR-NBC paper |')
print('| --- | --- | --- | --- | --- | --- | --- | --- |')
d = {(x['variant'], x['step'], x['form']): x for x in st}
for s in range(11):
    a, b, c, e = d[('CR', str(s), 'hopper')], d[('CR', str(s), 'paper')], d[('CR-NBC', str(s), 'hopper')], d[('CR-NBC', str(s), 'paper')]
    print('| %s | %.1f | %.1f (%s) | %.1f | %.1f | %.1f | %.1f (%s) | %.1f |' % (
        s if s < 10 else 'backward sub.', float(a['measured_us']), float(a['predicted_us']), a['named'], float(b['predicted_us']),
        float(a['shared_wavefronts']) / max(1, float(a['shared_ideal'])), float(c['measured_us']), float(c['predicted_us']),
        c['named'], float(e['predicted_us'])))
ser = [('CR measured', [(s, float(d[('CR', str(s), 'hopper')]['measured_us'])) for s in range(1, 10)]),
       ('CR predicted', [(s, float(d[('CR', str(s), 'hopper')]['predicted_us'])) for s in range(1, 10)]),
       ('CR-NBC measured', [(s, float(d[('CR-NBC', str(s), 'hopper')]['measured_us'])) for s in range(1, 10)]),
       ('CR-NBC predicted', [(s, float(d[('CR-NBC', str(s), 'hopper')]['predicted_us'])) for s in range(1, 10)])]
svg_plot(os.path.join(svg_dir, 'fig6-cr-steps.svg'), 'Fig. 6/8 on H100: forward reduction by step (hopper form)', 'step', 'us', ser)
print('\nWhole solve:\n')
print('| variant | measured us | hopper us | paper us | bottleneck (hopper / paper) | x noBC (hopper) |')
print('| --- | --- | --- | --- | --- | --- |')
for c, n in (('cr_s10', 'CR'), ('crnbc_s10', 'CR-NBC')):
    h, p = crm[(c, 'hopper')], crm[(c, 'paper')]
    print('| %s | %.1f | %.1f (%+.0f%%) | %.1f (%+.0f%%) | %s / %s | %.2fx |' % (n, float(h['measured_us']), float(h['predicted_us']),
          100 * float(h['error']), float(p['predicted_us']), 100 * float(p['error']), h['named'], p['named'], float(h['speedup_no_conflicts'])))
print('\n### SpMV (Fig. 11, 12)\n')
sp = [l for l in open(os.path.join(res, 'spmv_times.csv'))]
print('Matrix: ' + sp[0].strip('# \n') + '\n')
print('| format | transaction | value | index | vector | total B per entry |')
print('| --- | --- | --- | --- | --- | --- |')
for l in sp:
    f = l.strip().split(',')
    if f[0] == 'bytes_per_entry' and f[1] != 'format':
        print('| %s | %s B | %s | %s | %s | %s |' % tuple(f[1:7]))
print('\n| format | measured us | GFLOP/s | form | predicted us | bottleneck | inst / global us |')
print('| --- | --- | --- | --- | --- | --- | --- |')
sm = {x['case']: x for x in csv.DictReader(l for l in sp if not l.startswith('#') and not l.startswith('bytes'))}
for x in rows('spmv_model.csv'):
    print('| %s | %.1f | %s | %s | %.1f (%+.0f%%) | %s | %.1f / %.1f |' % (x['case'], float(x['measured_us']), sm[x['case']]['gflops'],
          x['form'], float(x['predicted_us']), 100 * float(x['error']), x['named'], float(x['inst_us']), float(x['global_us'])))

# ---- all predictions together ----
allp = [(x['case'], x['form'], float(x['error'])) for f in ('bn_model.csv', 'mm_model.csv', 'spmv_model.csv') for x in rows(f)]
allp += [(x['case'], x['form'], float(x['error'])) for x in rows('cr_model.csv') if x['case'].endswith('s10')]
print('\n### All launches together (validation kernels, matmul, SpMV, CR whole solves)\n')
print('| form | launches | median abs error | worst |')
print('| --- | --- | --- | --- |')
for form in ('hopper', 'paper'):
    e = [abs(v) for c, f, v in allp if f == form]
    print('| %s | %d | %.1f%% | %.1f%% |' % (form, len(e), 100 * statistics.median(e), 100 * max(e)))
