"""scripts/diag_tgb_reliability.py on hand-made sched files: rounds that
agree give r = 1 everywhere; a point whose tail lands two ways from round to
round lowers the split and the ceiling; the shipped files give the rows
docs/diag.md quotes."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SCRIPT = os.path.join(ROOT, "scripts", "diag_tgb_reliability.py")


def sched(path, flip=False):
    """8 points of one kernel, 9 rounds; T(2n) = 2 T(n) = 2 (G b) ms; with
    flip, G = 594 takes 1.5x in the odd rounds."""
    with open(path, "w") as f:
        f.write("# gpuq machine data v1\nkind,name,x,y,z,value,doc,extra,note\n")
        for g in (1, 66, 132, 264, 396, 594, 792, 1188):
            for b in (1, 2):
                for r in range(9):
                    t = g * b * (1.5 if flip and g == 594 and r % 2 else 1.0) * (1 + 0.001 * r)
                    f.write("tgbr,k,%d,%d,%d,%r,,%r,\n" % (g, b, r, 2 * t, t))


def run(path):
    p = subprocess.run([sys.executable, SCRIPT, path, "--draws", "50"], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def row(out, kernel):
    for line in out.splitlines():
        if line.split() and line.split()[0] == kernel:
            return [float(x) for x in line.split()[1:]]
    raise AssertionError("no row for %s in:\n%s" % (kernel, out))


class Reliability(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="tgb_rel.")

    def test_agreeing_rounds_reproduce(self):
        sched(os.path.join(self.d, "s.csv"))
        rc, out = run(os.path.join(self.d, "s.csv"))
        self.assertEqual(rc, 0, out)
        points, rounds, split, half_med, half_min, redraw, ceiling = row(out, "k")
        self.assertEqual((points, rounds), (15, 9))  # G = 1, b = 1 is the scale
        for v in (split, half_med, half_min, redraw, ceiling):
            self.assertGreaterEqual(v, 0.99999)

    def test_a_flipping_tail_lowers_them(self):
        sched(os.path.join(self.d, "s.csv"), flip=True)
        rc, out = run(os.path.join(self.d, "s.csv"))
        self.assertEqual(rc, 0, out)
        _, _, split, _, half_min, redraw, ceiling = row(out, "k")
        self.assertLess(split, 0.99)      # even rounds fast, odd rounds slow at G = 594
        self.assertLess(half_min, 0.999)
        self.assertLess(redraw, 1.0)
        self.assertAlmostEqual(ceiling, redraw ** 0.5, places=4)

    def test_no_rounds_is_an_error(self):
        p = os.path.join(self.d, "empty.csv")
        with open(p, "w") as f:
            f.write("kind,name\n")
        rc, out = run(p)
        self.assertNotEqual(rc, 0)
        self.assertIn("no tgbr rows", out)

    def test_shipped_h200_rows(self):
        rc, out = run(os.path.join(ROOT, "tables", "nvidia-h200", "sched.csv"))
        self.assertEqual(rc, 0, out)
        lds, ldg = row(out, "lds"), row(out, "ldg")
        self.assertAlmostEqual(lds[2], 0.99867, places=5)  # split: deterministic
        self.assertAlmostEqual(ldg[2], 0.99278, places=5)


if __name__ == "__main__":
    unittest.main()
