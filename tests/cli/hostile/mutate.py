#!/usr/bin/env python3
"""Hostile inputs for the gpuq command line, made from the shipped files.

  mutate.py named SRCDIR OUT            the cases of tests/cli/cli_cases.txt
                                        that need a file made at test time
  mutate.py campaign SRCDIR OUT N SEED  N seeded mutations of each source file,
                                        listed in OUT/cases.txt as
                                        "KIND PATH" (KIND: counters, ncu,
                                        sched, throughput, gatomics)

Deterministic: the same SEED gives the same files on every machine (Python's
random.Random).  The sources are small, shipped, real files: counters
recorded on an H100 and H200, an ncu export, and the H100's machine data.
"""
import csv
import gzip
import io
import os
import random
import sys

H100 = "tables/nvidia-h100-80gb-hbm3"
GPU_DIR = "nvidia-h100-80gb-hbm3"
COUNTERS = [
    "tests/data/counters/valid.csv",
    "data/recorded/histogram-hist-solid-4m-nvidia-h100-80gb-hbm3.all-units.counters.csv",
]
NCU = ["tests/data/ncu/ncu_probe.csv", "tests/data/ncu/ncu_probe_raw.csv"]
MDATA = {"sched": H100 + "/sched.csv", "throughput": H100 + "/throughput.csv",
         "gatomics": H100 + "/gatomics.csv"}

# Values a hostile or broken writer puts in a numeric cell.
HOSTILE_NUMBERS = [
    "1e308", "-1e308", "1e20", "9.3e18", "-0", "-1", "0x1p3", "0x10", "inf", "-inf",
    "nan", "NaN", "1e999", "2147483648", "-2147483648", "2082408386", "4294967296",
    "18446744073709551616", "9223372036854775807", "1.5", "0.000001", "", " 3", "3 ",
    "1,5", "++1", "1e", ".", "0", "99999999999999999999999999", "1/0", "\t",
]


def read(src, path):
    with open(os.path.join(src, path), "rb") as f:
        return f.read().decode("utf-8", "surrogateescape")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(text.encode("utf-8", "surrogateescape"))


def split_mdata(text):
    """(header lines, column names, rows) of a machine-data file."""
    lines = text.split("\n")
    head = [l for l in lines if l.startswith("#")]
    body = [l for l in lines if l and not l.startswith("#")]
    rows = list(csv.reader(body))
    return head, rows[0], rows[1:]


def join_mdata(head, cols, rows, sep=","):
    return "\n".join(head + [sep.join(cols)] + [sep.join(r) for r in rows]) + "\n"


def set_cell(text, key, col, value, match=None):
    """The machine data with the first row of kind `key` (and optional
    {column: value} match) holding `value` in column `col`."""
    head, cols, rows = split_mdata(text)
    c = cols.index(col)
    for r in rows:
        if r[0] == key and all(r[cols.index(k)] == v for k, v in (match or {}).items()):
            r[c] = value
            break
    else:
        raise SystemExit("mutate.py: no %s row %s" % (key, match))
    return join_mdata(head, cols, rows)


def set_counter(text, col, value, row=0):
    lines = text.split("\n")
    h = next(i for i, l in enumerate(lines) if l.startswith("launch_id,"))
    cols = lines[h].split(",")
    rec = next(csv.reader([lines[h + 1 + row]]))
    rec[cols.index(col)] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(rec)
    lines[h + 1 + row] = out.getvalue()
    return "\n".join(lines)


def gpu_folder(out, name, suite, text):
    write(os.path.join(out, name, GPU_DIR, suite + ".csv"), text)


def named(src, out):
    sched = read(src, MDATA["sched"])
    thr = read(src, MDATA["throughput"])
    gat = read(src, MDATA["gatomics"])
    # sched: what once reached the model as undefined behaviour
    write(out + "/sched_n1_huge.csv",
          set_cell(sched, "nslot", "extra", "2082408386", {"name": "wsb", "x": "1"}))
    write(out + "/sched_x_nan.csv", set_cell(sched, "nslot", "x", "nan", {"name": "shm"}))
    write(out + "/sched_shm_inf.csv", set_cell(sched, "nslot", "y", "inf", {"name": "shm"}))
    write(out + "/sched_rf_1e308.csv", set_cell(sched, "nslot", "z", "1e308", {"name": "rf"}))
    write(out + "/sched_tail_int_min.csv", set_cell(sched, "tail", "value", "-2147483648"))
    head, cols, rows = split_mdata(sched)
    write(out + "/sched_tabs.csv", join_mdata(head, cols, rows, "\t"))
    # throughput and gatomics, each alone in a GPU folder ($GPUQ_TABLE_DIR)
    gpu_folder(out, "launch_minus1", "throughput", set_cell(thr, "launch", "value", "-1"))
    gpu_folder(out, "rate_inf", "throughput",
               set_cell(thr, "inst", "value", "inf", {"name": "fma"}))
    gpu_folder(out, "rate_1e308", "throughput",
               set_cell(thr, "inst", "value", "1e308", {"name": "fma"}))
    gpu_folder(out, "gatomics_inf", "gatomics",
               set_cell(gat, "l2rate", "median", "inf", {"op": "atom.add.u32"}))
    # counters: values once printed as results
    valid = read(src, COUNTERS[0])
    for name, col, value in [("wavefronts_1e308", "O_wavefronts", "1e308"),
                             ("wavefronts_1e20", "O_wavefronts", "1e20"),
                             ("wavefronts_minus0", "O_wavefronts", "-0"),
                             ("wavefronts_hex", "O_wavefronts", "0x1p3"),
                             ("cycles_1e308", "cycles_sum", "1e308"),
                             ("occupancy_150", "occupancy_pct", "150"),
                             ("duration_2days", "duration_ns", "1.8e14"),
                             ("count_fraction", "N_atom", "24.5")]:
        write("%s/counters_%s.csv" % (out, name), set_counter(valid, col, value))
    rec = read(src, COUNTERS[1])
    write(out + "/counters_pipe_1e308.csv", set_counter(rec, "smsp__inst_executed_pipe_fma.sum", "1e308"))
    # a file with no line break: 2 MiB, twice the longest record a reader holds
    write(out + "/no_newline.csv", "a" * (2 << 20))
    with open(out + "/no_newline.csv.gz", "wb") as f:  # the gzip path: 2 KB that unpack to 2 MiB
        f.write(gzip.compress(b"a" * (2 << 20)))
    # the bottleneck section's optional sched data, out of range: an error,
    # not silently the device maximum
    gpu_folder(out, "bottleneck_bad_sched", "throughput", thr)
    gpu_folder(out, "bottleneck_bad_sched", "sched",
               set_cell(sched, "nslot", "x", "nan", {"name": "shm"}))
    # ncu: a wavefront count in cycles
    ncu = read(src, NCU[0]).split("\n")
    for i, l in enumerate(ncu):
        if '"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",""' in l:
            ncu[i] = l.replace('_op_atom.sum",""', '_op_atom.sum","Kcycle"')
            break
    write(out + "/ncu_wavefronts_kcycle.csv", "\n".join(ncu))


def mutate_text(rng, text):
    """One random edit: a hostile number in a numeric-looking field, a
    deleted or duplicated line, a cut, a byte flip, a separator change."""
    lines = text.split("\n")
    op = rng.randrange(8)
    i = rng.randrange(len(lines))
    if op <= 3:  # a field replaced by a hostile number (most of the campaign)
        fields = lines[i].split(",")
        j = rng.randrange(len(fields))
        fields[j] = rng.choice(HOSTILE_NUMBERS)
        lines[i] = ",".join(fields)
    elif op == 4:
        del lines[i]
    elif op == 5:
        lines.insert(i, lines[i])
    elif op == 6:
        return "\n".join(lines)[: rng.randrange(len(text) + 1)]
    else:
        b = bytearray("\n".join(lines).encode("utf-8", "surrogateescape"))
        for _ in range(rng.randrange(1, 4)):
            k = rng.randrange(len(b))
            b[k] = rng.choice(b",\t\"\r\x00#-.0123456789e") if rng.random() < 0.7 else rng.randrange(256)
        return b.decode("utf-8", "surrogateescape")
    return "\n".join(lines)


def campaign(src, out, n, seed):
    rng = random.Random(seed)
    cases = []
    for path in COUNTERS:
        text = read(src, path)
        for k in range(n):
            p = "%s/counters/%s.%d.csv" % (out, os.path.basename(path), k)
            write(p, mutate_text(rng, text))
            cases.append(("counters", p))
    for path in NCU:
        text = read(src, path)
        for k in range(n):
            p = "%s/ncu/%s.%d.csv" % (out, os.path.basename(path), k)
            write(p, mutate_text(rng, text))
            cases.append(("ncu", p))
    for suite, path in MDATA.items():
        text = read(src, path)
        for k in range(n):
            name = "%s.%d" % (suite, k)
            if suite == "sched":
                p = "%s/sched/%s.csv" % (out, name)
                write(p, mutate_text(rng, text))
            else:
                p = os.path.join(out, "md", name)
                gpu_folder(os.path.join(out, "md"), name, suite, mutate_text(rng, text))
            cases.append((suite, p))
    with open(os.path.join(out, "cases.txt"), "w") as f:
        for kind, p in cases:
            f.write("%s %s\n" % (kind, p))


def main(argv):
    if len(argv) >= 4 and argv[1] == "named":
        named(argv[2], argv[3])
    elif len(argv) == 6 and argv[1] == "campaign":
        campaign(argv[2], argv[3], int(argv[4]), int(argv[5]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
