/* memscope report.html, module "chart" (report page only): memory over time, drawn by uPlot, with GC pauses, whole-heap
 * collections and the peak marked; dragging across it selects the time range the flame graph and tables show.
 * Only measurements are drawn: where the agent sampled the process's memory, the heap's used and committed lines are
 * those samples (each holding until the next, with a gap where two samples are more than two intervals apart) and
 * the heap in use before and after each collection is a point over them; without samples they are the collections'
 * figures, in steps. */
var plot = null;
function renderChart() {
  var box = $('chart'), note = $('chart-note');
  var gcs = (D.gc && D.gc.collections) || [];
  var tl = D.timeline;
  var xs = new Map();
  function point(tMs) { var k = Math.round(tMs * 1000) / 1e6; if (!xs.has(k)) xs.set(k, {}); return xs.get(k); }
  var have = {};
  var pm = D.processMemory;
  var sampled = !!(pm && pm.timeMs && pm.timeMs.length && pm.heapUsedBytes
    && pm.heapUsedBytes.some(function (v) { return v != null; }));
  gcs.forEach(function (g) {
    if (!(g.usedBeforeBytes > 0 || g.usedAfterBytes > 0)) return;
    var a = point(g.timeMs), b = point(g.timeMs + Math.max(g.durationMs, 0.001));
    if (sampled) { // points over the sampled line, never joined
      a.gcUsed = g.usedBeforeBytes; b.gcUsed = g.usedAfterBytes; have.gcUsed = 1;
      return;
    }
    a.used = g.usedBeforeBytes; b.used = g.usedAfterBytes;
    if (g.committedBytes > 0) { a.committed = g.committedBytes; b.committed = g.committedBytes; have.committed = 1; }
    have.used = 1;
  });
  if (sampled) {
    pm.timeMs.forEach(function (t, i) {
      var p = point(t);
      p.sample = i;
      if (pm.heapUsedBytes[i] != null) { p.used = pm.heapUsedBytes[i]; have.used = 1; }
      if (pm.heapCommittedBytes && pm.heapCommittedBytes[i] != null) { p.committed = pm.heapCommittedBytes[i]; have.committed = 1; }
    });
  }
  if (tl && tl.startMs) {
    var bucketMs = tl.startMs.length > 1 ? tl.startMs[1] - tl.startMs[0] : Math.max(1, D.meta.durationMs);
    tl.startMs.forEach(function (st, i) {
      var p = point(st + bucketMs / 2);
      if (tl.heldBytes) { p.held = tl.heldBytes[i]; have.held = 1; }
      if (tl.unconfirmedBytes && tl.heldBytes) {
        p.present = tl.heldBytes[i] + tl.unconfirmedBytes[i];
        if (tl.unconfirmedBytes[i] > 0) have.present = 1;
      }
      if (tl.nativeOutstandingBytes) { p.native = tl.nativeOutstandingBytes[i]; if (p.native > 0) have.native = 1; }
      if (tl.allocatedBytes) { p.rate = tl.allocatedBytes[i] / (bucketMs / 1000); have.rate = 1; }
      if (!sampled && tl.heapUsedBytes && !gcs.length) { p.used = tl.heapUsedBytes[i]; have.used = 1; }
      if (!sampled && tl.heapCommittedBytes && !have.committed) { p.committed = tl.heapCommittedBytes[i]; have.committedTl = 1; }
    });
    if (have.committedTl) have.committed = 1;
  }
  var keys = Array.from(xs.keys()).sort(function (a, b) { return a - b; });
  if (!keys.length) {
    box.appendChild(el('div', {className: 'empty hint'}, 'This report has no memory-over-time data (no GC happened and no timeline was recorded).'));
    box.style.minHeight = '0';
    return;
  }
  var defs = [
    ['used', 'Heap used', '#2f6fde', 'bytes', {width: 1.6}],
    ['committed', 'Heap committed', '#8aa4c8', 'bytes', {width: 1.2, dash: [5, 4]}],
    ['present', 'Held + unconfirmed (estimate)', '#f0a98f', 'bytes', {width: 1.2, dash: [3, 3], fill: 'rgba(232,100,60,.05)'}],
    ['held', 'Held (estimate)', '#e8643c', 'bytes', {width: 2, fill: 'rgba(232,100,60,.12)'}],
    ['native', 'Native outstanding', '#1e8a4c', 'bytes', {width: 1.6}],
    ['rate', 'Allocation rate', '#a58bd6', 'rate', {width: 1.2}],
    ['gcUsed', 'Heap used at GCs', '#2f6fde', 'bytes', {width: 0, paths: function () { return null; },
      points: {show: true, size: 5, fill: '#2f6fde'}}]
  ].filter(function (d) { return have[d[0]]; });
  var data = [keys];
  var held = sampled ? sampleHold(keys, pm) : null;
  defs.forEach(function (d) {
    if (sampled && (d[0] === 'used' || d[0] === 'committed')) {
      var col = d[0] === 'used' ? pm.heapUsedBytes : pm.heapCommittedBytes;
      data.push(held.map(function (i) { return i < 0 || col[i] == null ? null : col[i]; }));
      d[4].spanGaps = false;
      return;
    }
    data.push(keys.map(function (k) { var v = xs.get(k)[d[0]]; return v == null ? null : v; }));
  });
  var series = chartSeries(defs);
  var axes = chartAxes(have.rate);
  var pauses = gcs.filter(function (g) { return g.pause; });
  var wholeHeap = gcs.filter(function (g) { return g.examined === 'whole-heap'; });
  var peakMark = peakMarker(gcs);
  plot = timePlot(box, 280, series, axes, data, hasBuckets, function (u) { drawMarks(u, pauses, peakMark, wholeHeap); });
  box.plot = plot; // for the page's tests: what was drawn
  note.textContent = (hasBuckets ? 'Drag across the chart to restrict the flame graph and the tables to a time range. ' : '')
    + 'Red ticks on the time axis: GC pauses (taller = longer); orange dots: collections that examined the whole heap (only they '
    + 'confirm what is held). Held: reachable at such a collection; the lighter band above it is unconfirmed memory, which '
    + 'survived only young collections and may be garbage. Dashed line: ' + (peakMark ? peakMark.what : 'the peak') + '.'
    + (hasBuckets ? '' : ' Selecting a time range needs the per-stack timeline, which this report does not have.');
  $('window-clear').addEventListener('click', function () { setWindow(null); });
  window.addEventListener('resize', function () { if (plot) plot.setSize({width: Math.max(400, box.clientWidth), height: 280}); });
}
/** For each x (seconds): the process sample whose value holds there (the latest at or before it), or -1 where
 * nothing was measured: before the first sample, after the last, and inside a gap (two samples more than two
 * intervals apart). */
function sampleHold(keys, pm) {
  var gapMs = 2 * Math.max(pm.intervalMs || 0, 1), t = pm.timeMs, j = -1;
  return keys.map(function (k) {
    var ms = k * 1000;
    while (j + 1 < t.length && t[j + 1] <= ms + 1e-6) j++;
    if (j < 0 || j + 1 >= t.length && ms > t[j] + 1e-6) return -1;
    if (j + 1 < t.length && t[j + 1] - t[j] > gapMs && !pm.downsampled && ms > t[j] + 1e-6) return -1;
    return j;
  });
}
/** uPlot's series: time, then one per line drawn (defs: key, label, colour, scale, style). */
function chartSeries(defs) {
  var series = [{label: 'time', value: function (u, v) { return v == null ? '–' : fmtSec(v); }}];
  defs.forEach(function (d) {
    // Stepped: a value holds from its measurement until the next one of the same series (no line is drawn between
    // two measurements as if the memory had changed steadily between them)
    var s = {label: d[1], stroke: d[2], scale: d[3], spanGaps: true, points: {show: false}, paths: uPlot.paths.stepped({align: 1}),
      value: d[3] === 'rate' ? function (u, v) { return v == null ? '–' : fmtBytes(v) + '/s'; } : function (u, v) { return v == null ? '–' : fmtBytes(v); }};
    for (var k in d[4]) s[k] = d[4][k];
    series.push(s);
  });
  return series;
}
/** A uPlot chart over the run's time in seconds: the bytes (and rate) scales from zero, the live legend, a drag across
 * it selecting the page's time window (when the report has per-stack buckets), `draw` over the series. */
function timePlot(box, height, series, axes, data, selectable, draw) {
  function fromZero(u, lo, hi) { return [0, hi > 0 ? hi * 1.08 : 1]; }
  return new uPlot({
    width: Math.max(400, box.clientWidth || 1000), height: height,
    scales: {x: {time: false}, bytes: {range: fromZero}, rate: {range: fromZero}},
    series: series, axes: axes,
    cursor: {drag: {x: selectable, y: false, setScale: false}, y: false},
    legend: {live: true},
    hooks: {
      setSelect: [function (u) {
        if (!selectable) return;
        if (u.select.width < 3) { setWindow(null); return; }
        var from = u.posToVal(u.select.left, 'x'), to = u.posToVal(u.select.left + u.select.width, 'x');
        setWindow({fromMs: Math.max(0, from * 1000), toMs: to * 1000});
      }],
      draw: [draw]
    }
  }, data, box);
}

/** uPlot's axes: seconds at 1-2-5 steps, bytes at powers of two (and the allocation rate on the right). */
function chartAxes(withRate) {
  var secIncrs = [];
  for (var e = -3; e < 6; e++) {
    [1, 2, 5].forEach(function (m) { secIncrs.push(m * Math.pow(10, e)); });
  }
  var incrs = [];
  for (var p = 0; p < 6; p++) {
    [1, 2, 4, 8, 16, 32, 64, 128, 256, 512].forEach(function (m) { incrs.push(m * Math.pow(1024, p)); });
  }
  var axes = [
    {incrs: secIncrs, stroke: '#5d6676', grid: {stroke: '#eef0f3'},
      values: function (u, vals, ax, space, incr) {
        var dec = Math.max(0, Math.min(3, -Math.floor(Math.log10(incr) + 1e-9)));
        return vals.map(function (v) { return v.toFixed(dec) + ' s'; });
      }},
    {scale: 'bytes', size: 74, incrs: incrs, values: function (u, vals) { return vals.map(fmtBytes); }, stroke: '#5d6676', grid: {stroke: '#eef0f3'}}
  ];
  if (withRate) axes.push({scale: 'rate', side: 1, size: 84, grid: {show: false}, stroke: '#8a76b8', incrs: incrs,
    values: function (u, vals) { return vals.map(function (v) { return fmtBytes(v) + '/s'; }); }});
  return axes;
}
function peakMarker(gcs) {
  var t = D.totals || {};
  if (D.peak && D.peak.timeMs >= 0) return {timeMs: D.peak.timeMs, what: 'peak held ' + fmtBytes(D.peak.estimatedBytes || t.peakHeldBytes)};
  if (t.peakTimeMs >= 0) return {timeMs: t.peakTimeMs, what: 'peak held ' + fmtBytes(t.peakHeldBytes)};
  var best = null;
  gcs.forEach(function (g) { if (!best || g.usedAfterBytes > best.usedAfterBytes) best = g; });
  return best && best.usedAfterBytes > 0 ? {timeMs: best.timeMs + best.durationMs, what: 'most heap held after a GC, ' + fmtBytes(best.usedAfterBytes)} : null;
}
function drawMarks(u, pauses, peak, wholeHeap) {
  var ctx = u.ctx, dpr = window.devicePixelRatio || 1, bottom = u.bbox.top + u.bbox.height;
  ctx.save();
  ctx.fillStyle = 'rgba(232,100,60,.85)';
  (wholeHeap || []).forEach(function (g) {
    var x = u.valToPos((g.timeMs + g.durationMs) / 1000, 'x', true);
    ctx.beginPath();
    ctx.arc(x, bottom - 10 * dpr, 3 * dpr, 0, 2 * Math.PI);
    ctx.fill();
  });
  ctx.fillStyle = 'rgba(192,57,43,.6)';
  pauses.forEach(function (g) {
    var x0 = u.valToPos(g.timeMs / 1000, 'x', true), x1 = u.valToPos((g.timeMs + g.durationMs) / 1000, 'x', true);
    var h = Math.min(20, 4 + 2.4 * Math.log2(1 + g.durationMs)) * dpr;
    ctx.fillRect(x0, bottom - h, Math.max(2 * dpr, x1 - x0), h);
  });
  if (peak) {
    var px = u.valToPos(peak.timeMs / 1000, 'x', true);
    ctx.strokeStyle = '#b3401c';
    ctx.lineWidth = 1.2 * dpr;
    ctx.setLineDash([4 * dpr, 3 * dpr]);
    ctx.beginPath(); ctx.moveTo(px, u.bbox.top); ctx.lineTo(px, bottom); ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = '#b3401c';
    ctx.font = (11 * dpr) + 'px system-ui, sans-serif';
    var text = peak.what, tw = ctx.measureText(text).width;
    var tx = px + 5 * dpr > u.bbox.left + u.bbox.width - tw ? px - tw - 5 * dpr : px + 5 * dpr;
    ctx.fillText(text, tx, u.bbox.top + 12 * dpr);
  }
  ctx.restore();
}

function setWindow(w) {
  state.window = w;
  if (w && state.scope) { state.scope = null; if ($('flame-scope')) $('flame-scope').value = ''; }
  if (w && !metric().windowed) state.metric = 'allocBytes';
  state.zoomPath = null;
  var lab = $('window-label'), btn = $('window-clear');
  if (w) {
    lab.textContent = 'Time range ' + fmtSec(w.fromMs / 1000) + ' – ' + fmtSec(w.toMs / 1000) + ': the flame graph and the site tables show what was allocated in it.';
    btn.hidden = false;
  } else {
    lab.textContent = '';
    btn.hidden = true;
    if (plot && plot.select.width > 0) plot.setSelect({left: 0, top: 0, width: 0, height: 0}, false);
  }
  syncButtons();
  renderFlame();
  renderTables();
}
