/* memscope report.html, module "flame": the flame graph (both pages): colours, search, drawing (SVG, one <g> per
 * frame wide enough to see), tooltip, zoom, and its controls (metric, view, search, scope). */
var ROW = 18;
var MIN_BOX_PX = 1.5;
/* ---------- flame graph: colours ---------- */
function hash(s) {
  var h = 2166136261;
  for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  return h >>> 0;
}
/* A change is significant beyond z standard errors; the variance of each side is bounded by its factor times
 * its figure (sampling interval / divisor; 0 for exact figures): SamplingNoise in the analysis. */
function changeNoise(base, now) {
  var nz = (D.meta && D.meta.noise) || {};
  return (nz.z || 0) * Math.sqrt((nz.baseFactor || 0) * Math.abs(base) + (nz.newFactor || 0) * Math.abs(now));
}
function significantChange(base, now) {
  var noise = changeNoise(base, now), delta = Math.abs(now - base);
  return noise > 0 ? delta > noise : delta >= 1;
}
function frameColor(n) {
  var d = n.data;
  if (d.kind < 0) return '#c7ccd5';
  if (isDiff) {
    var delta = d.now - d.base, scale = Math.max(d.base, d.now, 1);
    var r = Math.min(1, Math.abs(delta) / scale);
    if (Math.abs(delta) < 1) return '#dcdfe4';
    if (!significantChange(d.base, d.now)) {
      // within sampling noise: faded, a hint of the direction only
      return delta > 0 ? '#efe6e4' : '#e4e9f0';
    }
    return delta > 0 ? mixRgb('#f6d5cf', '#c62828', 0.15 + 0.85 * r)
      : mixRgb('#d3e3f7', '#1f5fbf', 0.15 + 0.85 * r);
  }
  var h = hash(d.name), j = (h % 1000) / 1000;
  switch (d.kind) {
    case 0: return 'hsl(' + (10 + 22 * j) + ',78%,' + (57 + 8 * ((h >> 10) % 100) / 100) + '%)';
    case 1: return 'hsl(' + (40 + 12 * j) + ',80%,' + (54 + 9 * ((h >> 10) % 100) / 100) + '%)';
    case 2: return 'hsl(' + (198 + 18 * j) + ',52%,' + (64 + 9 * ((h >> 10) % 100) / 100) + '%)';
    case 4: return 'hsl(' + (95 + 25 * j) + ',35%,' + (58 + 9 * ((h >> 10) % 100) / 100) + '%)';
    default: return 'hsl(' + (262 + 16 * j) + ',45%,' + (73 + 6 * ((h >> 10) % 100) / 100) + '%)';
  }
}

/* ---------- flame graph: search ---------- */
function matcher() {
  var q = state.search.trim();
  if (!q) return null;
  if (q.length > 2 && q[0] === '/' && q[q.length - 1] === '/') {
    try {
      var re = new RegExp(q.substring(1, q.length - 1), 'i');
      return function (name) { return re.test(name); };
    } catch (e) {
      return function () { return false; };
    }
  }
  var lower = q.toLowerCase();
  return function (name) { return name.toLowerCase().indexOf(lower) >= 0; };
}

/* ---------- flame graph: drawing ---------- */
var tree = null;
var treeKey = null;
var tooltip = $('tooltip');

function zoomNode() {
  if (!state.zoomPath) return tree;
  var n = tree;
  for (var i = 1; i < state.zoomPath.length; i++) {
    var k = state.zoomPath[i];
    var next = (n.children || []).filter(function (c) { return c.data.key === k; })[0];
    if (!next) return tree;
    n = next;
  }
  return n;
}

function renderFlame() {
  var box = $('flame');
  // the tree changes with the metric, the view and the time range; zoom and search only redraw it
  var wb = windowBuckets();
  var key = state.metric + '|' + state.view + '|' + (wb ? wb.join('-') : '') + '|' + (state.scope || '');
  if (key !== treeKey) {
    tree = buildTree();
    treeKey = key;
    mark('tree');
  }
  var m = metric();
  var status = clear($('flame-status'));
  if (!tree.value) {
    clear(box).appendChild(el('div', {className: 'empty'}, state.window
      ? 'Nothing was allocated in the selected time range.'
      : state.scope ? 'No sampled object of scope “' + state.scope + '” has a value for “' + m.label + '”.'
      : 'No sampled stack has a value for “' + m.label + '”.'));
    status.appendChild(document.createTextNode(m.label + ': none'));
    box.dataset.frames = '0';
    return;
  }
  var zoom = zoomNode();
  var visible = drawFrames(box, zoom, m);
  box.dataset.frames = String(visible);
  renderFlameStatus(status, zoom, m);
}

/** Draws the frames wide enough to see, one <g> (box and label) per tree node, reusing the node's <g> from the last
 * drawing (zoom and search redraw the same tree); @return how many were drawn. */
function drawFrames(box, zoom, m) {
  var width = Math.max(300, box.clientWidth || 1000);
  var x = linearScale(zoom.x0, zoom.x1, width);
  var visible = [], maxDepth = 0;
  (function visit(n) {
    var x0 = Math.max(0, x(n.x0)), x1 = Math.min(width, x(n.x1));
    if (x1 - x0 < MIN_BOX_PX) return; // slivers are not drawn (nor their children); zoom in to see them
    visible.push(n);
    if (n.depth > maxDepth) maxDepth = n.depth;
    if (n.children) n.children.forEach(visit);
  })(tree);
  var depth = maxDepth + 1; // as tall as what is drawn
  var flameUp = state.view === 'flame';
  var match = matcher();
  var svg = box.querySelector('svg');
  if (!svg) {
    svg = box.appendChild(svgEl('svg', {}));
    svg.addEventListener('click', function (ev) { var n = frameAt(ev); if (n) zoomTo(n); });
    svg.addEventListener('mousemove', function (ev) { var n = frameAt(ev); if (n) showTip(ev, n); else hideTip(); });
    svg.addEventListener('mouseleave', hideTip);
  }
  svg.setAttribute('width', width);
  svg.setAttribute('height', depth * ROW);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', (flameUp ? 'Flame graph of ' : 'Inverted flame graph of ') + m.label);
  Array.prototype.forEach.call(box.querySelectorAll('div.empty'), function (e) { e.remove(); });
  var old = new Map();
  Array.prototype.forEach.call(svg.querySelectorAll('g.frame'), function (g) { old.set(g.memscopeNode.data.uid, g); });
  visible.forEach(function (n) {
    var g = old.get(n.data.uid);
    if (g) old['delete'](n.data.uid);
    else g = svgEl('g', {'class': 'frame'});
    if (!g.firstChild) {
      g.appendChild(svgEl('rect', {}));
      g.appendChild(svgEl('text', {x: 4, y: 12.5}));
    }
    g.memscopeNode = n;
    var x0 = Math.max(0, x(n.x0)), w = Math.min(width, x(n.x1)) - x0;
    g.setAttribute('transform', 'translate(' + x0 + ',' + (flameUp ? (depth - 1 - n.depth) * ROW : n.depth * ROW) + ')');
    g.setAttribute('data-name', n.data.name);
    g.setAttribute('data-kind', n.data.kind);
    g.setAttribute('data-depth', n.depth);
    g.classList.toggle('dim', n.depth < zoom.depth);
    g.classList.toggle('matched', !!(match && n.depth > 0 && match(n.data.name)));
    var rect = g.firstChild;
    rect.setAttribute('width', Math.max(0.4, w));
    rect.setAttribute('height', ROW - 1);
    rect.setAttribute('fill', frameColor(n));
    g.lastChild.textContent = label(n.data.name, w);
    svg.appendChild(g); // in the order of the tree (an existing <g> moves)
  });
  old.forEach(function (g) { g.remove(); });
  return visible.length;
}
/** The tree node of the frame under a pointer event, or null. */
function frameAt(ev) {
  var g = ev.target.closest ? ev.target.closest('g.frame') : null;
  return g ? g.memscopeNode : null;
}
/** A click on a frame zooms into it; on the frame zoomed into (or the root), out to its caller. */
function zoomTo(n) {
  var zoom = zoomNode();
  state.zoomPath = (n === zoom || n.depth === 0) && n.parent ? pathOf(n.parent) : pathOf(n);
  if (n.depth === 0) state.zoomPath = null;
  renderFlame();
}
/** The status line: total, zoom and the search's share. */
function renderFlameStatus(status, zoom, m) {
  var total = tree.value;
  var match = matcher();
  status.appendChild(el('strong', null, isDiff ? 'Width: ' + m.label.toLowerCase() : m.label));
  status.appendChild(document.createTextNode(': ' + fmtValue(m, total) + (state.window ? ' in the selected time range' : '')
    + (state.scope ? ' in scope ' + state.scope + ' (sampled estimate)' : '')
    + ' · ' + fmtCount(NSTACKS) + ' stacks'));
  if (zoom !== tree) {
    status.appendChild(document.createTextNode(' · zoomed into ' + shortFrame(zoom.data.name) + ' (' + fmtPct(zoom.value / total) + ')'));
  }
  if (match) {
    var matched = 0, names = new Set();
    (function walk(n) {
      if (n.depth > 0 && match(n.data.name)) { matched += n.value; names.add(n.data.name); return; }
      if (n.children) n.children.forEach(walk);
    })(tree);
    (function walkAll(n) {
      if (n.depth > 0 && match(n.data.name)) names.add(n.data.name);
      if (n.children) n.children.forEach(walkAll);
    })(tree);
    var span = el('span', {className: 'match', id: 'flame-match'},
      ' · search: ' + names.size + (names.size === 1 ? ' frame' : ' frames') + ' matched, '
      + fmtValue(m, matched) + ' = ' + fmtPct(matched / total) + ' of the total');
    status.appendChild(span);
  }
}

function pathOf(n) { return n.ancestors().reverse().map(function (a) { return a.data.key; }); }

var CHAR_W = 6.3;
function label(name, w) {
  var max = Math.floor((w - 8) / CHAR_W);
  if (max < 3) return '';
  if (name.length <= max) return name;
  var s = shortFrame(name);
  if (s.length <= max) return s;
  return s.substring(0, max - 1) + '…';
}

function showTip(ev, n) {
  var m = metric(), total = tree.value;
  clear(tooltip);
  tooltip.appendChild(el('div', {className: 'name'}, n.data.name));
  function row(k, v) { tooltip.appendChild(el('div', {className: 'row'}, el('span', {className: 'k'}, k), el('span', null, v))); }
  if (n.depth > 0) row('kind', KIND_NAMES[n.data.kind] || '');
  if (n.data.types && n.data.types.size) row('allocated type', Array.from(n.data.types).join(', '));
  if (isDiff) {
    row('base run', fmtBytes(n.data.base));
    row('new run', fmtBytes(n.data.now));
    row('change', signed(n.data.now - n.data.base) + (n.data.base > 0 ? ' (' + signedPct((n.data.now - n.data.base) / n.data.base) + ')' : ''));
    var noise = changeNoise(n.data.base, n.data.now);
    if (D.meta.noise) row('significance', significantChange(n.data.base, n.data.now) ? 'more than sampling noise' + (noise > 0 ? ' (±' + fmtBytes(noise) + ')' : ', exact figures')
      : 'within sampling noise (±' + fmtBytes(noise) + ')');
  } else {
    row(m.label + (state.window ? ' (time range)' : ''), fmtValue(m, n.value));
    if (m.windowed && m.unit === 'bytes' && n.data.objects > 0) row('objects', fmtCount(n.data.objects));
    if (m.windowed && m.unit === 'objects' && n.data.bytes > 0) row('bytes', fmtBytes(n.data.bytes));
  }
  row('share of total', fmtPct(n.value / total));
  if (n.parent) row('share of caller', fmtPct(n.value / n.parent.value));
  tooltip.hidden = false;
  var tx = ev.clientX + 14, ty = ev.clientY + 14;
  var r = tooltip.getBoundingClientRect();
  if (tx + r.width > window.innerWidth - 8) tx = Math.max(8, ev.clientX - r.width - 14);
  if (ty + r.height > window.innerHeight - 8) ty = Math.max(8, ev.clientY - r.height - 14);
  tooltip.style.left = tx + 'px';
  tooltip.style.top = ty + 'px';
}
function hideTip() { tooltip.hidden = true; }

/* ---------- flame graph: controls ---------- */
function initFlame() {
  var metricsBox = $('metrics');
  var firstUsable = null;
  METRICS.forEach(function (m) {
    var total = metricTotal(m);
    var b = el('button', {type: 'button', 'data-metric': m.key, title: m.help || m.label}, m.label);
    m.empty = !(total > 0);
    if (m.empty) { b.disabled = true; b.title = (m.help || m.label) + ': nothing in this report'; }
    else if (!firstUsable) firstUsable = m.key;
    b.addEventListener('click', function () { setMetric(m.key); });
    metricsBox.appendChild(b);
  });
  state.metric = firstUsable || METRICS[0].key;
  var views = $('views');
  [['flame', 'Flame graph', 'callers below, callees above; allocated types on top'],
    ['inverted', 'Inverted (by site)', 'allocation sites on top level, their callers below them']]
    .forEach(function (v) {
      var b = el('button', {type: 'button', 'data-view': v[0], title: v[2]}, v[1]);
      b.addEventListener('click', function () { state.view = v[0]; state.zoomPath = null; syncButtons(); renderFlame(); });
      views.appendChild(b);
    });
  var search = $('flame-search');
  var t = null;
  search.addEventListener('input', function () {
    clearTimeout(t);
    t = setTimeout(function () { state.search = search.value; renderFlame(); }, 120);
  });
  search.addEventListener('keydown', function (e) {
    if (e.key === 'Enter') { clearTimeout(t); state.search = search.value; renderFlame(); }
  });
  $('flame-reset').addEventListener('click', function () { state.zoomPath = null; renderFlame(); });
  if (!isDiff && hasScopeStacks) {
    var select = el('select', {id: 'flame-scope', 'aria-label': 'Restrict to a scope',
      title: 'Only the sampled objects allocated inside a scope (or a scope below it)'});
    select.appendChild(el('option', {value: ''}, 'All samples'));
    (D.scopes || []).map(function (x) { return x.path; }).sort(comparePaths).forEach(function (p) {
      var depth = p.split('/').length - 1;
      select.appendChild(el('option', {value: p}, '\u00a0\u00a0'.repeat(depth) + 'scope ' + p));
    });
    select.addEventListener('change', function () { setScope(select.value || null); });
    $('flame-search').parentNode.parentNode.insertBefore(el('label', {className: 'scope-pick'}, select), $('flame-reset'));
  }
  var legend = $('flame-legend');
  if (isDiff) {
    legend.appendChild(el('span', null, el('i', {style: 'background:#c62828'}), 'grew'));
    legend.appendChild(el('span', null, el('i', {style: 'background:#1f5fbf'}), 'shrank'));
    legend.appendChild(el('span', null, el('i', {style: 'background:#efe6e4'}), 'within sampling noise'));
  } else {
    [['var(--app)', 'application' + (D.meta.applicationPackage ? ' (' + D.meta.applicationPackage + '*)' : '')],
      ['var(--lib)', 'library'], ['var(--jdk)', 'JDK'], ['hsl(107,35%,62%)', 'native code'], ['var(--type)', 'allocated type'], ['var(--mark)', 'search match']]
      .forEach(function (l) { legend.appendChild(el('span', null, el('i', {style: 'background:' + l[0]}), l[1])); });
  }
  syncButtons();
  var resizeTimer = null;
  window.addEventListener('resize', function () { clearTimeout(resizeTimer); resizeTimer = setTimeout(renderFlame, 150); });
}
/** Restricts the flame graph to a scope's sampled objects (null: every sample); clears a time range. */
function setScope(path) {
  state.scope = path;
  var select = $('flame-scope');
  if (select && select.value !== (path || '')) select.value = path || '';
  if (path && state.window) setWindow(null);
  if (path && !metric().scoped) state.metric = 'allocBytes';
  state.zoomPath = null;
  syncButtons();
  renderFlame();
}
function setMetric(key) {
  state.metric = key;
  state.zoomPath = null;
  syncButtons();
  renderFlame();
}
function syncButtons() {
  Array.prototype.forEach.call(document.querySelectorAll('#metrics button'), function (b) {
    var m = METRICS.filter(function (x) { return x.key === b.getAttribute('data-metric'); })[0];
    b.setAttribute('aria-pressed', String(m.key === state.metric));
    var off = m.empty || (state.window && !m.windowed) || (state.scope && !m.scoped);
    b.disabled = !!off;
    if (state.window && !m.windowed && !m.empty) b.title = m.label + ' is a figure at one point in time: clear the time range to see it';
    else if (state.scope && !m.scoped && !m.empty) b.title = m.label + ' is not attributed to scopes: choose “All samples” to see it';
    else if (!m.empty) b.title = m.help || m.label;
  });
  Array.prototype.forEach.call(document.querySelectorAll('#views button'), function (b) {
    b.setAttribute('aria-pressed', String(b.getAttribute('data-view') === state.view));
  });
  var m = metric();
  $('flame-title').textContent = isDiff ? 'Differential flame graph: ' + (D.meta.metricLabel || 'change')
    : 'Flame graph: ' + m.label.toLowerCase() + (state.scope ? ' in scope ' + state.scope : '');
}
