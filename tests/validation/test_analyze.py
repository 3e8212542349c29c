#!/usr/bin/env python3
"""Unit tests of validation/analyze.py and validation/check_sass.py on tiny
hand-made inputs (no GPU): the truth definitions, launch mapping, error
aggregation, the bars, Little's law, the doc update, the comparison of gpuq
profile's counters with ncu's, and the SASS check."""
import math
import os
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "validation"))

import analyze  # noqa: E402
import check_sass  # noqa: E402

TIMES = """# gpuq validation cases v1
# device: test
group,name,blocks,threads,op,pattern,e,k,time_us,atomics_only_us,iters,warps_per_sm,n_atom_expected,launches,kernel
atomic,add_a,132,256,add,same_address,32,0,400.0,,100,8,105600,1,vk_loop
atomic,add_b,132,256,add,same_address,32,0,410.0,,100,8,105600,1,vk_loop
free,fma16,132,256,none,none,32,16,300.0,,100,8,0,1,vk_loop
mixed,add_fma0,132,256,add,same_address,32,0,200.0,200.0,100,8,105600,1,vk_loop
mixed,add_fma64,132,256,add,same_address,32,64,400.0,200.0,100,8,105600,1,vk_loop
real,hist_add_solid_t256,132,256,add,solid,32,0,500.0,450.0,33554432,8,,1,vk_hist
real,cub_solid,0,0,cub_internal,solid,32,0,300.0,,33554432,0,,,DeviceHistogram
real,cub_uniform,0,0,cub_internal,uniform,32,0,150.0,,33554432,0,,,DeviceHistogram
"""


def ncu_rows(launches):
    """ncu --csv long layout for [(id, kernel, {metric: value})]."""
    lines = ['==PROF== Connected to process 1 (validate_app)',
             '"ID","Process ID","Kernel Name","Metric Name","Metric Unit","Metric Value"']
    for lid, kernel, metrics in launches:
        for name, value in metrics.items():
            lines.append('"%d","1","%s","%s","","%s"' % (lid, kernel, name, value))
    return "\n".join(lines) + "\n"


class TruthTest(unittest.TestCase):
    def setUp(self):
        _, rows = analyze.read_table(TIMES, from_text=True)
        self.by_name = {r["name"]: r for r in rows}

    def truth(self, name):
        return analyze.truth(self.by_name[name], self.by_name)

    def test_atomic_and_free_by_construction(self):
        self.assertEqual(self.truth("add_a"), (1.0, "construction"))
        self.assertEqual(self.truth("fma16"), (0.0, "construction"))

    def test_mixed_is_twin_time_over_case_time(self):
        # U_true(k) = T(atomics-only, k = 0) / T(k): 200 / 400.
        self.assertEqual(self.truth("add_fma64"), (0.5, "ratio"))
        self.assertEqual(self.truth("add_fma0"), (1.0, "ratio"))

    def test_histogram_replay_ratio(self):
        u, kind = self.truth("hist_add_solid_t256")
        self.assertAlmostEqual(u, 0.9)
        self.assertEqual(kind, "ratio")

    def test_cub_solid_lower_bound_and_uniform_unknown(self):
        u, kind = self.truth("cub_solid")
        self.assertAlmostEqual(u, 1.0 - 150.0 / 300.0)
        self.assertEqual(kind, "lower_bound")
        u, kind = self.truth("cub_uniform")
        self.assertTrue(math.isnan(u))
        self.assertEqual(kind, "none")

    def test_missing_twin_time_gives_no_truth(self):
        row = dict(self.by_name["add_fma64"], atomics_only_us="")
        u, kind = analyze.truth(row, self.by_name)
        self.assertTrue(math.isnan(u))
        self.assertEqual(kind, "none")


class TwinTruthTest(unittest.TestCase):
    """The hash table's truth from its LDS/STS twin (analyze.TWIN_TRUTH):
    1 - T(twin) / T(case) per round, a lower bound, from one run's pair."""
    HASH = ("group,name,blocks,threads,time_us,iters,warps_per_sm\n"
            "atomic,hash_cas_t512x1,132,512,400.0,40,16\n")
    TWIN = "free,hash_lds_sts_t512x1,132,512,420.0,60,16\n"

    def rows(self, text):
        return {r["name"]: r for r in analyze.read_table(text, from_text=True)[1]}

    def test_twin_in_the_same_run(self):
        by = self.rows(self.HASH + self.TWIN)
        u, kind = analyze.truth(by["hash_cas_t512x1"], by)
        # 10 us per round against the twin's 7 us.
        self.assertAlmostEqual(u, 0.3)
        self.assertEqual(kind, "lower_bound")

    def test_twin_from_another_run_takes_the_pair_from_there(self):
        by = self.rows(self.HASH)
        other = self.rows("group,name,blocks,threads,time_us,iters,warps_per_sm\n"
                          "atomic,hash_cas_t512x1,132,512,480.0,40,16\n" + self.TWIN)
        u, kind = analyze.truth(by["hash_cas_t512x1"], by, other)
        self.assertAlmostEqual(u, 1.0 - 7.0 / 12.0)
        self.assertEqual(kind, "lower_bound")

    def test_without_the_twin_no_truth(self):
        by = self.rows(self.HASH)
        u, kind = analyze.truth(by["hash_cas_t512x1"], by)
        self.assertTrue(math.isnan(u))
        self.assertEqual(kind, "none")

    def test_join_counts_it_with_the_real_kernels(self):
        by = self.rows(self.HASH + self.TWIN)
        rows = list(by.values())
        joined = analyze.join(rows, rows, [], [])
        self.assertEqual([(j["name"], j["group"], j["truth"]) for j in joined],
                         [("hash_cas_t512x1", "real", "lower_bound"), ("hash_lds_sts_t512x1", "free",
                                                                       "construction")])


class ParseTest(unittest.TestCase):
    def test_numbers_with_separators_and_units(self):
        self.assertEqual(analyze.parse_number("1,347", "cycle"), 1347.0)
        self.assertEqual(analyze.parse_number("2.5", "usecond"), 2500.0)
        self.assertEqual(analyze.parse_number("3", "Kinst"), 3000.0)
        self.assertTrue(math.isnan(analyze.parse_number("n/a")))
        self.assertTrue(math.isnan(analyze.parse_number("")))

    def test_ncu_long_layout(self):
        text = ncu_rows([(0, "void vk_loop<1, 0, 0>(vk_loop_args)",
                          {"smsp__inst_executed_op_shared_atom.sum": "1,000",
                           "sm__cycles_active.sum": "50,000", "gpu__time_duration.sum": "4,000",
                           "some__other_metric.sum": "7"}),
                         (1, "void vk_hist<0, 1, 0>(vk_hist_args)", {"sm__cycles_active.sum": "10"})])
        launches = analyze.read_ncu_long(text, from_text=True)
        self.assertEqual([l["launch_id"] for l in launches], [0, 1])
        self.assertEqual(launches[0]["N_atom"], 1000.0)
        self.assertEqual(launches[0]["cycles_sum"], 50000.0)
        self.assertNotIn("some__other_metric.sum", launches[0])


class ManifestTest(unittest.TestCase):
    def test_program_run_twice_keeps_first_list(self):
        text = TIMES + TIMES  # second copy: '#' lines, header row, same cases again
        _, rows = analyze.read_table(text, from_text=True)
        self.assertEqual(len(rows), 2 * 8 + 1)  # the second header row reads as a row
        first = analyze.first_run_only(rows)
        self.assertEqual([r["name"] for r in first], [r["name"] for r in rows[:8]])


class MappingTest(unittest.TestCase):
    MANIFEST = [
        {"name": "a", "kernel": "vk_loop", "launches": "1"},
        {"name": "cub", "kernel": "DeviceHistogram", "launches": ""},
        {"name": "h", "kernel": "vk_hist", "launches": "1"},
    ]

    def launches(self, names, durations):
        return [{"launch_id": i, "kernel": n, "duration_ns": d} for i, (n, d) in enumerate(zip(names, durations))]

    def test_unknown_count_runs_to_next_case_and_main_is_longest(self):
        ls = self.launches(["vk_loop<1>", "DeviceHistogramInitKernel", "DeviceHistogramSweepKernel", "vk_hist<0>"],
                           [10.0, 1.0, 50.0, 20.0])
        m = analyze.map_launches(self.MANIFEST, ls)
        self.assertEqual(m["a"]["launch_id"], 0)
        self.assertEqual(m["cub"]["launch_id"], 2)
        self.assertEqual(m["h"]["launch_id"], 3)

    def test_out_of_step_profile_is_an_error(self):
        ls = self.launches(["vk_hist<0>", "DeviceHistogramSweepKernel", "vk_loop<1>"], [1.0, 1.0, 1.0])
        with self.assertRaises(analyze.AnalyzeError):
            analyze.map_launches(self.MANIFEST, ls)

    def test_extra_launches_are_an_error(self):
        man = [{"name": "a", "kernel": "vk_loop", "launches": "1"}]
        with self.assertRaises(analyze.AnalyzeError):
            analyze.map_launches(man, self.launches(["vk_loop", "vk_loop"], [1.0, 1.0]))


def joined_row(group, name, u_true, variants, truth="construction", **extra):
    r = {"group": group, "name": name, "U_true": u_true, "truth": truth}
    for v, u in variants.items():
        r["U_" + v] = u
    r.update(extra)
    return r


class ErrorTest(unittest.TestCase):
    ROWS = [
        joined_row("atomic", "a1", 1.0, {"default": 1.00, "paper": 1.50}),
        joined_row("atomic", "a2", 1.0, {"default": 0.96, "paper": 1.20}),
        joined_row("atomic", "a3", 1.0, {"default": 1.10, "paper": 0.90}),
        joined_row("free", "f1", 0.0, {"default": 0.0, "paper": 0.0}),
        joined_row("free", "f2", 0.0, {"default": 0.0, "paper": 1e-9}),
        joined_row("mixed", "m1", 0.5, {"default": 0.52, "paper": 0.9}, truth="ratio"),
        joined_row("mixed", "m2", 0.25, {"default": 0.20, "paper": math.nan}, truth="ratio"),
        joined_row("real", "cub_solid", 0.5, {"default": 0.7, "paper": 0.3}, truth="lower_bound"),
        joined_row("real", "h1", 0.9, {"default": 0.85, "paper": 0.4}, truth="ratio"),
    ]

    def test_group_errors_median_worst_and_above(self):
        s = analyze.group_errors(self.ROWS, "default")
        self.assertEqual(s["atomic"]["n"], 3)
        self.assertAlmostEqual(s["atomic"]["median"], 0.04)
        self.assertAlmostEqual(s["atomic"]["worst"], 0.10)
        self.assertEqual(s["atomic"]["worst_case"], "a3")
        self.assertEqual(s["atomic"]["above"], 1)     # 1.10 > 105%
        self.assertEqual(s["free"]["nonzero"], 0)
        self.assertAlmostEqual(s["mixed"]["median"], 0.035)
        self.assertAlmostEqual(s["mixed"]["worst"], 0.05)
        # The lower-bound truth is not an error sample.
        self.assertEqual(s["real"]["n"], 1)

    def test_free_must_be_exactly_zero_and_missing_u_counted(self):
        s = analyze.group_errors(self.ROWS, "paper")
        self.assertEqual(s["free"]["nonzero"], 1)
        self.assertEqual(s["mixed"]["missing"], 1)
        self.assertEqual(s["mixed"]["n"], 1)
        self.assertEqual(s["atomic"]["above"], 2)

    def test_bars(self):
        res = {name: ok for name, ok, _ in analyze.bars(analyze.group_errors(self.ROWS, "default"))}
        self.assertTrue(res["atomic-bound median |U-1|"])
        self.assertTrue(res["atomic-bound worst |U-1|"])
        self.assertTrue(res["atomic-free U = 0 exactly"])
        self.assertTrue(res["mixed median |U-U_true|"])
        self.assertFalse(res["no kernel above 105%"])
        res = {name: ok for name, ok, _ in analyze.bars(analyze.group_errors(self.ROWS, "paper"))}
        self.assertFalse(res["atomic-bound median |U-1|"])
        self.assertFalse(res["atomic-free U = 0 exactly"])

    def test_above_by_cost(self):
        rows = [joined_row("atomic", "p", 1.0, {"v": 2.5}, e_meas=1.0),
                joined_row("atomic", "c", 1.0, {"v": 1.2}, e_meas=2.0002),  # conflict-free CAS, noise
                joined_row("atomic", "s", 1.0, {"v": 1.1}, e_meas=32.0),
                joined_row("atomic", "ok", 1.0, {"v": 1.05}, e_meas=32.0),
                joined_row("mixed", "m", 0.5, {"v": 3.0}, e_meas=1.0)]
        cheap, serial, us = analyze.above_by_cost(rows, "v")
        self.assertEqual((cheap, serial), (2, 1))   # 1.05 is not above 105%; mixed not counted
        self.assertEqual(sorted(us), [1.1, 1.2, 2.5])

    def test_loop_classes(self):
        rows = [joined_row("atomic", "a", 1.0, {}, e_meas=32.0, warps_per_sm=1.0, chain=0.0),
                joined_row("atomic", "b", 1.0, {}, e_meas=32.0, warps_per_sm=4.0, chain=0.0),
                joined_row("atomic", "c", 1.0, {}, e_meas=1.0, warps_per_sm=8.0, chain=0.0),
                joined_row("atomic", "d", 1.0, {}, e_meas=2.0001, warps_per_sm=16.0, chain=0.0),
                joined_row("atomic", "e", 1.0, {}, e_meas=1.0, warps_per_sm=64.0, chain=1.0)]
        got = [[r["name"] for r in rows if sel(r)] for _, sel in analyze.loop_classes()]
        self.assertEqual(got, [["a"], ["b"], ["c"], ["d"], ["e"]])

    def test_verdicts_of_real_kernels(self):
        agree, total, bad = analyze.verdict_agreement(self.ROWS, "default")
        self.assertEqual((agree, total), (2, 2))
        agree, total, bad = analyze.verdict_agreement(self.ROWS, "paper")
        self.assertEqual((agree, total), (0, 2))
        self.assertEqual(len(bad), 2)

    def test_report_and_svg(self):
        md = analyze.markdown_report(self.ROWS, "test data")
        self.assertIn("| default |", md)
        self.assertIn("| paper |", md)
        self.assertLess(md.index("| paper |"), md.index("| default |"))
        svg = analyze.svg_scatter(self.ROWS)
        root = ET.fromstring(svg)
        circles = [e for e in root.iter() if e.tag.endswith("circle")]
        # 9 points with truth and U for default, 8 for paper (one NaN), + 4 legend dots.
        self.assertEqual(len(circles), 9 + 8 + 4)

    def test_identical_variants_share_a_panel(self):
        rows = [dict(r, U_wavefront=r["U_default"]) for r in self.ROWS]
        panels = analyze.scatter_panels(rows, ["paper", "wavefront", "default"])
        self.assertEqual(panels, [("paper", "paper"), ("default = wavefront", "wavefront")])
        root = ET.fromstring(analyze.svg_scatter(rows, ["paper", "wavefront", "default"]))
        circles = [e for e in root.iter() if e.tag.endswith("circle")]
        self.assertEqual(len(circles), 9 + 8 + 4)
        rows[0]["U_wavefront"] = 0.5
        self.assertEqual(len(analyze.scatter_panels(rows, ["wavefront", "default"])), 2)


class LittleTest(unittest.TestCase):
    def test_little_and_measured_n(self):
        rec = {"N_atom": 100.0, "O_wavefronts": 3200.0, "cycles_sum": 1000.0, "shared_pending": 8000.0,
               "shared_inst": 200.0, "shared_latency": 40.0, "occupancy_pct": 50.0}
        d = analyze.derived(rec, 64)
        self.assertAlmostEqual(d["e_meas"], 32.0)
        self.assertAlmostEqual(d["n_hat"], 32.0)
        self.assertAlmostEqual(d["little_L"], 8.0)
        self.assertAlmostEqual(d["little_pred"], 200.0 / 1000.0 * 40.0)
        self.assertAlmostEqual(d["little_ratio"], 1.0)
        self.assertAlmostEqual(d["n_meas_atom"], 4.0)  # half the LSU shared instructions are atomics
        # 3200 wavefronts in 1000 SM-cycles.
        self.assertAlmostEqual(d["wavefronts_per_cycle"], 3.2)
        self.assertAlmostEqual(d["cycles_per_wavefront"], 1000.0 / 3200.0)
        # Not a U_ column: the report compares gpuq's variants only.
        self.assertFalse(any(k.startswith("U_") for k in d))

    def test_wavefront_rate_is_exactly_zero_without_atomics(self):
        d = analyze.derived({"O_wavefronts": 0.0, "cycles_sum": 5e6, "N_atom": 0.0}, 64)
        self.assertEqual(d["wavefronts_per_cycle"], 0.0)

    def test_conflict_degree_and_findings(self):
        self.assertEqual(analyze.conflict_degree({"pattern": "same_address", "e": "16"}), 16.0)
        self.assertEqual(analyze.conflict_degree({"pattern": "bank4", "e": "32"}), 4.0)
        self.assertEqual(analyze.conflict_degree({"pattern": "conflict_free", "e": "32"}), 1.0)
        rows = [{"group": "atomic", "name": "cas", "op": "cas", "pattern": "same_address", "e": 32.0,
                 "e_meas": 64.0, "warps_per_sm": 32.0, "chain": 0.0, "cycles_per_wavefront": 1.0,
                 "n_hat": 32.0, "n_meas_atom": 50.0}]
        text = "\n".join(analyze.counter_findings(rows))
        self.assertIn("| cas | 1 | 2.000 | 2.000 | 2.000 |", text)
        self.assertIn("| atomic, independent atomics | 1 | 0.640 |", text)

    def test_missing_counters_give_nan(self):
        d = analyze.derived({}, 64)
        self.assertTrue(all(math.isnan(v) for v in d.values()))


class JoinTest(unittest.TestCase):
    def test_join_end_to_end(self):
        with tempfile.TemporaryDirectory() as tmp:
            times = os.path.join(tmp, "times.csv")
            with open(times, "w") as f:
                f.write(TIMES)
            _, rows = analyze.read_table(times)
            manifest = [r for r in rows if r["name"] in ("add_a", "add_fma64")]
            launches = [{"launch_id": 0, "kernel": "void vk_loop<1, 0, 0>", "N_atom": 105600.0,
                         "duration_ns": 1.0},
                        {"launch_id": 1, "kernel": "void vk_loop<1, 0, 1>", "N_atom": 105600.0,
                         "duration_ns": 1.0}]
            model = {0: {"launch_id": "0", "kernel": "vk_loop<1,0,0>", "U": "0.98", "B": "98", "T": "100"},
                     1: {"launch_id": "1", "kernel": "vk_loop<1,0,1>", "U": "0.60"}}
            joined = analyze.join(rows, manifest, launches, [("default", model)])
            self.assertEqual([j["name"] for j in joined], ["add_a", "add_fma64"])
            self.assertEqual(joined[0]["U_default"], 0.98)
            self.assertEqual(joined[1]["U_true"], 0.5)
            out = os.path.join(tmp, "joined.csv")
            analyze.write_csv(out, joined)
            header, back = analyze.read_joined(out)
            self.assertIn("U_default", header)
            self.assertEqual(analyze.sort_variants(analyze.variant_names(header)), ["default"])
            self.assertEqual(back[1]["U_true"], 0.5)
            checks = analyze.counter_checks(back)
            self.assertEqual(checks[0][1], 2)
            self.assertEqual(checks[0][2], 0.0)

    def test_model_rows_out_of_step_are_an_error(self):
        _, rows = analyze.read_table(TIMES, from_text=True)
        manifest = [r for r in rows if r["name"] == "hist_add_solid_t256"]
        launches = [{"launch_id": 0, "kernel": "vk_hist<0,1,0>", "duration_ns": 1.0}]
        model = {0: {"launch_id": "0", "kernel": "vk_loop<1,0,0>", "U": "0.5"}}
        with self.assertRaises(analyze.AnalyzeError):
            analyze.join(rows, manifest, launches, [("default", model)])


class SplitTest(unittest.TestCase):
    def test_case_split_by_construction(self):
        self.assertEqual(analyze.case_split({"op": "add"}, 100.0, 0.0), (100.0, 0.0, 0.0, 0.0))
        self.assertEqual(analyze.case_split({"op": "cas"}, 100.0, 100.0), (0.0, 100.0, 0.0, 0.0))
        self.assertEqual(analyze.case_split({"op": "popc_inc"}, 64.0, 0.0), (0.0, 0.0, 64.0, 0.0))
        # ADD+CAS: the hardware counts the CAS; the rest is ADD.
        self.assertEqual(analyze.case_split({"op": "add+cas"}, 100.0, 25.0), (75.0, 25.0, 0.0, 0.0))
        # POPC.INC+ADD: 8 of the 32 warps of a 1024-thread block issue ADD.
        self.assertEqual(analyze.case_split({"op": "popc_inc+add", "threads": "1024", "alt_warps": "8"},
                                            3200.0, 0.0), (800.0, 0.0, 2400.0, 0.0))
        # CUB: both opcodes in unknown shares; no atomics counted: no split.
        self.assertIsNone(analyze.case_split({"op": "cub_internal"}, 100.0, 0.0))
        self.assertIsNone(analyze.case_split({"op": "add"}, math.nan, 0.0))
        self.assertIsNone(analyze.case_split({"op": "popc_inc+add", "threads": "64", "alt_warps": "3"},
                                             10.0, 0.0))

    def test_counters_file_round_trip(self):
        _, rows = analyze.read_table(TIMES, from_text=True)
        manifest = [r for r in rows if r["name"] in ("add_a", "cub_solid")]
        model = {}
        for lid, kernel in enumerate(["void vk_loop<1, 0, 0>", "DeviceHistogramInitKernel",
                                      "DeviceHistogramSweepKernel"]):
            model[lid] = {c: "" for c in analyze.COUNTERS_COLUMNS}
            model[lid].update({"launch_id": str(lid), "kernel": kernel, "N_atom_sass": "3200",
                               "N_atom": "3200", "N_cas": "0", "duration_ns": str(10 + lid),
                               "split_valid": "0"})
        out, with_split = analyze.counters_with_split(model, rows, manifest)
        self.assertEqual(with_split, 1)
        self.assertEqual([r["split_valid"] for r in out], ["1", "0", "0"])
        self.assertEqual(float(out[0]["split_add"]), 3200.0)
        self.assertEqual(float(out[0]["split_popc_inc"]), 0.0)
        self.assertEqual(out[1]["split_add"], "")
        self.assertEqual(list(out[0].keys()), list(analyze.COUNTERS_COLUMNS))
        with tempfile.TemporaryDirectory() as tmp:
            times = os.path.join(tmp, "times.csv")
            with open(times, "w") as f:
                f.write(TIMES)
            self.assertEqual(analyze.header_value(times, "device"), "test")
            self.assertEqual(analyze.header_value(times, "sm_count"), "")


class DocTest(unittest.TestCase):
    def test_update_keeps_prose(self):
        doc = "# Title\nprose before\n%s\nold table\n%s\nprose after\n" % (analyze.DOC_BEGIN, analyze.DOC_END)
        new = analyze.update_doc(doc, "new table\n")
        self.assertIn("prose before", new)
        self.assertIn("prose after", new)
        self.assertIn("new table", new)
        self.assertNotIn("old table", new)
        with self.assertRaises(analyze.AnalyzeError):
            analyze.update_doc("no markers", "x")


def counters_text(rows):
    """A gpuq counters file (docs/counters-format.md) with the given rows:
    dicts over analyze.COUNTERS_COLUMNS, missing cells empty."""
    lines = ["# gpuq counters v1", "# device_name: test", ",".join(analyze.COUNTERS_COLUMNS)]
    for r in rows:
        lines.append(",".join('"%s"' % r.get(c, "") if c == "kernel" else str(r.get(c, ""))
                              for c in analyze.COUNTERS_COLUMNS))
    return "\n".join(lines) + "\n"


# Three cases: an ADD loop, an atomic-free loop and CUB (two launches, the
# sweep kernel the main one).  gpuq's run reads the same N and split as
# the construction, O 1% apart on the loop, cycles 2% apart, occupancy
# equal, pending 0 against ncu's 0 on the free loop but 5 on CUB's init
# kernel (not a main kernel, so not compared).
COLLECTOR_TIMES = """# gpuq validation cases v1
group,name,threads,op,pattern,e,k,time_us,time_min_us,time_max_us,atomics_only_us,alt_warps,launches,kernel
atomic,add_a,256,add,same_address,32,0,400.0,398.0,402.0,,0,1,vk_loop
free,fma16,256,none,none,32,16,300.0,297.0,306.0,,0,1,vk_loop
real,cub_solid,0,cub_internal,solid,32,0,300.0,300.0,300.0,,0,,DeviceHistogram
"""

COLLECTOR_NCU = [
    (0, "void vk_loop<1, 0, 0>(vk_loop_args)",
     {"smsp__inst_executed_op_shared_atom.sum": "1,000", "smsp__inst_executed_op_shared_atom_dot_cas.sum": "0",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum": "32,000", "sm__cycles_active.sum": "50,000",
      "sm__warps_active.avg.pct_of_peak_sustained_active": "12.5",
      "sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum": "400", "gpu__time_duration.sum": "10"}),
    (1, "void vk_loop<0, 0, 1, 16>(vk_loop_args)",
     {"smsp__inst_executed_op_shared_atom.sum": "0", "smsp__inst_executed_op_shared_atom_dot_cas.sum": "0",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum": "0", "sm__cycles_active.sum": "20,000",
      "sm__warps_active.avg.pct_of_peak_sustained_active": "12.5",
      "sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum": "0", "gpu__time_duration.sum": "10"}),
    (2, "DeviceHistogramInitKernel", {"gpu__time_duration.sum": "1"}),
    (3, "DeviceHistogramSweepKernel",
     {"smsp__inst_executed_op_shared_atom.sum": "400", "smsp__inst_executed_op_shared_atom_dot_cas.sum": "0",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum": "800", "sm__cycles_active.sum": "9,000",
      "sm__warps_active.avg.pct_of_peak_sustained_active": "50",
      "sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum": "100", "gpu__time_duration.sum": "30"}),
]

COLLECTOR_GPUQ = [
    {"launch_id": 0, "kernel": "void vk_loop<1, 0, 0>(vk_loop_args)", "N_atom": 1000, "N_cas": 0,
     "O_wavefronts": 32320, "cycles_sum": 51000, "occupancy_pct": 12.5, "shared_pending": 400,
     "duration_ns": 10, "split_valid": 1, "split_add": 1000, "split_cas": 0, "split_popc_inc": 0,
     "split_other": 0},
    {"launch_id": 1, "kernel": "void vk_loop<0, 0, 1, 16>(vk_loop_args)", "N_atom": 0, "N_cas": 0,
     "O_wavefronts": 0, "cycles_sum": 20400, "occupancy_pct": 12.5, "shared_pending": 0, "duration_ns": 10,
     "split_valid": 1, "split_add": 0, "split_cas": 0, "split_popc_inc": 0, "split_other": 0},
    {"launch_id": 2, "kernel": "DeviceHistogramInitKernel", "shared_pending": 5, "duration_ns": 1,
     "split_valid": 0},
    {"launch_id": 3, "kernel": "DeviceHistogramSweepKernel", "N_atom": 400, "N_cas": 0, "O_wavefronts": 800,
     "cycles_sum": 9000, "occupancy_pct": 50, "shared_pending": 100, "duration_ns": 30, "split_valid": 1,
     "split_add": 300, "split_cas": 0, "split_popc_inc": 100, "split_other": 0},
]


def model_text(rows):
    """gpuq model --format csv, the columns collectors reads."""
    return "launch_id,kernel,U\n" + "".join('%d,"%s",%s\n' % r for r in rows)


class CollectorsTest(unittest.TestCase):
    def write_dir(self, tmp, gpuq_rows=None):
        files = {"times.csv": COLLECTOR_TIMES, "manifest.csv": COLLECTOR_TIMES,
                 "ncu.csv": ncu_rows(COLLECTOR_NCU), "counters.csv": counters_text(gpuq_rows or COLLECTOR_GPUQ)}
        for name, text in files.items():
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)

    def test_relative_difference(self):
        self.assertEqual(analyze.relative_difference(0.0, 0.0), 0.0)
        self.assertEqual(analyze.relative_difference(5.0, 5.0), 0.0)
        self.assertAlmostEqual(analyze.relative_difference(101.0, 100.0), 0.01)
        self.assertAlmostEqual(analyze.relative_difference(99.0, 100.0), 0.01)
        self.assertTrue(math.isinf(analyze.relative_difference(1.0, 0.0)))
        self.assertTrue(math.isnan(analyze.relative_difference(math.nan, 1.0)))

    def test_statistics_per_quantity_and_split(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.write_dir(tmp)
            _, times = analyze.read_table(os.path.join(tmp, "times.csv"))
            pairs = analyze.collector_pairs(times, times, analyze.read_ncu_long(os.path.join(tmp, "ncu.csv")),
                                            analyze.read_model_csv(os.path.join(tmp, "counters.csv")))
        self.assertEqual([p["ncu"]["launch_id"] for p in pairs], [0, 1, 3])
        self.assertEqual([p["gpuq"]["launch_id"] for p in pairs], [0, 1, 3])
        stats = analyze.compare_collectors(pairs)
        q = {col: rest for _, col, *rest in stats["quantities"]}
        # (cases, identical, median, worst, worst case, not collected, nonzero where ncu reads 0)
        self.assertEqual(q["N_atom"][:4], [3, 3, 0.0, 0.0])
        self.assertEqual(q["N_atom"][4], "")
        n, same, med, worst, case, _, _ = q["O_wavefronts"]
        self.assertEqual((n, same), (3, 2))
        self.assertAlmostEqual(worst, 0.01)
        self.assertEqual(case, "atomic/add_a")
        n, same, med, worst, case, _, _ = q["cycles_sum"]
        self.assertEqual(same, 1)
        self.assertAlmostEqual(med, 0.02)
        self.assertAlmostEqual(worst, 0.02)
        self.assertEqual(q["occupancy_pct"][1], 3)
        self.assertEqual(q["shared_pending"][:2], [3, 3])
        # N_atom_sass: not in either file, so no case compares it.
        self.assertEqual(q["N_atom_sass"][0], 0)
        sp = stats["split"]
        # add_a: ADD = N by construction; fma16: no atomics, all zero.
        self.assertEqual((sp["both"], sp["identical"]), (2, 2))
        self.assertEqual(sp["gpuq_only"], [("cub_solid", (300.0, 0.0, 100.0, 0.0))])
        self.assertEqual(sp["differ"], [])
        self.assertEqual(sp["sum_off"], [])
        self.assertIsNone(stats["u"])

    def test_missing_spurious_and_wrong_split(self):
        rows = [dict(r) for r in COLLECTOR_GPUQ]
        rows[0]["split_add"], rows[0]["split_popc_inc"] = 900, 100   # not what the loop issues
        rows[1]["shared_pending"] = 7                                 # ncu reads 0
        rows[0]["occupancy_pct"] = ""                                 # not collected
        rows[3]["split_add"] = 200                                    # 300 in all, N is 400
        with tempfile.TemporaryDirectory() as tmp:
            self.write_dir(tmp, rows)
            _, times = analyze.read_table(os.path.join(tmp, "times.csv"))
            pairs = analyze.collector_pairs(times, times, analyze.read_ncu_long(os.path.join(tmp, "ncu.csv")),
                                            analyze.read_model_csv(os.path.join(tmp, "counters.csv")))
        stats = analyze.compare_collectors(pairs)
        q = {col: rest for _, col, *rest in stats["quantities"]}
        self.assertEqual(q["shared_pending"][0], 2)
        self.assertEqual(q["shared_pending"][6], 1)
        self.assertEqual(q["occupancy_pct"][0], 2)
        self.assertEqual(q["occupancy_pct"][5], 1)
        sp = stats["split"]
        self.assertEqual(sp["identical"], 1)
        self.assertEqual(sp["differ"][0][0], "add_a")
        self.assertEqual(sp["differ"][0][2], (1000.0, 0.0, 0.0, 0.0))
        self.assertEqual(sp["sum_off"], ["cub_solid"])
        md = analyze.collectors_markdown(pairs, stats, analyze.timing_spread(analyze.read_table(
            COLLECTOR_TIMES, from_text=True)[1]))
        self.assertIn("1 not collected by gpuq", md)
        self.assertIn("1 nonzero where ncu reads 0", md)
        self.assertIn("- differs: `add_a`: gpuq ADD 900, CAS 0, POPC.INC 100", md)

    def test_timing_spread(self):
        _, times = analyze.read_table(COLLECTOR_TIMES, from_text=True)
        n, med, worst = analyze.timing_spread(times)
        self.assertEqual(n, 3)
        self.assertAlmostEqual(med, 0.01)   # 4 / 400
        self.assertAlmostEqual(worst, 0.03)  # 9 / 300

    def test_command_end_to_end_with_u_and_doc(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.write_dir(tmp)
            u_ncu = os.path.join(tmp, "u_ncu.csv")
            u_gpuq = os.path.join(tmp, "u_gpuq.csv")
            with open(u_ncu, "w") as f:
                f.write(model_text([(0, "vk_loop<1, 0, 0>", "0.98"), (1, "vk_loop<0, 0, 1, 16>", "0"),
                                    (2, "DeviceHistogramInitKernel", "0"),
                                    (3, "DeviceHistogramSweepKernel", "0.5")]))
            with open(u_gpuq, "w") as f:
                f.write(model_text([(0, "vk_loop<1, 0, 0>", "0.96"), (1, "vk_loop<0, 0, 1, 16>", "0"),
                                    (2, "DeviceHistogramInitKernel", "0"),
                                    (3, "DeviceHistogramSweepKernel", "0.5")]))
            doc = os.path.join(tmp, "doc.md")
            with open(doc, "w") as f:
                f.write("prose\n%s\nold\n%s\nmore prose\n" % (analyze.COLLECTORS_BEGIN, analyze.COLLECTORS_END))
            out_csv = os.path.join(tmp, "per_case.csv")
            rc = analyze.main(["collectors", tmp, "--u-ncu", u_ncu, "--u-gpuq", u_gpuq, "--doc", doc,
                               "--csv", out_csv, "--source", "test run"])
            self.assertEqual(rc, 0)
            with open(doc) as f:
                text = f.read()
            self.assertIn("prose", text)
            self.assertIn("more prose", text)
            self.assertNotIn("\nold\n", text)
            self.assertIn("Data: test run", text)
            self.assertIn("| N | `N_atom` | 3 | 3 | 0 | 0 | - |", text)
            self.assertIn("| O | `O_wavefronts` | 3 | 2 | 0 | 1% | `atomic/add_a` |", text)
            self.assertIn("identical in 2 of 2 cases", text)
            self.assertIn("median 0, worst 0.02 (`add_a`), over 3 cases (2 identical)", text)
            header, rows = analyze.read_table(out_csv)
            self.assertIn("O_wavefronts_rel", header)
            self.assertEqual(rows[0]["O_wavefronts_gpuq"], "32320")  # counts written exactly
            self.assertEqual(rows[0]["U_gpuq"], "0.96")
            # The U files go one per folder.
            self.assertEqual(analyze.main(["collectors", tmp, "--u-ncu", u_ncu]), 2)

    def test_out_of_step_counters_are_an_error(self):
        rows = [dict(r) for r in COLLECTOR_GPUQ]
        rows[1]["kernel"] = "vk_hist<0, 1, 0>"
        with tempfile.TemporaryDirectory() as tmp:
            self.write_dir(tmp, rows)
            self.assertEqual(analyze.main(["collectors", tmp, "--md", os.path.join(tmp, "c.md")]), 2)


SASS = """
	code for sm_90
		Function : _Z7vk_loopILi2ELi0ELi0ELi0EEv12vk_loop_args
        /*0190*/                   ATOMS.POPC.INC.32 RZ, [R4+URZ] ;           /* 0x0000000004ff7f8c */
        /*01b0*/              @P0  ATOMS.POPC.INC.32 RZ, [R4+URZ] ;           /* 0x0000000004ff7f8c */
		Function : _Z7vk_loopILi1ELi0ELi0ELi0EEv12vk_loop_args
        /*01f0*/                   ATOMS.ADD R6, [R0], R11 ;                  /* 0x0000000b0006738c */
        /*0200*/                   ATOMS.POPC.INC.32 RZ, [R0+URZ] ;           /* 0x0000000004ff7f8c */
		Function : _Z7vk_loopILi0ELi0ELi3ELi4EEv12vk_loop_args
        /*0100*/                   LDS R2, [R3] ;                             /* 0x0000000000027984 */
        /*0110*/                   STS [R3], R2 ;                             /* 0x0000000000027984 */
		Function : _Z7vk_histILi0ELi1ELi0EEv12vk_hist_args
        /*0100*/                   ATOMS.ADD R5, [UR4], R2 ;                  /* 0x0000000000027984 */
        /*0110*/                   RED.E.ADD.STRONG.GPU [R2.64], R5 ;         /* 0x0000000000027984 */
"""


class SassTest(unittest.TestCase):
    def test_opcodes_and_verdicts(self):
        self.assertEqual(check_sass.opcode("@P0 ATOMS.POPC.INC.32 RZ, [R4+URZ]"), "ATOMS.POPC.INC")
        self.assertEqual(check_sass.opcode("ATOMS.CAS R7, [R3], R6, R7"), "ATOMS.CAS")
        funcs = check_sass.parse_sass(SASS)
        self.assertEqual(len(funcs), 4)
        results = {m: check_sass.check_function(m, i) for m, i in funcs.items()}
        popc = results["_Z7vk_loopILi2ELi0ELi0ELi0EEv12vk_loop_args"]
        self.assertEqual(popc[2], [])
        self.assertEqual(popc[1]["ATOMS.POPC.INC"], 2)
        add = results["_Z7vk_loopILi1ELi0ELi0ELi0EEv12vk_loop_args"]
        self.assertEqual(len(add[2]), 1)  # a POPC.INC where only ADD belongs
        lds = results["_Z7vk_loopILi0ELi0ELi3ELi4EEv12vk_loop_args"]
        self.assertEqual(lds[2], [])
        self.assertIn("k=4", lds[0])

        hist = results["_Z7vk_histILi0ELi1ELi0EEv12vk_hist_args"]
        self.assertTrue(any("uniform-register" in p for p in hist[2]))

    def test_unrolled_work_is_counted(self):
        fma = "_Z7vk_loopILi1ELi0ELi1ELi4EEv12vk_loop_args"
        insts = ["ATOMS.ADD R6, [R0], R11"] + ["FFMA R9, R9, UR4, R16"] * 3
        self.assertTrue(any("FFMA" in p for p in check_sass.check_function(fma, insts)[2]))
        insts.append("FFMA R9, R9, UR4, R16")
        self.assertEqual(check_sass.check_function(fma, insts)[2], [])


if __name__ == "__main__":
    unittest.main()
