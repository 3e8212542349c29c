/* gpuq's HTML report: draws the ranked kernels, each kernel's sections and
 * launches, from the JSON block #gpuq-data (report_html_data.c).  Every
 * string of the program enters the page as text (textContent, attribute
 * values), never as markup.  A script error is written into the page
 * (#gpuq-error, data-gpuq-error on <html>) so that a headless browser's
 * DOM shows it; data-gpuq-ready on <html> says the first screen is drawn
 * and how many milliseconds after navigation.  The URL fragment holds the
 * view: #sort=COLUMN-asc|desc&filter=TEXT&process=N&kernel=RANK. */
(function () {
  "use strict";
  var t0 = performance.now();

  function fail(msg) {
    var root = document.documentElement;
    if (!root.hasAttribute("data-gpuq-error"))
      root.setAttribute("data-gpuq-error", String(msg));
    var box = document.getElementById("gpuq-error");
    if (!box) {
      box = document.createElement("div");
      box.id = "gpuq-error";
      box.className = "error";
      document.body.insertBefore(box, document.body.firstChild);
    }
    box.textContent = "gpuq report: script error: " + msg;
  }
  window.addEventListener("error", function (e) {
    fail((e.message || "error") + (e.lineno ? " (line " + e.lineno + ")" : ""));
  });
  window.addEventListener("unhandledrejection", function (e) { fail(e.reason); });

  var SVGNS = "http://www.w3.org/2000/svg";

  /* An element; attrs' "text" is its text, "cls" its class; kids are nodes or
   * strings (as text). */
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      var v = attrs[k];
      if (v === null || v === undefined) continue;
      if (k === "text") e.textContent = String(v);
      else if (k === "cls") e.className = v;
      else e.setAttribute(k, String(v));
    }
    (kids || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return e;
  }
  function sv(tag, attrs, text) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  function isNum(v) { return typeof v === "number" && isFinite(v); }
  /* As the text report's numbers (gm_fmt_num): 4 significant digits, no
   * exponent from 1e-3 to 1e6, "-" for a missing value. */
  function fmt(v) {
    if (!isNum(v)) return "-";
    var a = Math.abs(v);
    if (v !== 0 && (a >= 1e6 || a < 1e-3)) {
      var p = v.toExponential(2).split("e");
      var ex = parseInt(p[1], 10);
      return p[0].replace(/\.?0+$/, "") + "e" + (ex < 0 ? "-" : "+") +
             (Math.abs(ex) < 10 ? "0" : "") + Math.abs(ex);
    }
    if (a >= 1000) return v.toFixed(0);
    return String(Number(v.toPrecision(4)));
  }
  function pct(v, digits) { return isNum(v) ? (100 * v).toFixed(digits || 0) + "%" : "-"; }
  function level(v) { return !isNum(v) ? "" : v >= 0.8 ? "s2" : v >= 0.5 ? "s1" : ""; }

  var D = JSON.parse(document.getElementById("gpuq-data").textContent);
  var K = D.kernels, S = D.sections, L = D.launches || null, NS = S.length;
  var app = document.getElementById("app");

  /* per section: field name -> index in a kernel's "val" (fields with c) */
  var valIndex = S.map(function (s) {
    var m = {}, n = 0;
    s.fields.forEach(function (f) { if (f.c) m[f.n] = n++; });
    return m;
  });
  var byRow = {};
  K.forEach(function (k) { byRow[k.row] = k; k.launchIdx = []; });
  if (L) for (var i = 0; i < L.id.length; i++) if (byRow[L.k[i]]) byRow[L.k[i]].launchIdx.push(i);

  function fileLabel(f) { return D.files[f] ? D.files[f].label : String(f); }

  /* ---------------------------------------------------------------- view state */
  var state = { col: "time", dir: "desc", filter: "", proc: -1, limit: 200, open: {} };
  function readHash() {
    location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      var eq = kv.indexOf("=");
      if (eq < 0) return;
      var key = kv.slice(0, eq), val = decodeURIComponent(kv.slice(eq + 1));
      if (key === "sort") {
        var m = /^(.+)-(asc|desc)$/.exec(val);
        if (m && colById(m[1])) { state.col = m[1]; state.dir = m[2]; }
      } else if (key === "filter") state.filter = val;
      else if (key === "process") state.proc = parseInt(val, 10);
      else if (key === "kernel") state.open[parseInt(val, 10)] = true;
    });
  }
  function writeHash() {
    var parts = ["sort=" + state.col + "-" + state.dir];
    if (state.filter) parts.push("filter=" + encodeURIComponent(state.filter));
    if (state.proc >= 0) parts.push("process=" + state.proc);
    Object.keys(state.open).forEach(function (r) { parts.push("kernel=" + r); });
    try { history.replaceState(null, "", "#" + parts.join("&")); } catch (e) { /* file: URLs may refuse */ }
  }

  /* ---------------------------------------------------------------- columns */
  function unitBar(sev, title) {
    var w = isNum(sev) ? Math.max(0, Math.min(1, sev)) : 0;
    return el("span", { cls: "unit", title: title }, [
      el("span", { cls: "track" }, [el("span", { cls: "fill " + level(sev), style: "width:" + (100 * w).toFixed(1) + "%" })]),
      el("span", { cls: "val", text: pct(sev) })
    ]);
  }
  var COLS = [
    { id: "rank", h: "#", num: 1, key: function (k) { return k.rank; },
      cell: function (k) { return el("td", { cls: "num", text: k.rank }); } },
    D.multi ? { id: "process", h: "process", key: function (k) { return fileLabel(k.file); },
      cell: function (k) { return el("td", { text: fileLabel(k.file) }); } } : null,
    { id: "kernel", h: "kernel", key: function (k) { return k.name; },
      cell: function (k) { return el("td", { cls: "name", title: k.dm, text: k.name }); } },
    { id: "launches", h: "launches", num: 1, key: function (k) { return k.n; },
      cell: function (k) { return el("td", { cls: "num", text: k.n }); } },
    { id: "time", h: "GPU time ms", num: 1, key: function (k) { return k.t; },
      cell: function (k) { return el("td", { cls: "num", text: fmt(isNum(k.t) ? k.t * 1e-6 : NaN) }); } },
    { id: "mean", h: "mean \u00b5s", num: 1, key: function (k) { return k.m; },
      cell: function (k) { return el("td", { cls: "num", text: fmt(isNum(k.m) ? k.m * 1e-3 : NaN) }); } },
    { id: "share", h: "share", num: 1, key: function (k) { return k.s; },
      cell: function (k) {
        var w = isNum(k.s) ? Math.max(0, Math.min(1, k.s)) : 0;
        return el("td", { cls: "num" }, [el("span", { cls: "share" }, [
          el("span", { cls: "track" }, [el("span", { cls: "fill", style: "width:" + (100 * w).toFixed(1) + "%" })]),
          el("span", { text: pct(k.s, 1) })])]);
      } }
  ].filter(Boolean);
  S.forEach(function (s, i) {
    COLS.push({ id: s.name, h: s.name, num: 1, sec: i, key: function (k) { return k.sec[i].sev; },
      cell: function (k) { return el("td", null, [unitBar(k.sec[i].sev, s.name + ": " + k.sec[i].v)]); } });
  });
  COLS.push({ id: "verdict", h: "verdict", key: function (k) { return k.v; },
    cell: function (k) {
      return el("td", { cls: "verdict" }, [k.v || "no verdict",
        k.vs >= 0 && NS > 1 ? el("span", { cls: "sec", text: "[" + S[k.vs].name + "]" }) : null]);
    } });
  function colById(id) { for (var i = 0; i < COLS.length; i++) if (COLS[i].id === id) return COLS[i]; return null; }

  /* Missing numbers last in either direction; ties by rank. */
  function sorted(list) {
    var c = colById(state.col) || colById("time"), sign = state.dir === "asc" ? 1 : -1;
    return list.slice().sort(function (a, b) {
      var x = c.key(a), y = c.key(b), r = 0;
      if (c.num) {
        var hx = isNum(x), hy = isNum(y);
        if (hx !== hy) return hx ? -1 : 1;
        r = hx ? (x < y ? -1 : x > y ? 1 : 0) : 0;
      } else {
        /* code points, not the locale: the same order on every machine */
        x = String(x);
        y = String(y);
        r = x < y ? -1 : x > y ? 1 : 0;
      }
      return r !== 0 ? sign * r : a.rank - b.rank;
    });
  }
  function visible() {
    var f = state.filter.toLowerCase();
    return K.filter(function (k) {
      if (state.proc >= 0 && k.file !== state.proc) return false;
      if (!f) return true;
      return [k.name, k.fn, k.dm, k.mg].some(function (n) { return String(n).toLowerCase().indexOf(f) >= 0; });
    });
  }

  /* ---------------------------------------------------------------- figures */
  function fieldOf(si, k, name) {
    var j = valIndex[si][name];
    return k.sec[si].val && j !== undefined ? k.sec[si].val[j] : undefined;
  }
  function heading(si, name) {
    var f = S[si].fields.filter(function (x) { return x.n === name; })[0];
    return f ? f.h : name;
  }

  function gauge(si, k, fig) {
    var rows = fig.fields.filter(function (n) { return isNum(fieldOf(si, k, n)); });
    if (!rows.length) return null;
    var W = 360, x0 = 70, x1 = W - 50, rh = 20, top = 16, H = top + rows.length * rh + 18;
    var max = 1;
    rows.forEach(function (n) { max = Math.max(max, fieldOf(si, k, n)); });
    if (fig.hi && isNum(fieldOf(si, k, fig.hi))) max = Math.max(max, fieldOf(si, k, fig.hi));
    function X(v) { return x0 + (x1 - x0) * Math.max(0, v) / max; }
    var g = sv("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img" });
    [0, 0.5, 1].forEach(function (t) {
      g.appendChild(sv("line", { x1: X(t), x2: X(t), y1: top - 4, y2: H - 14, "class": "gridl" }));
      g.appendChild(sv("text", { x: X(t), y: H - 3, "text-anchor": "middle" }, pct(t)));
    });
    fig.marks.forEach(function (m) {
      g.appendChild(sv("line", { x1: X(m), x2: X(m), y1: top - 6, y2: H - 14, "class": "mark" }));
      g.appendChild(sv("text", { x: X(m), y: top - 8, "text-anchor": "middle" }, pct(m)));
    });
    rows.forEach(function (n, r) {
      var v = fieldOf(si, k, n), y = top + r * rh;
      g.appendChild(sv("text", { x: x0 - 6, y: y + 12, "text-anchor": "end" }, heading(si, n)));
      var end = X(v);
      g.appendChild(sv("rect", { x: x0, y: y + 3, width: Math.max(1, X(v) - x0), height: rh - 8, "class": "barf " + level(v) }));
      if (r === 0 && fig.lo && fig.hi && isNum(fieldOf(si, k, fig.lo)) && isNum(fieldOf(si, k, fig.hi))) {
        var lo = X(fieldOf(si, k, fig.lo)), hi = X(fieldOf(si, k, fig.hi)), ym = y + rh / 2 - 1;
        g.appendChild(sv("line", { x1: lo, x2: hi, y1: ym, y2: ym, "class": "range" }));
        g.appendChild(sv("line", { x1: lo, x2: lo, y1: ym - 4, y2: ym + 4, "class": "range" }));
        g.appendChild(sv("line", { x1: hi, x2: hi, y1: ym - 4, y2: ym + 4, "class": "range" }));
        end = Math.max(end, hi);
      }
      g.appendChild(sv("text", { x: end + 4, y: y + 12 }, pct(v)));
    });
    g.appendChild(sv("line", { x1: x0, x2: x0, y1: top - 4, y2: H - 14, "class": "axis" }));
    return g;
  }

  /* A round axis end at or above v, close enough that the bars use the width. */
  function niceMax(v) {
    var p = Math.pow(10, Math.floor(Math.log10(v))), m = v / p;
    var steps = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
    for (var i = 0; i < steps.length; i++) if (m <= steps[i] + 1e-9) return steps[i] * p;
    return 10 * p;
  }
  function parts(si, k, fig) {
    var rows = fig.fields.filter(function (n) { return isNum(fieldOf(si, k, n)); });
    var meas = fig.lo ? fieldOf(si, k, fig.lo) : undefined, pred = fig.hi ? fieldOf(si, k, fig.hi) : undefined;
    if (!rows.length) return null;
    var W = 360, x0 = 70, x1 = W - 50, rh = 20, top = 16, H = top + rows.length * rh + 18, max = 0;
    rows.forEach(function (n) { max = Math.max(max, fieldOf(si, k, n)); });
    if (isNum(meas)) max = Math.max(max, meas);
    if (isNum(pred)) max = Math.max(max, pred);
    if (!(max > 0)) return null;
    max = niceMax(max);
    function X(v) { return x0 + (x1 - x0) * Math.max(0, v) / max; }
    var g = sv("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img" });
    [0, 0.5, 1].forEach(function (t) {
      g.appendChild(sv("line", { x1: X(t * max), x2: X(t * max), y1: top - 4, y2: H - 14, "class": "gridl" }));
      g.appendChild(sv("text", { x: X(t * max), y: H - 3, "text-anchor": "middle" }, fmt(t * max)));
    });
    rows.forEach(function (n, r) {
      var v = fieldOf(si, k, n), y = top + r * rh, share = isNum(meas) && meas > 0 ? v / meas : NaN;
      g.appendChild(sv("text", { x: x0 - 6, y: y + 12, "text-anchor": "end" }, heading(si, n)));
      g.appendChild(sv("rect", { x: x0, y: y + 3, width: Math.max(1, X(v) - x0), height: rh - 8, "class": "barf " + level(share) }));
      /* the label clear of the measured and predicted lines just past the bar */
      var lx = X(v) + 4;
      [meas, pred].forEach(function (t) {
        if (isNum(t) && X(t) >= X(v) - 2 && X(t) - lx < 32) lx = Math.max(lx, X(t) + 4);
      });
      g.appendChild(sv("text", { x: lx, y: y + 12 }, fmt(v)));
    });
    if (isNum(pred) && (!isNum(meas) || Math.abs(X(pred) - X(meas)) > 1)) {
      g.appendChild(sv("line", { x1: X(pred), x2: X(pred), y1: top - 4, y2: H - 14, "class": "pred" }));
    }
    if (isNum(meas)) {
      g.appendChild(sv("line", { x1: X(meas), x2: X(meas), y1: top - 6, y2: H - 14, "class": "ref" }));
      g.appendChild(sv("text", { x: X(meas), y: top - 8, "text-anchor": "middle" }, "measured " + fmt(meas) + " \u00b5s"));
    }
    g.appendChild(sv("line", { x1: x0, x2: x0, y1: top - 4, y2: H - 14, "class": "axis" }));
    return g;
  }

  function tail(si, k, fig) {
    var w = fieldOf(si, k, fig.fields[0]);
    if (!isNum(w) || w <= 0) return null;
    var n = Math.ceil(w - 1e-9), last = w - (n - 1), box = 22, gap = 3, MAXBOX = 24;
    var shown = Math.min(n, MAXBOX), W = Math.max(200, shown * (box + gap) + 40), H = box + 30;
    var g = sv("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img" });
    for (var i = 0; i < shown; i++) {
      var isLast = i === shown - 1, x = 4 + i * (box + gap), full = isLast ? last : 1;
      if (n > MAXBOX && i === shown - 2) {
        g.appendChild(sv("text", { x: x + box / 2, y: 4 + box / 2 + 4, "text-anchor": "middle" }, "\u2026"));
        continue;
      }
      g.appendChild(sv("rect", { x: x, y: 4, width: box, height: box, "class": "wave empty" }));
      g.appendChild(sv("rect", { x: x, y: 4 + box * (1 - full), width: box, height: box * full, "class": "wave" }));
    }
    var label = w < 1 ? fmt(w) + " of one wave (" + pct(w, 2) + " of its slots)"
              : last >= 1 - 1e-9 ? n + " whole wave" + (n === 1 ? "" : "s")
              : fmt(w) + " waves: " + n + ", the last " + pct(last) + " full";
    g.appendChild(sv("text", { x: 4, y: box + 22 }, label));
    return g;
  }

  var FIGURES = { gauge: gauge, parts: parts, tail: tail };

  /* ---------------------------------------------------------------- detail */
  function cellsTable(si, cells) {
    var heads = S[si].fields.filter(function (f) { return f.t; });
    return el("div", { cls: "cells" }, [el("table", { cls: "cells" }, [
      el("tr", null, heads.map(function (f) { return el("th", { text: f.h, title: f.n }); })),
      el("tr", null, (cells || []).map(function (c) { return el("td", { text: c }); }))])]);
  }

  function allFields(si, k) {
    var s = S[si], val = k.sec[si].val;
    if (!val) return el("p", { cls: "note", text: "Kernels ranked below " + D.full_kernels +
      " carry the text report's cells only; 'gpuq model -f csv' has every field." });
    var list = el("dl", { cls: "fieldlist" });
    s.fields.filter(function (f) { return f.c; }).forEach(function (f, j) {
      var v = val[j];
      var shown = typeof v === "string" ? (v || "-") : f.k === "pct" ? pct(v, 1) : fmt(v);
      list.appendChild(el("div", null, [el("dt", { text: f.n }),
        el("dd", { text: shown, title: typeof v === "number" ? String(v) : null })]));
    });
    return el("details", { cls: "fields" }, [el("summary", { text: "every field (" + s.name + ".*, as in the CSV)" }), list]);
  }

  function sectionCard(si, k) {
    var s = S[si], sec = k.sec[si];
    var fig = s.fig && FIGURES[s.fig.kind] && sec.val ? FIGURES[s.fig.kind](si, k, s.fig) : null;
    return el("div", { cls: "section", "data-section": s.name }, [
      el("h3", null, [s.title + " ", el("span", { cls: "tag", text: "[" + s.name + (s.variant !== "default" ? ":" + s.variant : "") + "]" })]),
      el("div", { cls: "paper", text: s.paper }),
      el("div", { cls: "sverdict" + (k.vs === si ? " speaks" : ""), text: sec.v || "no verdict" }),
      fig ? el("figure", null, [fig, el("figcaption", { text: s.fig.caption })]) : null,
      cellsTable(si, sec.txt),
      s.notes ? el("pre", { cls: "notes", text: s.notes }) : null,
      allFields(si, k)
    ]);
  }

  var LAUNCH_CHUNK = 100;
  function launchRows(k, tbody, from) {
    var idx = k.launchIdx, to = Math.min(idx.length, from + LAUNCH_CHUNK);
    for (var j = from; j < to; j++) (function (i) {
      var tr = el("tr", { cls: "l", tabindex: 0, "data-launch": L.id[i] }, [
        el("td", { cls: "num", text: L.id[i] }),
        el("td", { cls: "num", text: fmt(isNum(L.t[i]) ? L.t[i] * 1e-3 : NaN) }),
        el("td", { cls: "num", text: D.strings[L.cfg[i]] })
      ].concat(S.map(function (s, si) {
        var v = L.sev[i * NS + si];
        return el("td", null, [unitBar(v === null ? NaN : v / 1000, s.name + ": " + D.strings[L.sv[i * NS + si]])]);
      })).concat([el("td", { cls: "verdict", text: L.vs[i] >= 0 ? D.strings[L.sv[i * NS + L.vs[i]]] : "no verdict" })]));
      var open = null;
      function toggle() {
        if (open) { open.remove(); open = null; return; }
        open = el("tr", { cls: "ldetail" }, [el("td", { colspan: 4 + NS }, S.map(function (s, si) {
          return el("div", null, [el("b", { text: s.name + ": " }), D.strings[L.sv[i * NS + si]],
            cellsTable(si, D.cells[L.cells[i * NS + si]])]);
        }))]);
        tr.after(open);
      }
      tr.addEventListener("click", toggle);
      tr.addEventListener("keydown", function (e) { if (e.key === "Enter") toggle(); });
      tbody.appendChild(tr);
    })(idx[j]);
    return to;
  }

  function launchesBlock(k) {
    if (!L) return el("p", { cls: "note", text: D.summary ? "A --summary report: launches summed, none listed one by one." : "" });
    if (D.incomplete) return el("p", { cls: "note", text: "The launches could not all be written (out of memory); see the text report." });
    var tbody = el("tbody");
    var table = el("table", { cls: "grid launches" }, [el("thead", null, [el("tr", null, [
      el("th", { cls: "num", text: "launch" }), el("th", { cls: "num", text: "time \u00b5s" }),
      el("th", { cls: "num", text: "grid x block" })].concat(S.map(function (s) { return el("th", { text: s.name }); }))
      .concat([el("th", { text: "verdict" })]))]), tbody]);
    var shown = 0;
    var more = el("div", { cls: "more" });
    function moreButton() {
      more.textContent = "";
      if (shown >= k.launchIdx.length) return;
      var b = el("button", { text: "show " + Math.min(LAUNCH_CHUNK, k.launchIdx.length - shown) + " more of " + (k.launchIdx.length - shown) });
      b.addEventListener("click", function () { shown = launchRows(k, tbody, shown); moreButton(); });
      more.appendChild(b);
    }
    var box = el("details", { cls: "launches" }, [el("summary", { text: "Launches (" + k.launchIdx.length +
      "; click one for its cells)" }), table, more]);
    /* drawn when first opened: a kernel may have thousands */
    box.addEventListener("toggle", function () {
      if (box.open && shown === 0) { shown = launchRows(k, tbody, 0); moreButton(); }
    });
    return box;
  }

  var details = {};
  function detailRow(k) {
    if (details[k.rank]) return details[k.rank];
    var facts = [k.n + " launch" + (k.n === 1 ? "" : "es") + " (first id " + k.id + ")", "grid x block " + k.cfg,
                 fmt(isNum(k.t) ? k.t * 1e-6 : NaN) + " ms on the GPU (" + pct(k.s, 1) + ")",
                 fmt(isNum(k.m) ? k.m * 1e-3 : NaN) + " \u00b5s per launch"];
    if (D.multi) facts.unshift(fileLabel(k.file));
    if (k.tn < k.n) facts.push((k.n - k.tn) + " without a duration");
    var td = el("td", { colspan: COLS.length }, [
      el("p", { cls: "kname", text: k.dm }),
      k.mg !== k.dm ? el("p", { cls: "kname note", text: k.mg }) : null,
      el("div", { cls: "kfacts", text: "rank " + k.rank + " \u00b7 " + facts.join(" \u00b7 ") +
        " \u00b7 sections applied to the launches summed" }),
      el("div", { cls: "sections" }, S.map(function (s, si) { return sectionCard(si, k); })),
      launchesBlock(k)
    ]);
    return (details[k.rank] = el("tr", { cls: "detail", "data-detail": k.rank }, [td]));
  }

  /* ---------------------------------------------------------------- the table */
  var tbody, head, countEl, moreEl;
  function renderRows() {
    var list = sorted(visible());
    tbody.textContent = "";
    list.slice(0, state.limit).forEach(function (k) {
      var tr = el("tr", { cls: "k" + (state.open[k.rank] ? " open" : ""), tabindex: 0, "data-rank": k.rank },
                  COLS.map(function (c) { return c.cell(k); }));
      function toggle() {
        if (state.open[k.rank]) { delete state.open[k.rank]; tr.classList.remove("open"); detailRow(k).remove(); }
        else { state.open[k.rank] = true; tr.classList.add("open"); tr.after(detailRow(k)); }
        writeHash();
      }
      tr.addEventListener("click", toggle);
      tr.addEventListener("keydown", function (e) { if (e.key === "Enter") toggle(); });
      tbody.appendChild(tr);
      if (state.open[k.rank]) tbody.appendChild(detailRow(k));
    });
    countEl.textContent = (list.length === K.length ? K.length + " kernels" : list.length + " of " + K.length + " kernels") +
      ", " + D.n_launches + " launches";
    moreEl.textContent = "";
    if (list.length > state.limit) {
      var b = el("button", { text: "show all " + list.length + " kernels (" + (list.length - state.limit) + " more)" });
      b.addEventListener("click", function () { state.limit = Infinity; renderRows(); });
      moreEl.appendChild(b);
    }
    head.querySelectorAll("th[data-col]").forEach(function (th) {
      if (th.getAttribute("data-col") === state.col) th.setAttribute("aria-sort", state.dir === "asc" ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    });
  }

  function build() {
    readHash();
    var filter = el("input", { type: "search", placeholder: "filter by kernel name", "aria-label": "filter by kernel name", value: state.filter });
    filter.addEventListener("input", function () { state.filter = filter.value; renderRows(); writeHash(); });
    var proc = null;
    if (D.multi) {
      proc = el("select", { "aria-label": "process" }, [el("option", { value: -1, text: "all processes" })]
        .concat(D.files.map(function (f, i) { return el("option", { value: i, text: f.label }); })));
      proc.value = String(state.proc);
      proc.addEventListener("change", function () { state.proc = parseInt(proc.value, 10); renderRows(); writeHash(); });
    }
    countEl = el("span", { cls: "count" });
    var legend = el("p", { cls: "legend" }, ["Verdicts are those of each kernel's launches summed. " +
      "Bars: how close the kernel came to the limit gpuq measured on this GPU \u2014 "]
      .concat([].concat.apply([], S.map(function (s, i) {
        return [el("b", { text: s.name }), " " + s.bar + (i < NS - 1 ? "; " : ".")];
      }))).concat([" Click a kernel for its sections and launches."]));
    head = el("thead", null, [el("tr", null, COLS.map(function (c) {
      var th = el("th", { cls: c.num ? "num" : null, "data-col": c.id, text: c.h, title: "sort by " + c.h });
      th.addEventListener("click", function () {
        if (state.col === c.id) state.dir = state.dir === "asc" ? "desc" : "asc";
        else { state.col = c.id; state.dir = c.num && c.id !== "rank" ? "desc" : "asc"; }
        renderRows();
        writeHash();
      });
      return th;
    }))]);
    tbody = el("tbody");
    moreEl = el("div", { cls: "more" });
    app.textContent = "";
    app.appendChild(el("div", { cls: "toolbar" }, [el("h2", { text: "Kernels by GPU time" }), filter, proc, countEl]));
    app.appendChild(legend);
    if (D.incomplete) app.appendChild(el("p", { cls: "note", text: "Some launches could not be written (out of memory)." }));
    if (L && D.listed < D.n_launches) app.appendChild(el("p", { cls: "note", text: "The first " + D.listed + " of " +
      D.n_launches + " launches are listed one by one; the kernels count them all, and the text report lists every one." }));
    app.appendChild(el("div", { cls: "tablewrap" }, [el("table", { cls: "grid kernels", id: "kernels" }, [head, tbody])]));
    app.appendChild(moreEl);
    renderRows();
  }

  try {
    build();
  } catch (e) {
    fail(e && e.message ? e.message : e);
  }
  var root = document.documentElement;
  root.setAttribute("data-gpuq-ready", performance.now().toFixed(0));
  root.setAttribute("data-gpuq-script-ms", (performance.now() - t0).toFixed(0));
  window.addEventListener("hashchange", function () { state.open = {}; readHash(); renderRows(); });
})();
