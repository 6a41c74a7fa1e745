/* memscope report.html, module "diff-page" (diff page only): the comparison of two runs: header, cards, largest
 * changes and the table of sites by change (the differential flame graph is "flame"'s). */
function renderDiffHeader() {
  var meta = D.meta || {}, b = meta.base || {}, n = meta['new'] || {};
  $('page-kind').textContent = 'comparison of two runs';
  $('command').textContent = n.command || b.command || '';
  document.title = 'memscope diff: ' + (n.label || '');
  var facts = $('facts');
  function fact(k, v) { if (v != null && v !== '') facts.appendChild(el('div', null, el('dt', null, k), el('dd', null, String(v)))); }
  function run(r) {
    return (r.label || '') + ' (' + fmtMs(r.durationMs) + (r.startEpochMs > 0
      ? ', ' + new Date(r.startEpochMs).toISOString().replace('T', ' ').substring(0, 16) + ' UTC' : '') + ')';
  }
  fact('base', run(b));
  fact('new', run(n));
  fact('compared', meta.metricLabel);
  if (meta.normalized) fact('normalized', meta.per ? 'per ' + meta.per : 'per second of run');
}

function renderDiffCards() {
  var t = D.totals || {}, box = $('totals');
  var base = t.baseBytes || 0, now = t.newBytes || 0, delta = now - base;
  var sites = D.diffSites || [];
  function card(label, value, sub, cls, id) {
    box.appendChild(el('div', {className: 'card' + (cls ? ' ' + cls : ''), id: id},
      el('div', {className: 'label'}, label), el('div', {className: 'value'}, value), sub ? el('div', {className: 'sub'}, sub) : null));
  }
  card('Base run', fmtBytes(base), D.meta.metricLabel, null, 'card-base');
  card('New run', fmtBytes(now), D.meta.metricLabel, null, 'card-new');
  var sig = t.significant !== false;
  card('Change', signed(delta), (base > 0 ? signedPct(delta / base) + ' of the base run, ' : '')
    + (sig ? 'more than sampling noise' : 'within sampling noise') + (t.noiseBytes > 0 ? ' (±' + fmtBytes(t.noiseBytes) + ')' : ''),
    !sig || delta === 0 ? 'noise' : delta > 0 ? 'bad' : 'good', 'card-change');
  card('Sites', sites.filter(function (x) { return x.significant !== false && x.deltaBytes > 0; }).length + ' grew',
    sites.filter(function (x) { return x.significant !== false && x.deltaBytes < 0; }).length + ' shrank, '
    + sites.filter(function (x) { return x.significant === false; }).length + ' within noise, ' + sites.length + ' compared', null, 'card-sites');
}

function renderDiffProblems() {
  var ul = $('problems'), sites = (D.diffSites || []).map(function (x, i) { return {s: x, i: i}; });
  $('problems-section').querySelector('h2').textContent = 'Largest changes';
  function items(tag, list) {
    list.forEach(function (x) {
      ul.appendChild(el('li', {className: x.s.deltaBytes < 0 ? 'shrink' : null}, el('span', {className: 'tag'}, tag),
        el('span', {className: 'what'}, el('a', {href: '#diff-' + x.i}, x.s.site), el('span', {className: 'type'}, typeName(x.s.type))),
        el('span', {className: 'fig'}, signed(x.s.deltaBytes) + ' (' + fmtBytes(x.s.baseBytes) + ' → ' + fmtBytes(x.s.newBytes) + ')')));
    });
  }
  items('Grew', sites.filter(function (x) { return x.s.significant !== false && x.s.deltaBytes > 0; })
    .sort(function (a, b) { return b.s.deltaBytes - a.s.deltaBytes; }).slice(0, 5));
  items('Shrank', sites.filter(function (x) { return x.s.significant !== false && x.s.deltaBytes < 0; })
    .sort(function (a, b) { return a.s.deltaBytes - b.s.deltaBytes; }).slice(0, 3));
  if (!ul.firstChild) {
    ul.appendChild(el('li', {className: 'none'}, sites.some(function (x) { return x.s.deltaBytes !== 0; })
      ? 'No site changed by more than sampling noise.' : 'No site changed.'));
  }
}

function renderDiffTables() {
  var box = $('tables'), sites = D.diffSites || [];
  var t = makeTable({
    id: 'diff', title: 'Sites by change',
    intro: 'Every compared site, largest absolute change first. A change is “noise” when sampling alone explains it: '
      + 'each change is tested against the sampling noise of both runs (false alarms in at most '
      + fmtPct((D.meta.noise || {}).falseAlarmRate || 0.05) + ' of comparisons of two runs of the same program). '
      + 'Samples: the sampled objects behind each figure. Click a column to sort, type to filter.',
    rows: sites, sort: {key: 'abs', dir: 'descending'},
    rowId: function (x) { return 'diff-' + sites.indexOf(x); },
    columns: function () {
      return siteColumns().concat([
        col('baseBytes', 'Base', 'bytes', function (x) { return x.baseBytes; }),
        col('newBytes', 'New', 'bytes', function (x) { return x.newBytes; }),
        col('deltaBytes', 'Change', 'signed', function (x) { return x.deltaBytes; }),
        col('pct', 'Change %', 'pct', function (x) { return x.baseBytes > 0 ? x.deltaBytes / x.baseBytes : null; }),
        col('abs', '|Change|', 'bytes', function (x) { return Math.abs(x.deltaBytes); }),
        col('samples', 'Samples', 'text', function (x) { return x.baseSamples + ' → ' + x.newSamples; },
          {hidden: !((D.meta.noise || {}).baseFactor || (D.meta.noise || {}).newFactor), help: 'sampled objects behind the base and new figures'}),
        col('verdict', 'Verdict', 'text', function (x) { return x.verdict; },
          {help: 'grew, shrank, new, gone: more than sampling noise; noise: within it'})
      ]);
    },
    stack: siteStack, empty: 'No site to compare.'
  });
  box.appendChild(t.panel);
}
