// Draws every chart of the page from the JSON in #report-data as inline SVG (no library, no network).
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var COLORS = ["#2f6fdf", "#e0682b", "#2aa35a", "#b03bb8", "#c9a100", "#4b5563"];
  var W = 640, H = 260, L = 56, R = 12, T = 28, B = 30;
  var data = JSON.parse(document.getElementById("report-data").textContent);

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (parent) { parent.appendChild(e); }
    return e;
  }
  function text(parent, x, y, s, anchor) {
    var t = el("text", { x: x, y: y, "text-anchor": anchor || "start" }, parent);
    t.textContent = s;
    return t;
  }
  // 1, 2 or 5 times a power of ten, so that about five ticks cover the range.
  function step(span) {
    var raw = span / 5, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function fmt(v) {
    var a = Math.abs(v);
    if (a >= 1e6) { return (v / 1e6).toFixed(a >= 1e7 ? 0 : 1) + "M"; }
    if (a >= 1e4) { return (v / 1e3).toFixed(0) + "k"; }
    if (a >= 100 || v === Math.round(v)) { return v.toFixed(0); }
    return v.toFixed(a >= 10 ? 1 : 2);
  }

  function draw(fig, chart) {
    var svg = fig.querySelector("svg");
    var xs = [], ys = [];
    chart.series.forEach(function (s) {
      s.points.forEach(function (p) { if (p[1] !== null) { xs.push(p[0]); ys.push(p[1]); } });
    });
    if (ys.length === 0) {
      text(svg, W / 2, H / 2, "no data", "middle").setAttribute("class", "empty");
      return;
    }
    // Every chart's time axis starts at the run's start, so charts line up.
    var x0 = Math.min(0, Math.min.apply(null, xs)), x1 = Math.max.apply(null, xs);
    if (x1 === x0) { x1 = x0 + 1; }
    var y1 = Math.max.apply(null, ys), y0 = Math.min(0, Math.min.apply(null, ys));
    if (y1 === y0) { y1 = y0 + 1; }
    var ys1 = step(y1 - y0); y1 = Math.ceil(y1 / ys1) * ys1;
    function px(x) { return L + (x - x0) / (x1 - x0) * (W - L - R); }
    function py(y) { return H - B - (y - y0) / (y1 - y0) * (H - T - B); }
    for (var gy = y0; gy <= y1 + ys1 / 2; gy += ys1) {
      el("line", { "class": "grid", x1: L, x2: W - R, y1: py(gy), y2: py(gy) }, svg);
      text(svg, L - 6, py(gy) + 4, fmt(gy), "end");
    }
    var xs1 = step(x1 - x0);
    for (var gx = Math.ceil(x0 / xs1) * xs1; gx <= x1; gx += xs1) {
      el("line", { "class": "axis", x1: px(gx), x2: px(gx), y1: H - B, y2: H - B + 4 }, svg);
      text(svg, px(gx), H - B + 16, fmt(gx) + " s", "middle");
    }
    el("line", { "class": "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }, svg);
    el("line", { "class": "axis", x1: L, x2: L, y1: T, y2: H - B }, svg);
    var lx = L + 4;
    chart.series.forEach(function (s, i) {
      var color = COLORS[i % COLORS.length], d = "", n = 0, pen = false, last = null;
      // Samples are meant to be evenly spaced: a step over three times the median one means sampling stalled
      // (a busy machine), and a straight line across it would invent values, so the line breaks there.
      var steps = [];
      for (var k = 1; k < s.points.length; k++) { steps.push(s.points[k][0] - s.points[k - 1][0]); }
      steps.sort(function (a, b) { return a - b; });
      var maxStep = steps.length ? 3 * steps[Math.floor(steps.length / 2)] : Infinity;
      s.points.forEach(function (p) {
        if (p[1] === null) { pen = false; return; }
        if (last !== null && p[0] - last > maxStep) { pen = false; }
        d += (pen ? "L" : "M") + px(p[0]).toFixed(1) + " " + py(p[1]).toFixed(1);
        pen = true; n++; last = p[0];
      });
      if (n > 0) {
        el("path", { "class": "series", d: d, stroke: color, "data-series": s.name, "data-points": n }, svg);
        if (n === 1) {  // a single point draws no line: mark it
          var p = s.points.filter(function (q) { return q[1] !== null; })[0];
          el("circle", { cx: px(p[0]), cy: py(p[1]), r: 3, fill: color }, svg);
        }
      }
      el("rect", { x: lx, y: 8, width: 10, height: 10, fill: color }, svg);
      var t = text(svg, lx + 14, 17, s.name + (n === 0 ? " (no data)" : ""));
      lx += 24 + 7 * t.textContent.length;
    });
  }

  var figs = document.querySelectorAll("figure.chart");
  for (var i = 0; i < figs.length; i++) {
    var chart = data.charts[figs[i].getAttribute("data-chart")];
    if (chart) { draw(figs[i], chart); }
  }
  document.body.setAttribute("data-rendered", String(figs.length));
})();
