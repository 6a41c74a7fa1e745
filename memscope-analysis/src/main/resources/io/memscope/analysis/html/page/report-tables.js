/* memscope report.html, module "report-tables" (report page only): the site tables (every site, held at the peak, leak
 * suspects, temporaries, native memory, native anomalies), which follow the selected time range. */
var tables = [];
function siteWindowAlloc(site) {
  var win = windowAlloc();
  if (!win) return null;
  var sum = 0;
  (site.stacks || []).forEach(function (s) { sum += win[s]; });
  return sum;
}
/** The site tables (drawn once, redrawn for a time range), then the API, GC, accounting and failure sections. */
function renderTables() {
  if (tables.length) {
    tables.forEach(function (t) { t.redraw(t.windowSort && state.window ? t.windowSort : (!state.window && t.baseSort) || null); });
    return;
  }
  var box = $('tables');
  var sites = D.sites || [];
  tables.push(allSitesTable(sites));
  if (D.peak && D.peak.sites && D.peak.sites.length) tables.push(peakTable(D.peak));
  tables.push(leaksTable(sites), temporariesTable(sites), nativeTable(sites));
  var an = D.anomalies || [];
  if (an.length) tables.push(anomaliesTable(an));
  tables.forEach(function (t) { box.appendChild(t.panel); });
  renderApi(box);
  renderGc(box);
  renderAccounting(box);
  renderFailures(box);
}
/** The column of bytes allocated in the selected time range (hidden without one). */
function windowCol() {
  return col('window', 'Allocated in time range', 'bytes', siteWindowAlloc, {hidden: !state.window});
}
/** With a time range, a site table keeps the sites that allocated in it. */
function keepWindow(s) { return !state.window || siteWindowAlloc(s) > 0; }
function allSitesTable(sites) {
  var anyPeak = sites.some(function (s) { return s.peakBytes > 0; });
  var anyHeldAtPeak = sites.some(function (s) { return s.heldAtPeakBytes > 0; });
  var anyUnconfirmed = sites.some(function (s) { return s.unconfirmedBytes > 0; });
  function unconfirmedCol() {
    return col('unconfirmedBytes', 'Unconfirmed', 'bytes', function (s) { return s.unconfirmedBytes; },
      {hidden: !anyUnconfirmed, help: 'present at the end but judged by no collection that examined the whole heap: '
        + 'it survived only young collections and may be garbage; not counted as held'});
  }
  var heapSites = sites.filter(function (s) { return !s.native; });
  var top = makeTable({
    id: 'sites', title: 'Allocation sites',
    intro: 'Every site the report lists. Click a column to sort, type to filter.',
    rows: heapSites, sort: {key: 'allocBytes', dir: 'descending'}, keep: keepWindow,
    rowId: function (s) { return 'site-all-' + sites.indexOf(s); },
    columns: function () {
      return estimated(siteColumns().concat([
        windowCol(),
        col('allocBytes', 'Allocated', 'bytes', function (s) { return s.allocBytes; }),
        col('allocObjects', 'Objects', 'count', function (s) { return s.allocObjects; }),
        col('heldBytes', 'Held at end', 'bytes', function (s) { return s.heldBytes; },
          {help: 'reachable at the last collection that examined the whole heap, and not collected since'}),
        unconfirmedCol(),
        col('heldAtPeakBytes', 'Held at peak', 'bytes', function (s) { return s.heldAtPeakBytes; },
          {hidden: !anyHeldAtPeak, help: 'held at the run’s peak collection'}),
        col('peakBytes', 'Own peak', 'bytes', function (s) { return s.peakBytes; },
          {hidden: !anyPeak, help: 'the site’s own highest held bytes at any collection'}),
        col('samples', 'Samples', 'count', function (s) { return s.samples; },
          {help: 'sampled objects allocated at the site: the estimates rest on them (~: rounded to their precision)'}),
        col('liveSamples', 'Samples held', 'count', function (s) { return s.liveSamples; },
          {help: 'sampled objects behind “held at end”'})
      ]));
    },
    stack: siteStack, empty: 'No heap allocation was sampled.'
  });
  top.windowSort = {key: 'window', dir: 'descending'};
  top.baseSort = {key: 'allocBytes', dir: 'descending'};
  return top;
}
function peakTable(p) {
  return makeTable({
    id: 'peak', title: 'Held at the peak',
    intro: 'At ' + fmtSec(p.timeMs / 1000) + ', after ' + (p.gcName || 'a collection') + (p.gcCause ? ' (' + p.gcCause + ')' : '')
      + ', a collection that examined the whole heap, the heap held ' + fmtBytes(p.heapUsedAfterGcBytes)
      + ', the most of such collections; sampled objects say ' + fmtBytes(p.estimatedBytes)
      + ' of it was reachable, held by these sites'
      + (p.unconfirmedBytes > 0 ? ' (and ' + fmtBytes(p.unconfirmedBytes) + ' present but unconfirmed).' : '.'),
    rows: p.sites, sort: {key: 'bytes', dir: 'descending'}, filter: false,
    columns: function () {
      return estimated(siteColumns().concat([
        col('bytes', 'Held', 'bytes', function (h) { return h.bytes; }),
        col('count', 'Objects', 'count', function (h) { return h.count; }),
        col('share', 'Share of the estimate', 'share', function (h) { return p.estimatedBytes > 0 ? h.bytes / p.estimatedBytes : null; }),
        col('samples', 'Samples', 'count', function (h) { return h.samples; })
      ]));
    },
    stack: function (h) { return h.stack; }
  });
}
function leaksTable(sites) {
  return makeTable({
    id: 'leaks', title: 'Leak suspects',
    intro: 'Sites whose held (reachable) bytes grew at collections that examined the whole heap: measured at three of them '
      + '(a third and two thirds of the way from the site’s first allocation to the last one, and the last one), each step by more '
      + 'than twice its sampling error, the whole by at least a quarter of what it holds at the end. Growth: held bytes gained '
      + 'from the first of the three to the end.',
    rows: sites.filter(function (s) { return s.leak; }), sort: {key: 'growthBytes', dir: 'descending'}, keep: keepWindow,
    rowId: function (s) { return 'site-leaks-' + sites.indexOf(s); },
    columns: function () {
      return estimated(siteColumns().concat([
        windowCol(),
        col('heldBytes', 'Held at end', 'bytes', function (s) { return s.heldBytes; }),
        col('growthBytes', 'Growth', 'bytes', function (s) { return s.growthBytes; }),
        col('growthPath', 'Held at the three collections', 'text', function (s) {
          var g = s.growth;
          return g ? fmtBytes(g.firstBytes) + ' at ' + fmtSec(g.firstMs / 1000) + ' → ' + fmtBytes(g.secondBytes) + ' at '
            + fmtSec(g.secondMs / 1000) + ' → ' + fmtBytes(g.endBytes) + ' at ' + fmtSec(g.endMs / 1000) : '';
        }),
        col('heldObjects', 'Objects held', 'count', function (s) { return s.heldObjects; }),
        col('allocBytes', 'Allocated', 'bytes', function (s) { return s.allocBytes; })
      ]));
    },
    stack: siteStack, empty: 'No leak suspect: nothing kept growing until the end.'
  });
}
function temporariesTable(sites) {
  return makeTable({
    id: 'temporaries', title: 'Temporaries',
    intro: 'Sites that allocated much and kept little: memory that only churns (string concatenation in a loop, copies).',
    rows: sites.filter(function (s) { return s.temporary; }), sort: {key: 'allocBytes', dir: 'descending'}, keep: keepWindow,
    rowId: function (s) { return 'site-temps-' + sites.indexOf(s); },
    columns: function () {
      return estimated(siteColumns().concat([
        windowCol(),
        col('allocBytes', 'Allocated', 'bytes', function (s) { return s.allocBytes; }),
        col('allocObjects', 'Objects', 'count', function (s) { return s.allocObjects; }),
        col('heldBytes', 'Held at end', 'bytes', function (s) { return s.heldBytes; }),
        col('freedByFirstCollectionShare', 'Survived no GC', 'share', function (s) { return s.freedByFirstCollectionShare >= 0 ? s.freedByFirstCollectionShare : null; },
          {help: 'share of the collected samples freed by the first collection after their allocation: dead within one collection interval'}),
        col('medianAgeAtCollectionMs', 'Median age at GC', 'ms', function (s) { return s.medianAgeAtCollectionMs; },
          {help: 'allocation to the collection that freed the object: an upper bound of its lifetime, about the time between collections for objects that die young'})
      ]));
    },
    stack: siteStack, empty: 'No temporaries found.'
  });
}
/** A native column's precision: malloc rows are estimates at the malloc interval, other rows exact. */
function sampledNative(key) {
  return {est: function (s) { return s.nativeSampled ? s[key] : 0; },
    estInterval: function (s) { return s.nativeSampled ? MALLOC_INTERVAL : 0; }};
}
function nativeTable(sites) {
  return makeTable({
    id: 'native', title: 'Native memory outstanding',
    intro: 'Native memory (direct buffers, Unsafe, arenas; malloc when tracked) allocated while memscope tracked it and not freed at the end, by allocation site. '
      + 'A leak suspect is outstanding and growing (the rule of heap leaks); memory a pool took once and reuses is outstanding, not growing. '
      + 'Malloc figures are estimated from samples (~: rounded to their precision); the others are exact.',
    rows: sites.filter(function (s) { return s.native && s.nativeBytes > 0; }), sort: {key: 'nativeBytes', dir: 'descending'},
    rowId: function (s) { return 'site-native-' + sites.indexOf(s); },
    columns: function () {
      return siteColumns().concat([
        col('nativeBytes', 'Outstanding', 'bytes', function (s) { return s.nativeBytes; }, sampledNative('nativeBytes')),
        col('nativeBlocks', 'Blocks', 'count', function (s) { return s.nativeBlocks; }, sampledNative('nativeBytes')),
        col('growthBytes', 'Growth', 'bytes', function (s) { return s.growthBytes; },
          Object.assign({help: 'outstanding bytes gained over the second half of the site’s allocation window'},
            sampledNative('growthBytes'))),
        col('samples', 'Samples', 'count', function (s) { return s.nativeSampled ? s.liveSamples : null; },
          {help: 'malloc: the sampled blocks outstanding behind the estimate (other native memory is exact)'}),
        col('nativeLeak', 'Leak suspect', 'text', function (s) { return s.nativeLeak ? 'yes: growing' : 'no: not growing'; })
      ]);
    },
    stack: siteStack, empty: 'No native memory outstanding at the end.'
  });
}
function anomaliesTable(an) {
  return makeTable({
    id: 'anomalies', title: 'Native memory anomalies',
    intro: 'Frees memscope refused to pass on or could not match: double frees and frees of unknown addresses.',
    rows: an, sort: {key: 'timeMs', dir: 'ascending'},
    columns: function () {
      return [
        col('kind', 'Kind', 'text', function (a) { return a.kind; }),
        col('address', 'Address', 'text', function (a) { return fmtHex(a.address); }, {code: true}),
        col('size', 'Size', 'bytes', function (a) { return a.size; }),
        col('timeMs', 'Time', 'sec', function (a) { return a.timeMs / 1000; })
      ];
    },
    stack: function (a) { return a.stack; }
  });
}
