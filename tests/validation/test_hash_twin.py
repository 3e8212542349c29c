#!/usr/bin/env python3
"""Unit tests of validation/hash_twin.py (no GPU): per-round times and
probes of the two hash cases by hand, stall shares, the ratio row, and a
run without the twin refused."""
import csv
import io
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "validation"))

import hash_twin  # noqa: E402

TIMES = ("# device: test\n"
         "group,name,blocks,threads,iters,reps,time_us,time_min_us,time_max_us,no_probe_us,warps_per_sm\n"
         "atomic,hash_cas_t512x1,2,512,40,7,400,390,410,60,16\n"
         "free,hash_lds_sts_t512x1,2,512,80,7,600,590,610,100,16\n")
# 2 blocks x 16 warps = 32 warps; CAS: 32 x 40 rounds x 45 probes = 57600
# shared reads; LDS/STS: 32 x 80 x 30 = 76800.  W_active 1000 (sum).
JOINED = ("group,name,N_atom,shared_inst,warps_active,stall_wait,stall_barrier,occupancy_pct,cycles_sum,"
          "stall_short_scoreboard,stall_mio_throttle,stall_selected,U_default\n"
          "atomic,hash_cas_t512x1,57000,57600,1000,270,160,25,62.5,90,0,100,0.2\n"
          "free,hash_lds_sts_t512x1,0,76800,1000,100,50,25,62.5,800,0,200,0\n")


class HashTwinTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        with open(os.path.join(self.dir, "times.csv"), "w") as f:
            f.write(TIMES)
        with open(os.path.join(self.dir, "joined.csv"), "w") as f:
            f.write(JOINED)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_rows_by_hand(self):
        cas, lds = hash_twin.rows_of(self.dir)
        self.assertAlmostEqual(cas["us_per_round"], 10.0)
        self.assertAlmostEqual(lds["us_per_round"], 7.5)
        self.assertAlmostEqual(cas["no_probe_us_per_round"], 1.5)
        self.assertAlmostEqual(lds["no_probe_us_per_round"], 1.25)
        self.assertAlmostEqual(cas["us_per_probe"], 10.0 / 45.0)
        self.assertAlmostEqual(cas["probes_per_round"], 45.0)
        self.assertAlmostEqual(lds["probes_per_round"], 30.0)
        self.assertAlmostEqual(cas["stall_wait"], 0.27)
        self.assertAlmostEqual(lds["stall_short_scoreboard"], 0.8)
        self.assertEqual(lds["L"], 0.0)  # no atomics
        # W = 25 / 100 x 64 x 62.5 = 1000: 90 / 1000 x 57000 / 57600 + (270 + 100) / 1000 x 1
        self.assertAlmostEqual(cas["L"], 0.09 * 57000 / 57600 + 0.37)
        r = hash_twin.ratio_row([cas, lds])
        self.assertAlmostEqual(r["us_per_round"], 0.75)
        self.assertAlmostEqual(r["probes_per_round"], 30.0 / 45.0)
        self.assertAlmostEqual(r["us_per_probe"], (7.5 / 30.0) / (10.0 / 45.0))
        # The atomics' share of the CAS case's 10 us per round: 1 - 7.5 / 10;
        # per probe, 45 probes at 0.25 us = 11.25 us; less the fixed parts,
        # 1.5 + 45 x (7.5 - 1.25) / 30 = 10.875 us.
        self.assertAlmostEqual(r["share_per_round"], 0.25)
        self.assertAlmostEqual(r["share_per_probe"], 1.0 - 11.25 / 10.0)
        self.assertAlmostEqual(r["share_per_probe_fixed"], 1.0 - 10.875 / 10.0)

    def test_csv(self):
        text = hash_twin.to_csv(hash_twin.rows_of(self.dir))
        rows = list(csv.DictReader(io.StringIO(text)))
        self.assertEqual([r["name"] for r in rows], ["hash_cas_t512x1", "hash_lds_sts_t512x1", "lds_sts/cas"])
        self.assertEqual(rows[2]["us_per_round"], "0.75")
        self.assertIn("stall_barrier", rows[0])

    def test_run_without_the_twin_refused(self):
        with open(os.path.join(self.dir, "times.csv"), "w") as f:
            f.write("\n".join(TIMES.splitlines()[:3]) + "\n")
        with self.assertRaises(hash_twin.A.AnalyzeError):
            hash_twin.rows_of(self.dir)
        self.assertEqual(hash_twin.main([self.dir]), 2)


class ProbeSimTest(unittest.TestCase):
    """validation/hash_probe_sim.py on one round: CAS inserts lose no key,
    plain stores do; a warp that finishes each key on every lane first
    probes more often than one whose lanes run on."""

    def test_one_round(self):
        import hash_probe_sim as sim
        rng = sim.random.Random(1)
        cas_key, cas_lost = sim.one_round(0, True, False, rng)
        cas_free, _ = sim.one_round(0, True, True, rng)
        lds_key, lds_lost = sim.one_round(0, False, False, rng)
        self.assertEqual(cas_lost, 0)
        self.assertGreater(lds_lost, 0)
        # At least one probe per key and warp (16 warps x 16 keys).
        self.assertGreaterEqual(cas_free, 16 * 16)
        self.assertGreater(cas_key, cas_free)
        self.assertLessEqual(lds_key, cas_key)


if __name__ == "__main__":
    unittest.main()
