/* memscope report.html, module "report-page" (report page only): header, total cards, problems found, and the GC,
 * accounting and failure sections. */
function renderHeader() {
  var meta = D.meta || {};
  $('command').textContent = meta.command || (isDiff ? '' : '(command unknown)');
  document.title = 'memscope: ' + (meta.command ? meta.command.split(/\s+/)[0] : 'report');
  if (isDiff) $('page-kind').textContent = 'comparison of two runs';
  var facts = $('facts');
  function fact(k, v) { if (v != null && v !== '') facts.appendChild(el('div', null, el('dt', null, k), el('dd', null, String(v)))); }
  fact('pid', meta.pid);
  fact('JVM', meta.jvm);
  fact('mode', meta.mode === 'exact' ? 'exact (every allocation counted)'
    : 'sampled, 1 per ' + fmtBytes(meta.intervalBytes) + ' on average' + (meta.sampler ? ' (' + meta.sampler + ')' : ''));
  fact('duration', fmtMs(meta.durationMs));
  if (meta.startEpochMs > 0) fact('started', new Date(meta.startEpochMs).toISOString().replace('T', ' ').substring(0, 19) + ' UTC');
  if (meta.attached) fact('attached', 'yes (started after the JVM)');
}

function renderCards() {
  var t = D.totals || {}, box = $('totals');
  function card(label, value, sub, bad, id) {
    box.appendChild(el('div', {className: 'card' + (bad ? ' bad' : ''), id: id},
      el('div', {className: 'label'}, label), el('div', {className: 'value'}, value), sub ? el('div', {className: 'sub'}, sub) : null));
  }
  card('Allocated', t.exact ? fmtBytes(t.allocatedBytes) : fmtEstBytes(t.allocatedBytes, estError(t.allocatedBytes)),
    (t.exact ? fmtCount(t.allocatedObjects) : fmtEstCount(t.allocatedObjects, t.allocatedBytes)) + ' objects'
    + (t.exact ? ', exact' + (t.exactCoverageShare != null ? ': ' + fmtPct(t.exactCoverageShare) + ' of what the JVM allocated' : '')
      : ', estimated from ' + fmtCount(t.samples) + ' samples'), false, 'card-allocated');
  if (t.exactCoverageCounted) $('card-allocated').title = 'exact mode counts ' + t.exactCoverageCounted;
  card('Held at end', fmtEstBytes(t.heldAtEndBytes, estError(t.heldAtEndBytes)), 'reachable at the last GC', false, 'card-held');
  var peakSub = t.peakTimeMs >= 0 ? 'at ' + fmtSec(t.peakTimeMs / 1000)
    : (D.definitions && D.definitions['Peak held'] ? 'estimate, see “Peak held” below' : 'estimate');
  if (D.peak && D.peak.heapUsedAfterGcBytes) peakSub += ', heap after that GC ' + fmtBytes(D.peak.heapUsedAfterGcBytes);
  card('Peak held', fmtEstBytes(t.peakHeldBytes, estError(t.peakHeldBytes)), peakSub, false, 'card-peak');
  card('Native outstanding', fmtBytes(t.nativeOutstandingBytes),
    plural(t.nativeOutstandingBlocks, 'block') + ', peak ' + fmtBytes(t.nativePeakBytes)
    + (t.nativePeakTimeMs >= 0 ? ' at ' + fmtSec(t.nativePeakTimeMs / 1000) : '')
    + (t.mallocOutstandingBytes > 0 ? '; of it malloc ' + fmtEstBytes(t.mallocOutstandingBytes,
      estError(t.mallocOutstandingBytes, MALLOC_INTERVAL))
      + (MALLOC_INTERVAL > 0 ? ' (estimated from samples)' : ' (every call recorded)') : ''),
    (D.sites || []).some(function (s) { return s.nativeLeak; }), 'card-native');
  card('GC', fmtCount(t.gcCount) + ' collections', fmtCount(t.gcPauseCount) + ' pauses, ' + fmtMs(t.gcPauseTotalMs) + ' in total, max ' + fmtMs(t.gcPauseMaxMs), false, 'card-gc');
}

function renderProblems() {
  var ul = $('problems'), sites = D.sites || [], n = 0;
  function item(tag, text, fig, href, type) {
    n++;
    ul.appendChild(el('li', null, el('span', {className: 'tag'}, tag),
      el('span', {className: 'what'}, el('a', {href: href}, text), type != null ? el('span', {className: 'type'}, typeName(type)) : null),
      el('span', {className: 'fig'}, fig)));
  }
  var MAX = 5;
  function list(tag, keep, order, fig, anchor, tableId) {
    var rows = sites.map(function (s, i) { return {s: s, i: i}; }).filter(function (x) { return keep(x.s); })
      .sort(function (a, b) { return order(b.s) - order(a.s); });
    rows.slice(0, MAX).forEach(function (x) { item(tag, x.s.site, fig(x.s), '#' + anchor + x.i, x.s.type); });
    if (rows.length > MAX) item(tag, (rows.length - MAX) + ' more', '', '#' + tableId);
  }
  list('Leak suspect', function (s) { return s.leak; }, function (s) { return s.growthBytes; },
    function (s) { return fmtBytes(s.heldBytes) + ' held, +' + fmtBytes(s.growthBytes) + ' growth'; }, 'site-leaks-', 'leaks');
  list('Temporaries', function (s) { return s.temporary; }, function (s) { return s.allocBytes; },
    function (s) {
      return fmtBytes(s.allocBytes) + ' allocated, ' + (s.freedByFirstCollectionShare >= 0
        ? fmtPct(s.freedByFirstCollectionShare) + ' freed by the first GC after their allocation' : 'mostly collected');
    }, 'site-temps-', 'temporaries');
  list('Native leak', function (s) { return s.native && s.nativeLeak; }, function (s) { return s.growthBytes; },
    function (s) { return fmtBytes(s.nativeBytes) + ' in ' + plural(s.nativeBlocks, 'block') + ', +' + fmtBytes(s.growthBytes) + ' growth'; }, 'site-native-', 'native');
  var pl = D.poolLeaks || [];
  pl.slice(0, MAX).forEach(function (l, i) {
    item('Pool leak', l.pool + ': ' + (l.kind === 'unreachable' ? 'lease lost while borrowed' : 'lease never returned'),
      (l.resourceType ? l.resourceType + ', ' : '') + 'borrowed at ' + fmtSec(l.borrowedAtMs / 1000), '#pool-leak-' + i);
  });
  if (pl.length > MAX) item('Pool leak', (pl.length - MAX) + ' more', '', '#pool-leaks');
  var sa = D.scopeAnomalies || {};
  if (Object.keys(sa).length) {
    item('Scope anomaly', Object.keys(sa).map(function (k) { return sa[k] + ' × ' + k; }).join(', '), '', '#scope-anomalies');
  }
  var an = D.anomalies || [];
  if (an.length) {
    var kinds = {};
    an.forEach(function (a) { kinds[a.kind] = (kinds[a.kind] || 0) + 1; });
    item('Native anomaly', Object.keys(kinds).map(function (k) { return kinds[k] + ' × ' + k; }).join(', '), '', '#anomalies');
  }
  var meta = D.meta || {};
  if (meta.recordingClosed === false) item('Recording', 'not closed: the JVM was killed, crashed or is still running; the report covers what it holds', '', '#notes');
  else if (meta.recordingDamage) item('Recording', 'damaged: ' + meta.recordingDamage, '', '#notes');
  var t = D.totals || {};
  if (t.unconfirmedAtEndBytes >= 1048576 && t.unconfirmedAtEndBytes * 10 >= (t.heldAtEndBytes || 0) + t.unconfirmedAtEndBytes) {
    item('Unconfirmed', fmtBytes(t.unconfirmedAtEndBytes) + ' present at the end that no collection of the whole heap judged: '
      + 'it may be garbage, not counted as held', '', '#notes');
  }
  if (D.heapCheck && D.heapCheck.consistent === false) {
    if (D.heapCheck.heldExceeded > 0) item('Contradiction', 'held above the heap the JVM reported at ' + plural(D.heapCheck.heldExceeded, 'collection') + ': impossible, so held figures near them are not facts', '', '#notes');
    else item('Contradiction', 'sampled objects above the heap the JVM reported at ' + plural(D.heapCheck.exceeded, 'collection') + ': unconfirmed figures there are wrong; held stayed within the heap', '', '#notes');
  }
  if (t.gcPauseMaxMs >= 200) item('Long GC pause', 'longest pause ' + fmtMs(t.gcPauseMaxMs), fmtCount(t.gcPauseCount) + ' pauses', '#gc');
  if (D.failures && D.failures.count > 0) item('memscope failures', (D.failures.messages || [])[0] || 'see below', fmtCount(D.failures.count), '#failures');
  if (!n) ul.appendChild(el('li', {className: 'none'}, 'No leak suspects, temporaries, native leaks or pool leaks found.'));
}
function renderGc(box) {
  var gc = D.gc || {};
  var panel = el('section', {className: 'panel', id: 'gc'});
  panel.appendChild(el('h2', null, 'Garbage collection'));
  var p = gc.pausePercentilesMs || {};
  var cards = el('div', {className: 'pcts'});
  [['pauses', fmtCount(p.count)], ['p50', fmtMs(p.p50)], ['p90', fmtMs(p.p90)], ['p99', fmtMs(p.p99)], ['max', fmtMs(p.max)],
    ['total', fmtMs((D.totals || {}).gcPauseTotalMs)]].forEach(function (c) {
    cards.appendChild(el('div', {className: 'card'}, el('div', {className: 'label'}, c[0]), el('div', {className: 'value'}, c[1])));
  });
  panel.appendChild(cards);
  box.appendChild(panel);
  var by = makeTable({
    id: 'gc-collectors', title: 'Collections by collector', filter: false,
    rows: gc.byCollector || [], sort: {key: 'totalMs', dir: 'descending'},
    columns: function () {
      return [
        col('name', 'Collector', 'text', function (c) { return c.name; }),
        col('count', 'Collections', 'count', function (c) { return c.count; }),
        col('totalMs', 'Total time', 'ms', function (c) { return c.totalMs; }),
        col('maxMs', 'Longest', 'ms', function (c) { return c.maxMs; })
      ];
    },
    empty: 'No collection happened while memscope recorded.'
  });
  box.appendChild(by.panel);
  var list = makeTable({
    id: 'gc-list', title: 'Collections', pageSize: 12,
    rows: gc.collections || [], sort: {key: 'durationMs', dir: 'descending'},
    columns: function () {
      return [
        col('timeMs', 'Time', 'sec', function (c) { return c.timeMs / 1000; }),
        col('name', 'Collector', 'text', function (c) { return c.name; }),
        col('cause', 'Cause', 'text', function (c) { return c.cause; }),
        col('durationMs', 'Duration', 'ms', function (c) { return c.durationMs; }),
        col('pause', 'Pause', 'text', function (c) { return c.pause ? 'yes' : 'concurrent'; }),
        col('usedBeforeBytes', 'Heap before', 'bytes', function (c) { return c.usedBeforeBytes; }),
        col('usedAfterBytes', 'Heap after', 'bytes', function (c) { return c.usedAfterBytes; }),
        col('committedBytes', 'Committed', 'bytes', function (c) { return c.committedBytes; })
      ];
    },
    empty: 'No collection happened while memscope recorded.'
  });
  box.appendChild(list.panel);
}

function renderAccounting(box) {
  (D.accounting || []).forEach(function (t, i) {
    var cols = (t.columns || []).map(function (c, j) {
      return col('c' + j, c.name, c.unit === 'bytes' ? 'bytes' : (c.unit === 'count' ? 'count' : 'text'), function (r) { return r[j]; });
    });
    box.appendChild(makeTable({
      id: 'accounting-' + i, title: 'Accounting: ' + t.title, rows: t.rows || [],
      sort: {key: t.sort != null && t.sort < cols.length ? 'c' + t.sort : (cols.length > 1 ? 'c1' : 'c0'), dir: 'descending'},
      intro: t.intro || null, columns: function () { return cols; }
    }).panel);
  });
}

function renderFailures(box) {
  var f = D.failures;
  if (!f || !f.count) return;
  var panel = el('section', {className: 'panel', id: 'failures'});
  panel.appendChild(el('h2', null, 'memscope failures inside the JVM: ' + fmtCount(f.count)));
  panel.appendChild(el('p', {className: 'hint'}, 'memscope counted these and carried on; figures near them may be incomplete.'));
  var ul = el('ul');
  (f.messages || []).forEach(function (m) { ul.appendChild(el('li', {className: 'code'}, m)); });
  panel.appendChild(ul);
  box.appendChild(panel);
}
