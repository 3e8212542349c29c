#!/usr/bin/env python3
"""Unit tests of validation/latency.py (no GPU): L in both forms against the
same five H100 launches the C module's test reads (tests/papers/atomics/data), the
issue term by hand, the fallback without wait and selected, the verdict
kind, the data-chosen threshold, the mixed-series bar, the stall parse of
ncu's long layout, and the PC-sampling table."""
import csv
import math
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "validation"))

import analyze  # noqa: E402
import latency  # noqa: E402

RAW = os.path.join(HERE, "..", "papers", "atomics", "data", "ncu_raw_latency_h100.csv")


def raw_rows():
    """The raw-page fixture as joined-like rows (short column names)."""
    with open(RAW, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    out = []
    for r in rows[2:]:
        d = {}
        for name, short in analyze.NCU_METRICS.items():
            if name in head:
                d[short] = analyze.parse_number(r[head.index(name)])
        for name in head:  # every other stall reason, as analyze.py keeps them
            if name.startswith(analyze.STALL_PREFIX) and name.endswith(".sum"):
                d["stall_" + name[len(analyze.STALL_PREFIX):-4]] = analyze.parse_number(r[head.index(name)])
        d["kernel"] = r[head.index("Kernel Name")]
        out.append(d)
    return out


def row(group, name, u, l_counters, u_true=math.nan, truth="construction", **extra):
    """A joined row whose L comes out as l_counters exactly: 64 warps x
    100 cycles, ATOMS only in the shared pipe."""
    r = {"group": group, "name": name, "U_default": u, "U_true": u_true, "truth": truth,
         "N_atom": 10.0, "shared_inst": 10.0, "occupancy_pct": 100.0, "cycles_sum": 100.0,
         "stall_short_scoreboard": l_counters * 6400.0, "stall_mio_throttle": 0.0}
    r.update(extra)
    return r


class LatencyTest(unittest.TestCase):
    def test_same_L_as_the_c_module(self):
        # The values test_atomics_latency.c expects for the same launches:
        # the shipped form, then the two-counter form.
        rows = raw_rows()
        self.assertTrue(all(not math.isnan(r["stall_wait"]) for r in rows))
        want = [0.9379, 0.9881, 0.6762, 0.0984, 0.0]
        got = [latency.latency_L(r) for r in rows]
        for g, w in zip(got, want):
            self.assertAlmostEqual(g, w, delta=5e-5)
        want = [0.9013, 0.9864, 0.5909, 0.0899, 0.0]
        got = [latency.latency_L(r, "sb-mio") for r in rows]
        for g, w in zip(got, want):
            self.assertAlmostEqual(g, w, delta=5e-5)
        # Without wait and selected (older runs): the two-counter L exactly.
        for r in rows:
            old = dict(r, stall_wait=math.nan, stall_selected=math.nan)
            self.assertEqual(latency.latency_L(old), latency.latency_L(r, "sb-mio"))
            self.assertEqual(latency.l_form(old), "sb-mio")

    def test_issue_term_by_hand(self):
        # 6400 warp-cycles; no short scoreboard; wait 3000 + selected 400,
        # 100 of the 400 issued instructions ATOMS: 3400 / 6400 x 0.25.
        r = row("atomic", "p", 0.1, 0.0, stall_wait=3000.0, stall_selected=400.0, N_atom=100.0,
                shared_inst=100.0)
        self.assertEqual(latency.l_form(r), "issue")
        self.assertAlmostEqual(latency.latency_L(r), 3400.0 / 6400 * 0.25)
        self.assertEqual(latency.latency_L(r, "sb-mio"), 0.0)
        # Both terms add: 0.5 x 1 + 3400 / 6400 x 0.25.
        r["stall_short_scoreboard"] = 3200.0
        self.assertAlmostEqual(latency.latency_L(r), 0.5 + 3400.0 / 6400 * 0.25)
        # Selected 0 with ATOMS (mixed files): the share is 1, as in C.
        r = row("atomic", "p", 0.1, 0.0, stall_wait=640.0, stall_selected=0.0)
        self.assertAlmostEqual(latency.latency_L(r), 0.1)

    def test_kind_at_the_threshold_of_the_form(self):
        th = {"issue": 0.34, "sb-mio": 0.32}
        fresh = latency.with_l([row("atomic", "a", 0.1, 0.33, stall_wait=0.0, stall_selected=1e9)])[0]
        old = latency.with_l([row("atomic", "b", 0.1, 0.33)])[0]
        self.assertEqual(fresh["L_form"], "issue")
        self.assertEqual(old["L_form"], "sb-mio")
        self.assertAlmostEqual(fresh["L"], 0.33 + 1e9 / 6400 * 1e-8, places=9)
        self.assertEqual(latency.kind_row(fresh, th), "none")      # 0.33 < 0.34
        self.assertEqual(latency.kind_row(old, th), "latency")     # 0.33 >= 0.32
        two = latency.as_form([fresh], "sb-mio")[0]
        self.assertEqual(two["L_form"], "sb-mio")
        self.assertAlmostEqual(two["L"], 0.33)

    def test_no_atomics_zero_missing_nan(self):
        self.assertEqual(latency.latency_L({"N_atom": 0.0}), 0.0)
        self.assertTrue(math.isnan(latency.latency_L({"N_atom": 5.0})))
        r = row("atomic", "a", 0.1, 0.5)
        r["stall_mio_throttle"] = 3200.0  # 0.5 more: capped at 1
        self.assertEqual(latency.latency_L(r), 1.0)
        r = row("atomic", "a", 0.1, 0.8, shared_inst=40.0)  # a quarter of the pipe
        self.assertAlmostEqual(latency.latency_L(r), 0.2)

    def test_kind(self):
        self.assertEqual(latency.kind(0.97, 0.0, 0.32), "throughput")
        self.assertEqual(latency.kind(0.14, 0.85, 0.32), "latency")
        self.assertEqual(latency.kind(0.14, 0.10, 0.32), "none")
        self.assertEqual(latency.kind(0.14, math.nan, 0.32), "unknown")
        self.assertEqual(latency.kind(math.nan, 0.9, 0.32), "unknown")

    def test_shipped_threshold_is_read_from_the_header(self):
        t = latency.thresholds_shipped()
        self.assertEqual(set(t), {"issue", "sb-mio"})
        self.assertTrue(all(0 < v < 1 for v in t.values()))
        self.assertEqual(t["issue"], latency.l_threshold_shipped())

    def test_threshold_gap_and_inseparable(self):
        rows = latency.with_l([
            row("atomic", "lat_hi", 0.3, 0.9), row("atomic", "lat_lo", 0.2, 0.45),
            row("atomic", "thr", 0.99, 0.3), row("atomic", "missed", 0.1, 0.05),
            row("mixed", "m_low", 0.3, 0.2, u_true=0.3, truth="ratio"),
            row("mixed", "m_high", 0.6, 0.7, u_true=0.6, truth="ratio"),
            row("free", "f", 0.0, 0.0, u_true=0.0, N_atom=0.0)])
        lo, hi, lo_case, hi_case, insep = latency.choose_threshold(rows)
        self.assertAlmostEqual(lo, 0.2)
        self.assertEqual(lo_case, "m_low")
        self.assertAlmostEqual(hi, 0.45)
        self.assertEqual(hi_case, "lat_lo")
        self.assertEqual([n for _, n in insep], ["missed"])
        res = latency.bars(rows, 0.32)
        self.assertFalse(res["atomic"][0])
        self.assertEqual([r["name"] for r in res["atomic"][2]], ["missed"])
        self.assertTrue(res["free"][0])

    def test_mixed_series_may_differ_only_at_the_crossing(self):
        def series(kinds_u):
            return latency.with_l([row("mixed", "s%d" % k, u, 0.0, u_true=t, truth="ratio", k=float(k), op="add",
                                       pattern="same_address", work="fma", threads=256.0, blocks_per_sm=4.0)
                                   for k, (t, u) in kinds_u])
        # Truth crosses between k = 4 and k = 8; the verdict between 8 and 16: one step late, allowed.
        ok = series([(1, (0.9, 0.9)), (4, (0.6, 0.6)), (8, (0.45, 0.55)), (16, (0.3, 0.3))])
        self.assertTrue(latency.mixed_series(ok, 0.32)[0][2])
        # Two steps late: a failure.
        bad = series([(1, (0.9, 0.9)), (4, (0.45, 0.6)), (8, (0.3, 0.55)), (16, (0.2, 0.3))])
        self.assertFalse(latency.mixed_series(bad, 0.32)[0][2])

    def test_other_stall_reasons_parsed_from_ncu_long(self):
        text = ('"ID","Process ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
                '"0","1","k","smsp__warps_issue_stalled_wait.sum","warp","1,234"\n'
                '"0","1","k","smsp__warps_issue_stalled_short_scoreboard.sum","warp","10"\n')
        (l,) = analyze.read_ncu_long(text, from_text=True)
        self.assertEqual(l["stall_wait"], 1234.0)
        self.assertEqual(l["stall_short_scoreboard"], 10.0)

    def test_summary_names_the_cases_a_twin_moved(self):
        # A case of analyze.TWIN_TRUTH is counted with the real kernels, not
        # as atomic-bound, and the README sentence says so with its truth.
        rows = latency.with_l([row("atomic", "a", 0.9, 0.0), row("free", "f", 0.0, 0.0, N_atom=0.0),
                               row("real", "hash_cas_t512x1", 0.2, 0.1, u_true=0.3, truth="lower_bound")])
        text = latency.summary(rows, "X", {"issue": 0.34, "sb-mio": 0.32})
        self.assertIn("1 of 1 atomic-bound kernels get an atomic verdict", text)
        self.assertIn("None is missed.", text)
        self.assertIn("`hash_cas_t512x1` (U_true >= 0.300, U 0.200, L 0.100, kind none)", text)

    def test_pcsamp_table(self):
        head = '"Address","Source","Warp Stall Sampling (All Samples)","stall_short_sb","stall_wait"'
        text = "\n".join([
            '"Kernel Name","k1",', head,
            '"0","ATOMS.ADD R9, [R4], R13","10","0","10"',
            '"16","IADD3 R0, R8, R9, R0","80","80","0"',
            '"32","LDS R6, [R4]","0","0","0"',
            '"48","IADD3 R1, R6, 0x1, RZ","10","10","0"'])
        t = latency.pcsamp_table(text)
        line = [l for l in t.splitlines() if l.startswith("| `k1`")][0]
        cells = [c.strip() for c in line.split("|")]
        self.assertEqual(cells[2], "100")
        self.assertEqual(cells[3], "0.10")   # samples at the ATOMS
        self.assertEqual(cells[4], "0.90")   # short scoreboard anywhere
        self.assertEqual(cells[5], "0.89 of it")  # 80 of 90 at the reader of R9


if __name__ == "__main__":
    unittest.main()
