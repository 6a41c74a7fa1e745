/* memscope report.html, module "process-memory" (report page only): the process's resident set over time, stacked by
 * part (heap, metaspace, code cache, thread stacks, direct buffers, malloc, files, other), the heap in use as a
 * line over it, GC pauses and whole-heap collections marked as on the chart above; dragging selects a time range as
 * there. Each sample's value holds until the next sample (steps); where two samples are more than two intervals
 * apart nothing was measured and nothing is drawn (a gap). */
var processPlot = null;
var PROCESS_PARTS = [
  ['heapBytes', 'Heap', '#9db8e6'],
  ['metaspaceBytes', 'Metaspace', '#b9a3df'],
  ['codeCacheBytes', 'Code cache', '#e3b7d6'],
  ['threadStacksBytes', 'Thread stacks', '#f2c98f'],
  ['directBytes', 'Direct buffers', '#8fd1a8'],
  ['mallocBytes', 'Malloc', '#6fbfb6'],
  ['filesBytes', 'Files (code, CDS, mapped)', '#c9d3a0'],
  ['otherBytes', 'Other (RSS not explained)', '#d5d9e0']
];
function renderProcessMemory() {
  var pm = D.processMemory;
  var box = $('process-chart'), note = $('process-chart-note');
  if (!pm || !pm.timeMs || !pm.timeMs.length) return;
  box.hidden = false;
  note.hidden = false;
  var gapMs = 2 * Math.max(pm.intervalMs || 0, 1);
  // x in seconds, with a null row inserted into every gap, so that steps and fills stop there
  var xs = [], rows = [];
  pm.timeMs.forEach(function (t, i) {
    if (i > 0 && t - pm.timeMs[i - 1] > gapMs && !pm.downsampled) {
      xs.push((pm.timeMs[i - 1] + pm.intervalMs) / 1000);
      rows.push(-1);
    }
    xs.push(t / 1000);
    rows.push(i);
  });
  // The memory chart's time axis, held by a null row at either end: the process samples may start after that chart's
  // first point (the sampler's first tick) and end before its last (the end's collections and heap walk pause the
  // sampler), and a moment should sit at the same place in both charts
  var main = $('chart') && $('chart').plot, mainXs = main && main.data && main.data[0];
  if (mainXs && mainXs.length) { // its x values ascend; its axis spans them (uPlot's scales are set a moment later)
    if (mainXs[0] < xs[0]) { xs.unshift(mainXs[0]); rows.unshift(-1); }
    if (mainXs[mainXs.length - 1] > xs[xs.length - 1]) { xs.push(mainXs[mainXs.length - 1]); rows.push(-1); }
  }
  function col(key) {
    var c = pm[key];
    return rows.map(function (i) { return i < 0 || !c ? null : c[i]; });
  }
  var parts = PROCESS_PARTS.filter(function (p) { return pm[p[0]] && pm[p[0]].some(function (v) { return v != null; }); });
  // stacked: series k is the sum of parts 0..k; drawn top part first so that each lower fill paints over it
  var sums = [];
  parts.forEach(function (p, k) {
    var own = col(p[0]);
    sums.push(own.map(function (v, j) {
      if (rows[j] < 0) return null;
      var below = k > 0 ? sums[k - 1][j] : 0;
      return (below == null ? 0 : below) + (v == null ? 0 : v);
    }));
  });
  var data = [xs], series = [{label: 'time', value: function (u, v) { return v == null ? '–' : fmtSec(v); }}];
  for (var k = parts.length - 1; k >= 0; k--) {
    (function (p) {
      var own = col(p[0]);
      data.push(sums[k]);
      series.push({label: p[1], stroke: p[2], fill: p[2], width: 0, scale: 'bytes', spanGaps: false,
        points: {show: false}, paths: uPlot.paths.stepped({align: 1}),
        value: function (u, v, si, i) { return i == null || own[i] == null ? '–' : fmtBytes(own[i]); }});
    })(parts[k]);
  }
  var rss = col('rssBytes');
  if (rss.some(function (v) { return v != null; })) {
    data.push(rss);
    series.push({label: 'RSS', stroke: '#39424e', width: 1.4, scale: 'bytes', spanGaps: false, points: {show: false},
      paths: uPlot.paths.stepped({align: 1}), value: function (u, v) { return v == null ? '–' : fmtBytes(v); }});
  }
  data.push(col('heapUsedBytes'));
  series.push({label: 'Heap used', stroke: '#2f6fde', width: 1.6, scale: 'bytes', spanGaps: false, points: {show: false},
    paths: uPlot.paths.stepped({align: 1}), value: function (u, v) { return v == null ? '–' : fmtBytes(v); }});
  var gcs = (D.gc && D.gc.collections) || [];
  var pauses = gcs.filter(function (g) { return g.pause; });
  var wholeHeap = gcs.filter(function (g) { return g.examined === 'whole-heap'; });
  processPlot = timePlot(box, 260, series, chartAxes(false), data, hasBuckets,
    function (u) { drawMarks(u, pauses, null, wholeHeap); });
  box.plot = processPlot; // for the page's tests: what was drawn
  note.textContent = 'The process\'s resident set (RSS) by part, sampled every ' + pm.intervalMs + ' ms'
    + (pm.downsampled ? ' (downsampled: each point is the largest RSS of its stretch)' : '')
    + '. Each sample holds until the next (steps); gaps mark stretches without samples. ' + partsNote(pm)
    + ((pm.parts || {}).malloc === 'glibc' ? ' Malloc is what glibc says is malloc\'d (the JVM\'s own, native '
      + 'libraries\', Unsafe and arenas) less direct buffers;' : ' Malloc is what memscope tracks (Unsafe, arenas);')
    + ' files are file-backed and shared pages (the JVM\'s and '
    + 'libraries\' code, the CDS archive, mapped buffers); other is RSS the parts do not explain (what native '
    + 'libraries malloc, the JVM\'s own structures).';
  window.addEventListener('resize', function () {
    if (processPlot) processPlot.setSize({width: Math.max(400, box.clientWidth), height: 260});
  });
}
/** Which parts are resident figures (the agent's check of /proc/self/smaps) and which committed. */
function partsNote(pm) {
  var p = pm.parts || {}, resident = [], committed = [];
  [['heap', 'heap'], ['codeCache', 'code cache'], ['threadStacks', 'thread stacks'], ['metaspace', 'metaspace'],
    ['direct', 'direct buffers']].forEach(function (x) {
    (p[x[0]] === 'resident' ? resident : committed).push(x[1]);
  });
  var s = (resident.length ? 'Resident (measured in /proc/self/smaps): ' + resident.join(', ') + '. ' : '')
    + 'Committed (may count untouched pages): ' + committed.join(', ') + '.';
  if (p.threadStacks !== 'resident') {
    s += ' Thread stacks are ' + (pm.threadStacks === 'nmt' ? 'NMT\'s figure.' : 'an upper bound (threads × stack size).');
  }
  return s;
}
