#!/usr/bin/env python3
"""The HTML report in a real browser (headless Chromium): every recorded
report of data/recorded/ and a two-process one load with no script error,
show the kernels ranked as the CSV report ranks them and one kernel's
detail with every section, and reorder when sorted or filtered through the
URL fragment; kernel names made of markup and script show as text and
inject nothing.  Saves a screenshot of the all-sections recording.

    browser_check.py GPUQ SRCDIR WORKDIR

Exits 77 (skipped) without a Chromium; CI installs Debian's `chromium`."""
import csv
import glob
import html.parser
import io
import os
import shutil
import subprocess
import sys

GPUQ, SRC, WORK = sys.argv[1:4]
BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
if not BROWSER:
    print("skipped: no chromium found (apt-get install chromium): the HTML report is not "
          "checked in a browser")
    sys.exit(77)
os.makedirs(WORK, exist_ok=True)
LIMIT_S = 30  # one page load takes 1-3 s on a loaded 2-core machine
ENV = dict(os.environ, GPUQ_TABLE_DIR=os.path.join(SRC, "tables"))
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def gpuq(*args):
    p = subprocess.run([GPUQ, *args], env=ENV, cwd=SRC, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("FAIL: gpuq %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def chromium(page, fragment="", screenshot=None):
    """The page's DOM once its scripts ran (or the screenshot)."""
    argv = ["timeout", str(LIMIT_S), BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
            "--hide-scrollbars", "--no-first-run", "--user-data-dir=" + os.path.join(WORK, "profile")]
    url = "file://" + os.path.abspath(page) + fragment
    if screenshot:
        argv += ["--window-size=1400,1150", "--screenshot=" + screenshot, url]
    else:
        argv += ["--dump-dom", url]
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode == 124:
        # an alert() of injected script holds a headless page open
        raise SystemExit("FAIL: %s did not finish %s within %d s (a dialog from injected script?)"
                         % (BROWSER, url, LIMIT_S))
    if p.returncode != 0:
        raise SystemExit("FAIL: %s exited %d on %s: %s" % (BROWSER, p.returncode, url, p.stderr[-2000:]))
    return p.stdout


class Dom(html.parser.HTMLParser):
    """What the checks read: <html>'s attributes, the ranked table's rows
    (their kernel cell), detail rows, elements by tag, sort headers."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root, self.rows, self.details, self.tags = {}, [], [], {}
        self.sections, self.sorted_by, self.options, self.errors = [], None, [], 0
        self.knames = []  # the full names in the details, as text
        self.handlers = 0
        self._cell, self._in_k, self._stack, self._kname = None, False, [], None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        # event handlers as attributes: the page sets none (it listens from
        # its script), so any is injected
        self.handlers += sum(1 for k, _ in attrs if k.startswith("on"))
        if tag == "html":
            self.root = a
        if a.get("id") == "gpuq-error":
            self.errors += 1
        if tag == "tr":
            cls = (a.get("class") or "").split()
            self._in_k = "k" in cls
            if "k" in cls:
                self.rows.append({"rank": a.get("data-rank"), "name": None})
            if "detail" in cls:
                self.details.append(a.get("data-detail"))
        if tag == "td" and self._in_k and "name" in (a.get("class") or "").split():
            self._cell = []
            self.rows[-1]["title"] = a.get("title")
        if tag == "p" and "kname" in (a.get("class") or "").split():
            self._kname = []
        if "data-section" in a:
            self.sections.append(a["data-section"])
        if tag == "th" and a.get("aria-sort"):
            self.sorted_by = (a.get("data-col"), a["aria-sort"])
        if tag == "option":
            self.options.append(None)
            self._stack.append("option")

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.rows[-1]["name"] = "".join(self._cell)
            self._cell = None
        if tag == "option" and self._stack:
            self._stack.pop()
        if tag == "p" and self._kname is not None:
            self.knames.append("".join(self._kname))
            self._kname = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._kname is not None:
            self._kname.append(data)
        if self._stack and self.options and self.options[-1] is None:
            self.options[-1] = data

    def names(self):
        return [r["name"] for r in self.rows]

    def ranks(self):
        return [r["rank"] for r in self.rows]


def ranked(counters, *extra):
    """The kernels as the CSV report ranks them: its '#' block."""
    text = gpuq("model", counters, "-f", "csv", *extra)
    block = [l[2:] for l in text.splitlines() if l.startswith("# ")][1:]
    return list(csv.DictReader(io.StringIO("\n".join(block) + "\n")))


def sections_of(counters, *extra):
    line = next(l for l in gpuq("model", counters, *extra).splitlines() if l.startswith("sections:"))
    return [s.strip() for s in line[len("sections:"):].split(",")]


def loaded(dom, what):
    ok = True
    if "data-gpuq-ready" not in dom.root:
        fail("%s: the page never said it was drawn (no data-gpuq-ready)" % what)
        ok = False
    if "data-gpuq-error" in dom.root or dom.errors:
        fail("%s: script error: %s" % (what, dom.root.get("data-gpuq-error")))
        ok = False
    return ok


def check_sorting(name, page, want):
    """Sorted by time ascending: the CSV's times in ascending order, and
    another order than the ranking's; by name, descending; filtered."""
    order = [r["kernel"] for r in want]
    time = {r["rank"]: float(r["gpu_time_ns"]) for r in want}
    asc = Dom(chromium(page, "#sort=time-asc"))
    if loaded(asc, name + " #sort=time-asc"):
        t = [time[r["rank"]] for r in asc.rows]
        if t != sorted(t) or len(t) != len(want):
            fail("%s: #sort=time-asc gives times %s" % (name, t))
        if [r["rank"] for r in asc.rows] == [r["rank"] for r in want]:
            fail("%s: #sort=time-asc left the order as ranked" % name)
        if asc.sorted_by != ("time", "ascending"):
            fail("%s: #sort=time-asc shows the sort as %s" % (name, asc.sorted_by))
    # by name (the table's names; code-point order, as the page sorts)
    shown = Dom(chromium(page)).names()
    by_name = Dom(chromium(page, "#sort=kernel-desc"))
    if loaded(by_name, name + " #sort=kernel-desc") and by_name.names() != sorted(shown, reverse=True):
        fail("%s: #sort=kernel-desc gives %s" % (name, by_name.names()))
    pick = order[-1]
    hits = [r["rank"] for r in want
            if any(pick.lower() in r[k].lower() for k in ("kernel", "demangled", "mangled"))]
    flt = Dom(chromium(page, "#filter=" + pick))
    if loaded(flt, name + " #filter") and flt.ranks() != hits:
        fail("%s: #filter=%s gives ranks %s, the names hold it in %s" % (name, pick, flt.ranks(), hits))
    print("ok: %s: sorted by time ascending and by name, filtered by '%s'" % (name, pick))


def check_recorded(counters):
    name = os.path.basename(counters).replace(".counters.csv", "")
    page = os.path.join(WORK, name + ".html")
    gpuq("model", counters, "-f", "html", "-o", page)
    want = ranked(counters)
    order = [r["kernel"] for r in want]
    dom = Dom(chromium(page, "#kernel=1"))
    if not loaded(dom, name):
        return
    # the table's names are the text report's (shortened); each row's
    # title is the whole demangled name
    if dom.ranks() != [r["rank"] for r in want] or [r["title"] for r in dom.rows] != [r["demangled"] for r in want]:
        fail("%s: table %s, the CSV ranks %s" % (name, dom.names(), order))
    if dom.details != ["1"]:
        fail("%s: detail rows %s, expected kernel 1's" % (name, dom.details))
    secs = sections_of(counters)
    if dom.sections != secs:
        fail("%s: the detail shows sections %s, the report has %s" % (name, dom.sections, secs))
    if dom.sorted_by != ("time", "descending"):
        fail("%s: sorted by %s, expected time descending" % (name, dom.sorted_by))
    print("ok: %s: %d kernel(s) ranked as the CSV ranks them, kernel 1's detail with %s"
          % (name, len(order), ", ".join(secs)))
    if len(set(float(r["gpu_time_ns"]) for r in want)) > 1:
        check_sorting(name, page, want)
    return page


def check_processes(name, files, extra=()):
    page = os.path.join(WORK, name.replace(" ", "-") + ".html")
    gpuq("model", *files, *extra, "-f", "html", "-o", page)
    want = ranked(*files, *extra)
    pids = sorted(set(r["pid"] for r in want))
    dom = Dom(chromium(page, "#kernel=1"))
    if not loaded(dom, name):
        return
    if dom.options != ["all processes"] + ["pid " + p for p in pids]:
        fail("%s: process filter %s" % (name, dom.options))
    if [r["rank"] for r in dom.rows] != [r["rank"] for r in want]:
        fail("%s: rows %s, the CSV ranks %d" % (name, dom.rows, len(want)))
    if dom.knames[:1] != [want[0]["demangled"]]:
        fail("%s: kernel 1's detail names %s, the CSV %r" % (name, dom.knames[:1], want[0]["demangled"]))
    check_sorting(name, page, want)
    one = Dom(chromium(page, "#process=1"))
    mine = [r for r in want if r["pid"] == pids[1]]
    if loaded(one, name + " #process=1") and [r["rank"] for r in one.rows] != [r["rank"] for r in mine]:
        fail("%s: #process=1 shows %d rows, pid %s has %d" % (name, len(one.rows), pids[1], len(mine)))
    print("ok: %s: %d rows with a process filter; %d for pid %s" % (name, len(dom.rows), len(mine), pids[1]))


# Kernel names made of markup and script: shown as text, nothing injected.
HOSTILE = ["<img src=x onerror=alert(1)>",
           "</script><script>alert(1)</script>",
           "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','1')\">",
           "<svg onload=\"document.documentElement.setAttribute('data-pwned','2')\">",
           "a & b <!-- \"quoted\" 'single'"]


def check_hostile():
    src = os.path.join(SRC, "tests/data/counters/valid.csv")
    with open(src) as f:
        lines = f.read().splitlines()
    head = [l for l in lines if l.startswith("#")]
    rows = list(csv.reader(io.StringIO("\n".join(l for l in lines if not l.startswith("#")))))
    out = io.StringIO()
    out.write("\n".join(head).replace("# command: ./hist --image solid",
                                      "# command: ./hist --name '</script><u>x</u>'") + "\n")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(rows[0])
    for i, r in enumerate(rows[1:]):
        r[1] = r[2] = HOSTILE[i % len(HOSTILE)]
        w.writerow(r)
    counters = os.path.join(WORK, "hostile.counters.csv")
    with open(counters, "w") as f:
        f.write(out.getvalue())
    page = os.path.join(WORK, "hostile.html")
    gpuq("model", counters, "--table", os.path.join(SRC, "tests/data/tables/test_gpu.csv"),
         "-f", "html", "-o", page)
    text = chromium(page, "#kernel=1&kernel=2&kernel=3&kernel=4&kernel=5")
    dom = Dom(text)
    if not loaded(dom, "markup names"):
        return
    for tag in ("img", "u"):
        if dom.tags.get(tag):
            fail("markup names: %d <%s> elements in the page" % (dom.tags[tag], tag))
    if dom.handlers:
        fail("markup names: %d event-handler attributes in the page" % dom.handlers)
    if dom.tags.get("script") != 2:
        fail("markup names: %s <script> elements, the page has 2" % dom.tags.get("script"))
    if "data-pwned" in dom.root:
        fail("markup names: a name's handler ran (data-pwned=%s)" % dom.root["data-pwned"])
    shown = set(dom.knames)
    for h in HOSTILE:
        if h not in shown:
            fail("markup names: %r is not shown as a kernel's name (shown: %s)" % (h, sorted(shown)))
    if len(dom.rows) != len(HOSTILE) or any(not n for n in dom.names()):
        fail("markup names: table rows %s" % dom.names())
    if len(dom.details) != 5:
        fail("markup names: %d details open, expected 5" % len(dom.details))
    print("ok: markup names: %d names shown as text in the table and their details; no <img> or <u>, "
          "2 scripts, no handler attribute, none ran" % len(HOSTILE))


pages = [check_recorded(c) for c in sorted(glob.glob(os.path.join(SRC, "data/recorded/*.counters.csv")))]
check_processes("two processes", [os.path.join(SRC, "tests/data/counters/rank%d.csv" % i) for i in (0, 1)],
                ["--table", os.path.join(SRC, "tests/data/tables/test_gpu.csv")])
# a PyTorch DDP job on two H100s (docs/profile.md, "Several GPUs"): C++ names
# full of <, >, commas and quotes
check_processes("pytorch ddp", [os.path.join(SRC, "docs/profile-multigpu/b.%d.counters.csv" % p)
                                for p in (927, 928)])
check_hostile()
shot = os.path.join(WORK, "html-report.png")
allunits = [p for p in pages if p and "all-units" in p]
if allunits:
    chromium(allunits[0], "#sort=time-asc&kernel=1", screenshot=shot)
    if not os.path.getsize(shot) > 10000:
        fail("the screenshot %s is empty" % shot)
    else:
        print("screenshot: %s" % shot)
print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
