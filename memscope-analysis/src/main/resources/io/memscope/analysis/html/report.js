/* memscope report.html: renders the page data (JSON in #memscope-data, see docs/formats/report-html.md).
 * Every name that comes from the application (classes, methods, files, threads, the command line) is put into the
 * page as text only: textContent, createTextNode, setAttribute, d3's .text() and .attr(), canvas fillText. Nothing
 * here uses innerHTML, insertAdjacentHTML, document.write, eval or d3's .html(). */
(function () {
  'use strict';

  function mark(name) { if (window.performance && performance.mark) performance.mark('memscope-' + name); }
  mark('start');
  var D = JSON.parse(document.getElementById('memscope-data').textContent);
  mark('parsed');
  var S = D.stacks || {frames: []};
  var NSTACKS = S.frames.length;
  var ROW = 18;
  var MIN_BOX_PX = 1.5;

  /* ---------- formatting ---------- */
  var UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  function fmtBytes(b) {
    if (b == null || isNaN(b)) return '–';
    var neg = b < 0, v = Math.abs(b), u = 0;
    while (v >= 1024 && u < UNITS.length - 1) { v /= 1024; u++; }
    var s = u === 0 ? String(Math.round(v)) : v.toFixed(v >= 100 ? 0 : 1);
    return (neg ? '−' : '') + s + ' ' + UNITS[u];
  }
  function fmtCount(n) {
    if (n == null || isNaN(n)) return '–';
    return Math.round(n).toLocaleString('en-US');
  }
  function fmtMs(ms) {
    if (ms == null || ms < 0 || isNaN(ms)) return '–';
    if (ms < 1) return ms.toFixed(2) + ' ms';
    if (ms < 1000) return (ms < 10 ? ms.toFixed(1) : Math.round(ms)) + ' ms';
    return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
  }
  function fmtSec(s) {
    if (s == null || isNaN(s)) return '–';
    return (Math.abs(s) < 10 ? s.toFixed(2) : s.toFixed(1)) + ' s';
  }
  function fmtPct(x) {
    if (!isFinite(x)) return '–';
    var p = x * 100;
    return (p !== 0 && Math.abs(p) < 0.1 ? p.toFixed(2) : p.toFixed(1)).replace('-', '−') + '%';
  }
  /* ---------- estimates, as precise as they are ----------
   * An estimate of b bytes from samples at the interval m has a standard error of at most √(m·b) (SamplingNoise in
   * the analysis); digits below the error's leading digit are dropped and the figure is marked ~, keeping at least
   * one significant digit. The same rule as the terminal summary (Summary.estimate). */
  var INTERVAL = (D.meta && D.meta.intervalBytes) || 0;
  var EXACT_ALLOC = !!(D.totals && D.totals.exact);
  function estError(bytes) { return INTERVAL > 0 ? Math.sqrt(INTERVAL * Math.abs(bytes || 0)) : 0; }
  function fmtEstBytes(b, se) {
    if (b == null || isNaN(b) || b < 0 || !(se >= 1)) return fmtBytes(b);
    var v = b, u = 0;
    while (v >= 1024 && u < UNITS.length - 1) { v /= 1024; u++; }
    var e = Math.floor(Math.log10(se / Math.pow(1024, u)));
    if (v >= 1) e = Math.min(e, Math.floor(Math.log10(v)));
    var usual = u === 0 ? 0 : (v >= 100 ? 0 : -1); // the digits fmtBytes shows anyway
    if (e <= usual) return fmtBytes(b);
    var step = Math.pow(10, e);
    return '~' + String(Math.round(v / step) * step) + ' ' + UNITS[u];
  }
  function fmtEstCount(n, bytes) {
    if (n == null || isNaN(n) || n <= 0 || !(bytes > 0) || INTERVAL <= 0) return fmtCount(n);
    var se = n * estError(bytes) / bytes;
    if (se < 10) return fmtCount(n);
    var e = Math.min(Math.floor(Math.log10(se)), Math.floor(Math.log10(n)));
    if (e <= 0) return fmtCount(n);
    var step = Math.pow(10, e);
    return '~' + fmtCount(Math.round(n / step) * step);
  }
  /** Marks the estimated columns of a heap site table: each knows the bytes figure its precision follows. */
  function estimated(cols) {
    var byKey = {allocBytes: 'allocBytes', allocObjects: 'allocBytes', heldBytes: 'heldBytes', heldObjects: 'heldBytes',
      heldAtPeakBytes: 'heldAtPeakBytes', peakBytes: 'peakBytes', growthBytes: 'growthBytes', bytes: 'bytes', count: 'bytes'};
    cols.forEach(function (c) {
      var k = byKey[c.key];
      if (!k || (EXACT_ALLOC && (k === 'allocBytes'))) return;
      c.est = function (r) { return r[k]; };
    });
    return cols;
  }
  function plural(n, what) { return fmtCount(n) + ' ' + what + (Math.round(n) === 1 ? '' : 's'); }
  function signed(b) { return (b > 0 ? '+' : '') + fmtBytes(b); }
  function signedPct(x) { return (x > 0 ? '+' : '') + fmtPct(x); }
  function fmtHex(n) { return '0x' + Number(n).toString(16); }

  /* ---------- DOM helpers: text only ---------- */
  function el(tag, props) {
    var e = document.createElement(tag);
    if (props) {
      for (var k in props) {
        if (!Object.prototype.hasOwnProperty.call(props, k) || props[k] == null) continue;
        if (k === 'className') e.className = props[k];
        else if (k === 'text') e.textContent = props[k];
        else if (k === 'onclick') e.addEventListener('click', props[k]);
        else e.setAttribute(k, props[k]);
      }
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c == null) continue;
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return e;
  }
  function $(id) { return document.getElementById(id); }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }

  var frames = D.frames || [];
  var frameKinds = D.frameKinds || [];
  var types = D.types || [];
  var KIND_NAMES = ['application', 'library', 'JDK', 'allocated type'];
  function frameName(i) { return frames[i]; }
  function typeName(i) { return typeof i === 'number' ? types[i] : i; }
  /** pkg.Class.method(File.java:1) -> Class.method(File.java:1) */
  function shortFrame(name) {
    var paren = name.indexOf('(');
    var head = paren < 0 ? name : name.substring(0, paren);
    var dotMethod = head.lastIndexOf('.');
    var dotClass = dotMethod < 0 ? -1 : head.lastIndexOf('.', dotMethod - 1);
    return dotClass < 0 ? name : name.substring(dotClass + 1);
  }

  /* ---------- state ---------- */
  var hasBuckets = !!(S.allocByBucket && D.timeline && D.timeline.startMs && D.timeline.startMs.length);
  var isDiff = D.kind === 'diff';
  var state = { metric: null, view: 'flame', search: '', zoomPath: null, window: null, scope: null };
  var SCOPE_STACKS = D.scopeStacks || {};
  var hasScopeStacks = Object.keys(SCOPE_STACKS).length > 0;

  var METRICS = isDiff ? [
    {key: 'newBytes', label: 'New run', unit: 'bytes', col: 'newBytes',
      help: 'widths from the new run; colour: growth (red) or shrinkage (blue) since the base run'},
    {key: 'baseBytes', label: 'Base run', unit: 'bytes', col: 'baseBytes',
      help: 'widths from the base run: shows what shrank or disappeared'},
    {key: 'changeBytes', label: 'Size of change', unit: 'bytes', col: 'deltaBytes', abs: true,
      help: 'widths by the absolute change of each stack'}
  ] : [
    {key: 'allocBytes', label: 'Allocated bytes', unit: 'bytes', col: 'allocBytes', windowed: true, scoped: 1,
      help: 'bytes allocated by each stack'},
    {key: 'allocObjects', label: 'Allocated objects', unit: 'objects', col: 'allocObjects', windowed: true, scoped: 1,
      help: 'objects allocated by each stack'},
    {key: 'heldBytes', label: 'Held at end', unit: 'bytes', col: 'heldBytes', scoped: 2,
      help: 'bytes still reachable at the end of the run'},
    {key: 'peakBytes', label: 'Held at peak', unit: 'bytes', col: 'peakBytes', scoped: 3,
      help: 'bytes held at the GC after which the heap held the most'},
    {key: 'leakBytes', label: 'Leak suspects', unit: 'bytes', col: 'heldBytes', leakOnly: true, scoped: 2,
      help: 'bytes held at the end by leak-suspect stacks only'},
    {key: 'nativeBytes', label: 'Native outstanding', unit: 'bytes', col: 'nativeBytes',
      help: 'native bytes allocated and not freed at the end'}
  ];
  function metric() { return METRICS.filter(function (m) { return m.key === state.metric; })[0]; }
  function metricTotal(m) {
    var col = S[m.col], t = 0;
    if (!col) return 0;
    for (var s = 0; s < NSTACKS; s++) {
      if (m.leakOnly && !(S.leak && S.leak[s])) continue;
      t += Math.abs(col[s] || 0);
    }
    return t;
  }
  function fmtValue(m, v) { return m.unit === 'objects' ? fmtCount(v) + ' objects' : fmtBytes(v); }

  /* ---------- time window ---------- */
  function windowBuckets() {
    if (!state.window || !hasBuckets) return null;
    var st = D.timeline.startMs, n = st.length, end = D.meta.durationMs;
    var b0 = -1, b1 = -1;
    for (var i = 0; i < n; i++) {
      var s0 = st[i], s1 = i + 1 < n ? st[i + 1] : s0 + (D.timeline.bucketMs || Math.max(1, end - s0));
      if (s1 > state.window.fromMs && s0 < state.window.toMs) { if (b0 < 0) b0 = i; b1 = i; }
    }
    return b0 < 0 ? [1, 0] : [b0, b1];
  }
  var windowCache = null;
  function windowAlloc() {
    var wb = windowBuckets();
    if (!wb) return null;
    var key = wb[0] + ':' + wb[1];
    if (windowCache && windowCache.key === key) return windowCache.values;
    var values = new Float64Array(NSTACKS);
    for (var s = 0; s < NSTACKS; s++) {
      var pairs = S.allocByBucket[s];
      if (!pairs) continue;
      var sum = 0, bucket = -1;
      for (var i = 0; i < pairs.length; i += 2) {
        bucket += pairs[i];
        if (bucket > wb[1]) break;
        if (bucket >= wb[0]) sum += pairs[i + 1];
      }
      values[s] = sum;
    }
    windowCache = {key: key, values: values};
    return values;
  }
  /* ---------- scope filter ---------- */
  var scopeCache = null;
  /** For the selected scope (its path and the paths below it): per stack [sampled, held at end, held at peak]. */
  function scopeFigures() {
    if (!state.scope) return null;
    if (scopeCache && scopeCache.scope === state.scope) return scopeCache.values;
    var values = [new Float64Array(NSTACKS), new Float64Array(NSTACKS), new Float64Array(NSTACKS)];
    var prefix = state.scope + '/';
    Object.keys(SCOPE_STACKS).forEach(function (path) {
      if (path !== state.scope && path.indexOf(prefix) !== 0) return;
      var flat = SCOPE_STACKS[path];
      for (var i = 0; i + 3 < flat.length; i += 4) {
        var st = flat[i];
        if (st < 0 || st >= NSTACKS) continue;
        values[0][st] += flat[i + 1]; values[1][st] += flat[i + 2]; values[2][st] += flat[i + 3];
      }
    });
    scopeCache = {scope: state.scope, values: values};
    return values;
  }
  /** The value of stack s under the current metric (and time window). */
  function stackValue(s, m, win) {
    if (m.leakOnly && !(S.leak && S.leak[s])) return 0;
    var sc = scopeFigures();
    if (sc) {
      if (!m.scoped) return 0;
      var sv = sc[m.scoped - 1][s];
      if (m.unit === 'objects') {
        var sb = S.allocBytes[s];
        return sb > 0 ? sv * S.allocObjects[s] / sb : 0;
      }
      return sv;
    }
    if (win && m.windowed) {
      var wbytes = win[s];
      if (m.unit === 'objects') {
        var ab = S.allocBytes[s];
        return ab > 0 ? wbytes * S.allocObjects[s] / ab : 0;
      }
      return wbytes;
    }
    var col = S[m.col];
    var v = col ? (col[s] || 0) : 0;
    return m.abs ? Math.abs(v) : v;
  }
  /** Allocated objects behind a stack's value under an allocation metric (scaled to its time-range share). */
  function stackObjects(s, m, v) {
    if (!m.windowed || !S.allocBytes || !S.allocObjects) return 0;
    if (m.unit === 'objects') return v;
    var ab = S.allocBytes[s];
    return ab > 0 ? v * S.allocObjects[s] / ab : 0;
  }
  function stackBytes(s, m, v) {
    if (m.unit !== 'objects') return v;
    var ao = S.allocObjects[s];
    return ao > 0 ? v * S.allocBytes[s] / ao : 0;
  }

  /* ---------- flame graph: tree ---------- */
  var uid = 0;
  function buildTree() {
    var m = metric(), win = windowAlloc();
    var root = {key: 'root', name: 'all', kind: -1, self: 0, map: new Map(), uid: uid++, base: 0, now: 0,
      objects: 0, bytes: 0};
    function child(node, key, name, kind) {
      var c = node.map.get(key);
      if (!c) {
        c = {key: key, name: name, kind: kind, self: 0, map: new Map(), uid: uid++, types: null,
          base: 0, now: 0, objects: 0, bytes: 0};
        node.map.set(key, c);
      }
      return c;
    }
    for (var s = 0; s < NSTACKS; s++) {
      var v = stackValue(s, m, win);
      if (!(v > 0)) continue;
      var fr = S.frames[s], node = root, path = [root], i, f;
      if (state.view === 'flame') {
        for (i = fr.length - 1; i >= 0; i--) {
          f = fr[i];
          node = child(node, f, frameName(f), frameKinds[f]);
          path.push(node);
        }
        node = child(node, -1 - S.type[s], typeName(S.type[s]), 3); // types: negative keys, frames: their index
        path.push(node);
      } else {
        for (i = 0; i < fr.length; i++) {
          f = fr[i];
          node = child(node, f, frameName(f), frameKinds[f]);
          path.push(node);
          if (i === 0) {
            node.types = node.types || new Set();
            node.types.add(typeName(S.type[s]));
          }
        }
      }
      node.self += v;
      var objs = stackObjects(s, m, v), bytes = stackBytes(s, m, v);
      for (i = 0; i < path.length; i++) {
        if (isDiff) {
          path[i].base += S.baseBytes[s];
          path[i].now += S.newBytes[s];
        }
        path[i].objects += objs;
        path[i].bytes += bytes;
      }
    }
    var h = d3.hierarchy(root, function (d) { return d.map.size ? Array.from(d.map.values()) : null; })
      .sum(function (d) { return d.self; })
      .sort(function (a, b) { return b.value - a.value || (a.data.name < b.data.name ? -1 : 1); });
    d3.partition()(h);
    return h;
  }

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
      return delta > 0 ? d3.interpolateRgb('#f6d5cf', '#c62828')(0.15 + 0.85 * r)
        : d3.interpolateRgb('#d3e3f7', '#1f5fbf')(0.15 + 0.85 * r);
    }
    var h = hash(d.name), j = (h % 1000) / 1000;
    switch (d.kind) {
      case 0: return 'hsl(' + (10 + 22 * j) + ',78%,' + (57 + 8 * ((h >> 10) % 100) / 100) + '%)';
      case 1: return 'hsl(' + (40 + 12 * j) + ',80%,' + (54 + 9 * ((h >> 10) % 100) / 100) + '%)';
      case 2: return 'hsl(' + (198 + 18 * j) + ',52%,' + (64 + 9 * ((h >> 10) % 100) / 100) + '%)';
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
    var width = Math.max(300, box.clientWidth || 1000);
    var zoom = zoomNode();
    var x = d3.scaleLinear().domain([zoom.x0, zoom.x1]).range([0, width]);
    var visible = [], maxDepth = 0;
    (function visit(n) {
      var x0 = Math.max(0, x(n.x0)), x1 = Math.min(width, x(n.x1));
      if (x1 - x0 < MIN_BOX_PX) return; // slivers are not drawn (nor their children); zoom in to see them
      visible.push(n);
      if (n.depth > maxDepth) maxDepth = n.depth;
      if (n.children) n.children.forEach(visit);
    })(tree);
    var depth = maxDepth + 1; // as tall as what is drawn
    var height = depth * ROW;
    var flameUp = state.view === 'flame';
    var match = matcher();

    var svg = d3.select(box).selectAll('svg').data([0]).join('svg')
      .attr('width', width).attr('height', height)
      .attr('role', 'img').attr('aria-label', (flameUp ? 'Flame graph of ' : 'Inverted flame graph of ') + m.label);
    d3.select(box).selectAll('div.empty').remove();
    var g = svg.selectAll('g.frame').data(visible, function (n) { return n.data.uid; })
      .join(function (enter) {
        var e = enter.append('g').attr('class', 'frame');
        e.append('rect');
        e.append('text').attr('x', 4).attr('y', 12.5);
        return e;
      });
    g.attr('transform', function (n) {
      var y = flameUp ? (depth - 1 - n.depth) * ROW : n.depth * ROW;
      return 'translate(' + Math.max(0, x(n.x0)) + ',' + y + ')';
    })
      .attr('data-name', function (n) { return n.data.name; })
      .attr('data-kind', function (n) { return n.data.kind; })
      .attr('data-depth', function (n) { return n.depth; })
      .classed('dim', function (n) { return n.depth < zoom.depth; })
      .classed('matched', function (n) { return !!(match && n.depth > 0 && match(n.data.name)); });
    g.select('rect')
      .attr('width', function (n) { return Math.max(0.4, Math.min(width, x(n.x1)) - Math.max(0, x(n.x0))); })
      .attr('height', ROW - 1)
      .attr('fill', frameColor);
    g.select('text').text(function (n) {
      var w = Math.min(width, x(n.x1)) - Math.max(0, x(n.x0));
      return label(n.data.name, w);
    });
    g.on('click', function (ev, n) {
      state.zoomPath = (n === zoom || n.depth === 0) && n.parent ? pathOf(n.parent) : pathOf(n);
      if (n.depth === 0) state.zoomPath = null;
      renderFlame();
    })
      .on('mousemove', function (ev, n) { showTip(ev, n); })
      .on('mouseleave', hideTip);
    box.dataset.frames = String(visible.length);

    // status: total, zoom and search share
    var total = tree.value;
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
        ['var(--lib)', 'library'], ['var(--jdk)', 'JDK'], ['var(--type)', 'allocated type'], ['var(--mark)', 'search match']]
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
  /** Orders scope paths as a tree: a path right before its children. */
  function comparePaths(a, b) {
    var x = a.split('/'), y = b.split('/');
    for (var i = 0; i < Math.min(x.length, y.length); i++) {
      if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    }
    return x.length - y.length;
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

  /* ---------- header, cards, problems ---------- */
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
        return [
          col('site', 'Site', 'text', function (x) { return x.site; }, {code: true}),
          col('type', 'Type', 'text', function (x) { return typeName(x.type); }, {code: true}),
          col('baseBytes', 'Base', 'bytes', function (x) { return x.baseBytes; }),
          col('newBytes', 'New', 'bytes', function (x) { return x.newBytes; }),
          col('deltaBytes', 'Change', 'signed', function (x) { return x.deltaBytes; }),
          col('pct', 'Change %', 'pct', function (x) { return x.baseBytes > 0 ? x.deltaBytes / x.baseBytes : null; }),
          col('abs', '|Change|', 'bytes', function (x) { return Math.abs(x.deltaBytes); }),
          col('samples', 'Samples', 'text', function (x) { return x.baseSamples + ' → ' + x.newSamples; },
            {hidden: !((D.meta.noise || {}).baseFactor || (D.meta.noise || {}).newFactor), help: 'sampled objects behind the base and new figures'}),
          col('verdict', 'Verdict', 'text', function (x) { return x.verdict; },
            {help: 'grew, shrank, new, gone: more than sampling noise; noise: within it'})
        ];
      },
      stack: siteStack, empty: 'No site to compare.'
    });
    box.appendChild(t.panel);
  }

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
      + (t.nativePeakTimeMs >= 0 ? ' at ' + fmtSec(t.nativePeakTimeMs / 1000) : ''),
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

  /* ---------- memory over time ---------- */
  var plot = null;
  function renderChart() {
    var box = $('chart'), note = $('chart-note');
    var gcs = (D.gc && D.gc.collections) || [];
    var tl = D.timeline;
    var xs = new Map();
    function point(tMs) { var k = Math.round(tMs * 1000) / 1e6; if (!xs.has(k)) xs.set(k, {}); return xs.get(k); }
    var have = {};
    gcs.forEach(function (g) {
      if (!(g.usedBeforeBytes > 0 || g.usedAfterBytes > 0)) return;
      var a = point(g.timeMs), b = point(g.timeMs + Math.max(g.durationMs, 0.001));
      a.used = g.usedBeforeBytes; b.used = g.usedAfterBytes;
      if (g.committedBytes > 0) { a.committed = g.committedBytes; b.committed = g.committedBytes; have.committed = 1; }
      have.used = 1;
    });
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
        if (!have.usedFromGc && tl.heapUsedBytes && !gcs.length) { p.used = tl.heapUsedBytes[i]; have.used = 1; }
        if (tl.heapCommittedBytes && !have.committed) { p.committed = tl.heapCommittedBytes[i]; have.committedTl = 1; }
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
      ['rate', 'Allocation rate', '#a58bd6', 'rate', {width: 1.2}]
    ].filter(function (d) { return have[d[0]]; });
    var data = [keys];
    defs.forEach(function (d) { data.push(keys.map(function (k) { var v = xs.get(k)[d[0]]; return v == null ? null : v; })); });
    var series = [{label: 'time', value: function (u, v) { return v == null ? '–' : fmtSec(v); }}];
    defs.forEach(function (d) {
      var s = {label: d[1], stroke: d[2], scale: d[3], spanGaps: true, points: {show: false},
        value: d[3] === 'rate' ? function (u, v) { return v == null ? '–' : fmtBytes(v) + '/s'; } : function (u, v) { return v == null ? '–' : fmtBytes(v); }};
      for (var k in d[4]) s[k] = d[4][k];
      series.push(s);
    });
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
    if (have.rate) axes.push({scale: 'rate', side: 1, size: 84, grid: {show: false}, stroke: '#8a76b8', incrs: incrs,
      values: function (u, vals) { return vals.map(function (v) { return fmtBytes(v) + '/s'; }); }});
    var width = Math.max(400, box.clientWidth || 1000);
    var pauses = gcs.filter(function (g) { return g.pause; });
    var wholeHeap = gcs.filter(function (g) { return g.examined === 'whole-heap'; });
    var peakMark = peakMarker(gcs);
    plot = new uPlot({
      width: width, height: 280,
      scales: {x: {time: false}, bytes: {range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.08 : 1]; }},
        rate: {range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.08 : 1]; }}},
      series: series, axes: axes,
      cursor: {drag: {x: hasBuckets, y: false, setScale: false}, y: false},
      legend: {live: true},
      hooks: {
        setSelect: [function (u) {
          if (!hasBuckets) return;
          if (u.select.width < 3) { setWindow(null); return; }
          var from = u.posToVal(u.select.left, 'x'), to = u.posToVal(u.select.left + u.select.width, 'x');
          setWindow({fromMs: Math.max(0, from * 1000), toMs: to * 1000});
        }],
        draw: [function (u) { drawMarks(u, pauses, peakMark, wholeHeap); }]
      }
    }, data, box);
    note.textContent = (hasBuckets ? 'Drag across the chart to restrict the flame graph and the tables to a time range. ' : '')
      + 'Red ticks on the time axis: GC pauses (taller = longer); orange dots: collections that examined the whole heap (only they '
      + 'confirm what is held). Held: reachable at such a collection; the lighter band above it is unconfirmed memory, which '
      + 'survived only young collections and may be garbage. Dashed line: ' + (peakMark ? peakMark.what : 'the peak') + '.'
      + (hasBuckets ? '' : ' Selecting a time range needs the per-stack timeline, which this report does not have.');
    $('window-clear').addEventListener('click', function () { setWindow(null); });
    window.addEventListener('resize', function () { if (plot) plot.setSize({width: Math.max(400, box.clientWidth), height: 280}); });
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

  /* ---------- tables ---------- */
  function sortRows(rows, col, dir) {
    var get = col.get;
    return rows.slice().sort(function (a, b) {
      var x = get(a), y = get(b);
      if (x == null) x = col.type === 'text' ? '' : -Infinity;
      if (y == null) y = col.type === 'text' ? '' : -Infinity;
      var c = col.compare ? col.compare(x, y) : col.type === 'text' ? String(x).localeCompare(String(y)) : x - y;
      return dir === 'ascending' ? c : -c;
    });
  }
  function fmtCell(col, v, row) {
    if (col.est && row && v != null) {
      var behind = col.est(row);
      if (col.type === 'bytes') return fmtEstBytes(v, estError(behind));
      if (col.type === 'count') return fmtEstCount(v, behind);
    }
    switch (col.type) {
      case 'bytes': return fmtBytes(v);
      case 'count': return fmtCount(v);
      case 'ms': return fmtMs(v);
      case 'sec': return fmtSec(v);
      case 'signed': return v == null ? '–' : signed(v);
      case 'pct': return v == null ? 'new' : signedPct(v);
      case 'share': return v == null ? '–' : fmtPct(v);
      default: return v == null ? '' : String(v);
    }
  }
  /** A sortable (every column) and filterable (every text column) table in its own panel. */
  function makeTable(spec) {
    var panel = el('section', {className: 'panel', id: spec.id});
    panel.appendChild(el('h2', null, spec.title));
    if (spec.intro) panel.appendChild(el('p', {className: 'hint'}, spec.intro));
    var tools = el('div', {className: 'table-tools'});
    var filter = el('input', {type: 'search', placeholder: 'Filter rows', 'aria-label': 'Filter ' + spec.title});
    var count = el('span', {className: 'hint'});
    if (spec.filter !== false) tools.appendChild(filter);
    tools.appendChild(count);
    panel.appendChild(tools);
    var wrap = el('div', {className: 'table-wrap'});
    var table = el('table');
    var thead = el('thead'), tbody = el('tbody');
    table.appendChild(thead); table.appendChild(tbody);
    wrap.appendChild(table);
    panel.appendChild(wrap);
    var sort = spec.sort;
    var rows = spec.rows;
    var limit = spec.pageSize || 50;
    function columns() { return spec.columns().filter(function (c) { return !c.hidden; }); }
    function draw() {
      var cols = columns();
      clear(thead);
      var tr = el('tr');
      cols.forEach(function (c) {
        var th = el('th', {className: 'sortable' + (c.type !== 'text' ? ' num' : ''), scope: 'col', 'data-key': c.key,
          title: c.help || ('Sort by ' + c.label)}, c.label);
        if (sort.key === c.key) th.setAttribute('aria-sort', sort.dir);
        th.addEventListener('click', function () {
          sort = {key: c.key, dir: sort.key === c.key && sort.dir === 'descending' ? 'ascending' : (sort.key === c.key ? 'descending' : (c.type === 'text' ? 'ascending' : 'descending'))};
          draw();
        });
        tr.appendChild(th);
      });
      if (spec.stack) tr.appendChild(el('th', null, 'stack'));
      thead.appendChild(tr);
      var q = filter.value.trim().toLowerCase();
      var textCols = cols.filter(function (c) { return c.type === 'text'; });
      var shown = (spec.keep ? rows.filter(spec.keep) : rows).filter(function (r) {
        if (!q) return true;
        return textCols.some(function (c) { var v = c.get(r); return v != null && String(v).toLowerCase().indexOf(q) >= 0; });
      });
      var sc = cols.filter(function (c) { return c.key === sort.key; })[0] || cols[0];
      shown = sortRows(shown, sc, sort.dir);
      clear(tbody);
      shown.slice(0, limit).forEach(function (r) {
        var row = el('tr', {id: spec.rowId ? spec.rowId(r) : null});
        cols.forEach(function (c) {
          var v = c.get(r);
          var td0 = el('td', {className: c.type !== 'text' ? 'num' : (c.code ? 'code' : null)}, fmtCell(c, v, r));
          if (c.indent) td0.style.paddingLeft = (8 + 16 * c.indent(r)) + 'px';
          row.appendChild(td0);
        });
        if (spec.stack) {
          var st = spec.stack(r);
          var td = el('td');
          if (st && st.length) {
            var open = false, stackRow = null;
            var showText = 'show ' + (st.length === 1 ? '1 frame' : st.length + ' frames');
            var btn = el('button', {type: 'button', className: 'linkish'}, showText);
            btn.addEventListener('click', function () {
              open = !open;
              btn.textContent = open ? 'hide' : showText;
              if (open) {
                var ol = el('ol', {className: 'stack'});
                st.forEach(function (f) { ol.appendChild(el('li', {className: 'k' + frameKinds[f]}, frameName(f))); });
                stackRow = el('tr', {className: 'stack-row'}, el('td', {colspan: String(cols.length + 1)}, ol));
                row.parentNode.insertBefore(stackRow, row.nextSibling);
              } else if (stackRow) {
                stackRow.remove();
              }
            });
            td.appendChild(btn);
          }
          row.appendChild(td);
        }
        tbody.appendChild(row);
      });
      if (!shown.length) {
        tbody.appendChild(el('tr', null, el('td', {colspan: String(cols.length + (spec.stack ? 1 : 0)), className: 'hint'},
          q ? 'No row matches the filter.' : (spec.empty || 'None.'))));
      }
      count.textContent = shown.length + (shown.length === 1 ? ' row' : ' rows')
        + (shown.length !== rows.length ? ' of ' + rows.length : '');
      if (shown.length > limit) {
        var more = el('button', {type: 'button', className: 'linkish'}, 'show all ' + shown.length + ' rows');
        more.addEventListener('click', function () { limit = Infinity; draw(); });
        tbody.appendChild(el('tr', null, el('td', {colspan: String(cols.length + (spec.stack ? 1 : 0))}, more)));
      }
      if (location.hash && location.hash.length > 1) {
        var target = document.getElementById(location.hash.substring(1));
        if (target && target.tagName === 'TR') target.classList.add('target');
      }
    }
    filter.addEventListener('input', draw);
    draw();
    return {panel: panel, redraw: function (newSort) { if (newSort) sort = newSort; draw(); }};
  }

  var tables = [];
  function siteWindowAlloc(site) {
    var win = windowAlloc();
    if (!win) return null;
    var sum = 0;
    (site.stacks || []).forEach(function (s) { sum += win[s]; });
    return sum;
  }
  function siteStack(site) {
    var s = (site.stacks || [])[0];
    return s == null ? (site.stack || null) : S.frames[s];
  }
  function col(key, label, type, get, extra) {
    var c = {key: key, label: label, type: type, get: get};
    for (var k in extra) c[k] = extra[k];
    return c;
  }
  function renderTables() {
    if (tables.length) {
      tables.forEach(function (t) { t.redraw(t.windowSort && state.window ? t.windowSort : (!state.window && t.baseSort) || null); });
      return;
    }
    var box = $('tables');
    var sites = D.sites || [];
    var anyPeak = sites.some(function (s) { return s.peakBytes > 0; });
    var anyHeldAtPeak = sites.some(function (s) { return s.heldAtPeakBytes > 0; });
    var anyUnconfirmed = sites.some(function (s) { return s.unconfirmedBytes > 0; });
    function unconfirmedCol() {
      return col('unconfirmedBytes', 'Unconfirmed', 'bytes', function (s) { return s.unconfirmedBytes; },
        {hidden: !anyUnconfirmed, help: 'present at the end but judged by no collection that examined the whole heap: '
          + 'it survived only young collections and may be garbage; not counted as held'});
    }
    var inWindow = function () { return !state.window; };
    function windowCol() {
      return col('window', 'Allocated in time range', 'bytes', siteWindowAlloc, {hidden: !state.window});
    }
    function keepWindow(s) { return !state.window || siteWindowAlloc(s) > 0; }

    var heapSites = sites.filter(function (s) { return !s.native; });
    var top = makeTable({
      id: 'sites', title: 'Allocation sites',
      intro: 'Every site the report lists. Click a column to sort, type to filter.',
      rows: heapSites, sort: {key: 'allocBytes', dir: 'descending'}, keep: keepWindow,
      rowId: function (s) { return 'site-all-' + sites.indexOf(s); },
      columns: function () {
        return estimated([
          col('site', 'Site', 'text', function (s) { return s.site; }, {code: true}),
          col('type', 'Type', 'text', function (s) { return typeName(s.type); }, {code: true}),
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
        ]);
      },
      stack: siteStack, empty: 'No heap allocation was sampled.'
    });
    top.windowSort = {key: 'window', dir: 'descending'};
    top.baseSort = {key: 'allocBytes', dir: 'descending'};
    tables.push(top);

    if (D.peak && D.peak.sites && D.peak.sites.length) {
      var p = D.peak;
      var peakTable = makeTable({
        id: 'peak', title: 'Held at the peak',
        intro: 'At ' + fmtSec(p.timeMs / 1000) + ', after ' + (p.gcName || 'a collection') + (p.gcCause ? ' (' + p.gcCause + ')' : '')
          + ', a collection that examined the whole heap, the heap held ' + fmtBytes(p.heapUsedAfterGcBytes)
          + ', the most of such collections; sampled objects say ' + fmtBytes(p.estimatedBytes)
          + ' of it was reachable, held by these sites'
          + (p.unconfirmedBytes > 0 ? ' (and ' + fmtBytes(p.unconfirmedBytes) + ' present but unconfirmed).' : '.'),
        rows: p.sites, sort: {key: 'bytes', dir: 'descending'}, filter: false,
        columns: function () {
          return estimated([
            col('site', 'Site', 'text', function (h) { return h.site; }, {code: true}),
            col('type', 'Type', 'text', function (h) { return typeName(h.type); }, {code: true}),
            col('bytes', 'Held', 'bytes', function (h) { return h.bytes; }),
            col('count', 'Objects', 'count', function (h) { return h.count; }),
            col('share', 'Share of the estimate', 'share', function (h) { return p.estimatedBytes > 0 ? h.bytes / p.estimatedBytes : null; }),
            col('samples', 'Samples', 'count', function (h) { return h.samples; })
          ]);
        },
        stack: function (h) { return h.stack; }
      });
      tables.push(peakTable);
    }

    var leaks = makeTable({
      id: 'leaks', title: 'Leak suspects',
      intro: 'Sites whose held (reachable) bytes grew at collections that examined the whole heap: measured at three of them '
        + '(a third and two thirds of the way from the site’s first allocation to the last one, and the last one), each step by more '
        + 'than twice its sampling error, the whole by at least a quarter of what it holds at the end. Growth: held bytes gained '
        + 'from the first of the three to the end.',
      rows: sites.filter(function (s) { return s.leak; }), sort: {key: 'growthBytes', dir: 'descending'}, keep: keepWindow,
      rowId: function (s) { return 'site-leaks-' + sites.indexOf(s); },
      columns: function () {
        return estimated([
          col('site', 'Site', 'text', function (s) { return s.site; }, {code: true}),
          col('type', 'Type', 'text', function (s) { return typeName(s.type); }, {code: true}),
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
        ]);
      },
      stack: siteStack, empty: 'No leak suspect: nothing kept growing until the end.'
    });
    tables.push(leaks);

    var temps = makeTable({
      id: 'temporaries', title: 'Temporaries',
      intro: 'Sites that allocated much and kept little: memory that only churns (string concatenation in a loop, copies).',
      rows: sites.filter(function (s) { return s.temporary; }), sort: {key: 'allocBytes', dir: 'descending'}, keep: keepWindow,
      rowId: function (s) { return 'site-temps-' + sites.indexOf(s); },
      columns: function () {
        return estimated([
          col('site', 'Site', 'text', function (s) { return s.site; }, {code: true}),
          col('type', 'Type', 'text', function (s) { return typeName(s.type); }, {code: true}),
          windowCol(),
          col('allocBytes', 'Allocated', 'bytes', function (s) { return s.allocBytes; }),
          col('allocObjects', 'Objects', 'count', function (s) { return s.allocObjects; }),
          col('heldBytes', 'Held at end', 'bytes', function (s) { return s.heldBytes; }),
          col('freedByFirstCollectionShare', 'Survived no GC', 'share', function (s) { return s.freedByFirstCollectionShare >= 0 ? s.freedByFirstCollectionShare : null; },
            {help: 'share of the collected samples freed by the first collection after their allocation: dead within one collection interval'}),
          col('medianAgeAtCollectionMs', 'Median age at GC', 'ms', function (s) { return s.medianAgeAtCollectionMs; },
            {help: 'allocation to the collection that freed the object: an upper bound of its lifetime, about the time between collections for objects that die young'})
        ]);
      },
      stack: siteStack, empty: 'No temporaries found.'
    });
    tables.push(temps);

    var nat = makeTable({
      id: 'native', title: 'Native memory outstanding',
      intro: 'Native memory (direct buffers, Unsafe) allocated while memscope tracked it and not freed at the end, by allocation site. '
        + 'A leak suspect is outstanding and growing (the rule of heap leaks); memory a pool took once and reuses is outstanding, not growing.',
      rows: sites.filter(function (s) { return s.native && s.nativeBytes > 0; }), sort: {key: 'nativeBytes', dir: 'descending'},
      rowId: function (s) { return 'site-native-' + sites.indexOf(s); },
      columns: function () {
        return [
          col('site', 'Site', 'text', function (s) { return s.site; }, {code: true}),
          col('type', 'Type', 'text', function (s) { return typeName(s.type); }, {code: true}),
          col('nativeBytes', 'Outstanding', 'bytes', function (s) { return s.nativeBytes; }),
          col('nativeBlocks', 'Blocks', 'count', function (s) { return s.nativeBlocks; }),
          col('growthBytes', 'Growth', 'bytes', function (s) { return s.growthBytes; },
            {help: 'outstanding bytes gained over the second half of the site’s allocation window'}),
          col('nativeLeak', 'Leak suspect', 'text', function (s) { return s.nativeLeak ? 'yes: growing' : 'no: not growing'; })
        ];
      },
      stack: siteStack, empty: 'No native memory outstanding at the end.'
    });
    tables.push(nat);

    var an = D.anomalies || [];
    if (an.length) {
      tables.push(makeTable({
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
      }));
    }
    tables.forEach(function (t) { box.appendChild(t.panel); });
    renderApi(box);
    renderGc(box);
    renderAccounting(box);
    renderFailures(box);
    void inWindow;
  }


  /* ---------- scopes, functions, named objects, pools ---------- */
  function renderApi(box) {
    var scopes = D.scopes || [], fns = D.functions || [], objs = D.trackedObjects || [], pools = D.pools || [];
    var leaks = D.poolLeaks || [], sa = D.scopeAnomalies || {};
    if (!scopes.length && !fns.length && !objs.length && !pools.length) {
      box.appendChild(el('section', {className: 'panel', id: 'api-none'}, el('h2', null, 'Scopes, functions, named objects and pools'),
        el('p', {className: 'hint'}, 'None in this recording: the application opened no memscope scope, tracked no object, used no pool tracker, and no function was profiled (memscope run --functions).')));
      return;
    }
    if (scopes.length) {
      var anyTasks = scopes.some(function (x) { return x.tasks > 0; });
      var noAlloc = scopes.some(function (x) { return x.entriesWithoutAllocation > 0; });
      var scopeTable = makeTable({
        id: 'scopes', title: 'Scopes',
        intro: 'Memory by scope (Memscope.scope), children included, summed over threads. Entries, times and allocated bytes are exact '
          + '(allocated: the entering threads’ allocated-bytes counter'
          + (noAlloc ? '; entries on virtual threads have no counter and are left out of it' : '') + '). Sampled, held at end and held at peak are estimates from the heap samples taken while the scope was the innermost open on the sample’s thread'
          + (D.samplesInScopes != null ? ' (' + plural(D.samplesInScopes, 'sample') + ' in scopes)' : '') + '.'
          + (hasScopeStacks ? ' Click a scope to see its flame graph.' : ''),
        rows: scopes, sort: {key: 'path', dir: 'ascending'},
        rowId: function (x) { return 'scope-' + scopes.indexOf(x); },
        columns: function () {
          return [
            col('path', 'Scope', 'text', function (x) { return x.path; }, {code: true, compare: comparePaths,
              indent: function (x) { return Math.max(0, (x.depth || 1) - 1); }}),
            col('entries', 'Entries', 'count', function (x) { return x.entries; }),
            col('tasks', 'Tasks', 'count', function (x) { return x.tasks; }, {hidden: !anyTasks,
              help: 'entries that were tasks handed to another thread (wrap, executor)'}),
            col('totalMs', 'Total time', 'ms', function (x) { return x.totalMs; }),
            col('maxMs', 'Longest', 'ms', function (x) { return x.maxMs; }),
            col('selfMs', 'Self time', 'ms', function (x) { return x.selfMs; }, {help: 'not inside a child scope on the same thread'}),
            col('allocatedBytes', 'Allocated (exact)', 'bytes', function (x) { return x.allocatedBytes; }),
            col('sampledBytes', 'Allocated (sampled)', 'bytes', function (x) { return x.sampledBytes; }),
            col('heldAtEndBytes', 'Held at end', 'bytes', function (x) { return x.heldAtEndBytes; }),
            col('heldAtPeakBytes', 'Held at peak', 'bytes', function (x) { return x.heldAtPeakBytes; })
          ];
        }
      });
      if (hasScopeStacks) {
        scopeTable.panel.addEventListener('click', function (e) {
          var td = e.target.closest && e.target.closest('td.code');
          var tr = td && td.parentNode;
          if (!tr || !tr.id || tr.id.indexOf('scope-') !== 0) return;
          var x = scopes[Number(tr.id.substring(6))];
          if (x && (SCOPE_STACKS[x.path] || scopes.some(function (y) { return y.path.indexOf(x.path + '/') === 0; }))) {
            setScope(x.path);
            $('flame-section').scrollIntoView();
          }
        });
        scopeTable.panel.classList.add('clickable');
      }
      box.appendChild(scopeTable.panel);
    }
    if (Object.keys(sa).length) {
      box.appendChild(makeTable({
        id: 'scope-anomalies', title: 'Scope anomalies', filter: false,
        intro: 'Scopes closed out of order, twice or on another thread: memscope counted and repaired them; the application was not disturbed.',
        rows: Object.keys(sa).map(function (k) { return {kind: k, count: sa[k]}; }), sort: {key: 'count', dir: 'descending'},
        columns: function () {
          return [col('kind', 'Kind', 'text', function (x) { return x.kind; }), col('count', 'Count', 'count', function (x) { return x.count; })];
        }
      }).panel);
    }
    if (fns.length) {
      var anyRec = fns.some(function (f) { return f.recursiveCalls > 0; });
      box.appendChild(makeTable({
        id: 'functions', title: 'Function profile',
        intro: 'Profiled methods (memscope run --functions) by call site. Calls, times and allocated bytes are exact (recursive calls counted once, in the outermost); held at end and peak are estimates from the heap samples allocated inside the calls.',
        rows: fns, sort: {key: 'totalMs', dir: 'descending'},
        rowId: function (f) { return 'function-' + fns.indexOf(f); },
        columns: function () {
          return [
            col('function', 'Function', 'text', function (f) { return f.function; }, {code: true}),
            col('callSite', 'Call site', 'text', function (f) { return f.callSite || '(unknown)'; }, {code: true}),
            col('calls', 'Calls', 'count', function (f) { return f.calls; }),
            col('recursiveCalls', 'Recursive calls', 'count', function (f) { return f.recursiveCalls; }, {hidden: !anyRec}),
            col('totalMs', 'Total time', 'ms', function (f) { return f.totalMs; }),
            col('maxMs', 'Longest call', 'ms', function (f) { return f.maxMs; }),
            col('allocatedBytes', 'Allocated', 'bytes', function (f) { return f.allocatedBytes; }),
            col('heldAtEndBytes', 'Held at end', 'bytes', function (f) { return f.heldAtEndBytes; }),
            col('heldAtPeakBytes', 'Held at peak', 'bytes', function (f) { return f.heldAtPeakBytes; })
          ];
        }
      }).panel);
    }
    if (objs.length) {
      box.appendChild(makeTable({
        id: 'tracked-objects', title: 'Named objects',
        intro: 'Objects the application named with Memscope.track: shallow size (exact), age from tracking to collection or to the end.',
        rows: objs, sort: {key: 'trackedAtMs', dir: 'ascending'},
        columns: function () {
          return [
            col('name', 'Name', 'text', function (o) { return o.name; }, {code: true}),
            col('type', 'Type', 'text', function (o) { return o.type; }, {code: true}),
            col('bytes', 'Size', 'bytes', function (o) { return o.bytes; }),
            col('trackedAtMs', 'Tracked at', 'sec', function (o) { return o.trackedAtMs / 1000; }),
            col('ageMs', 'Age', 'ms', function (o) { return o.ageMs; }),
            col('alive', 'Alive', 'text', function (o) { return o.alive ? 'alive at the end' : 'collected at ' + fmtSec(o.collectedAtMs / 1000); })
          ];
        }
      }).panel);
    }
    if (pools.length) {
      box.appendChild(makeTable({
        id: 'pools', title: 'Pools',
        intro: 'Resources borrowed from pools the application tracks (Memscope.pool): leases, and those lost or never returned.',
        rows: pools, sort: {key: 'pool', dir: 'ascending'},
        columns: function () {
          return [
            col('pool', 'Pool', 'text', function (p) { return p.pool; }, {code: true}),
            col('borrows', 'Borrows', 'count', function (p) { return p.borrows; }),
            col('returns', 'Returns', 'count', function (p) { return p.returns; }),
            col('peakOutstanding', 'Most out at once', 'count', function (p) { return p.peakOutstanding; }),
            col('leaks', 'Lost while borrowed', 'count', function (p) { return p.leaks; }),
            col('notReturned', 'Not returned at end', 'count', function (p) { return p.notReturned; }),
            col('notReturnedBytes', 'Their size', 'bytes', function (p) { return p.notReturnedBytes; }),
            col('doubleReturns', 'Returned twice', 'count', function (p) { return p.doubleReturns; }),
            col('unknownReturns', 'Unknown returns', 'count', function (p) { return p.unknownReturns; })
          ];
        }
      }).panel);
      box.appendChild(makeTable({
        id: 'pool-leaks', title: 'Pool leaks',
        intro: 'Leases whose lease object became unreachable while borrowed (lost), or still out at the end, with the borrowing stack.',
        rows: leaks, sort: {key: 'borrowedAtMs', dir: 'ascending'},
        rowId: function (l) { return 'pool-leak-' + leaks.indexOf(l); },
        columns: function () {
          return [
            col('pool', 'Pool', 'text', function (l) { return l.pool; }, {code: true}),
            col('kind', 'Kind', 'text', function (l) { return l.kind === 'unreachable' ? 'lost while borrowed' : 'not returned'; }),
            col('resourceType', 'Resource', 'text', function (l) { return l.resourceType; }, {code: true}),
            col('size', 'Size', 'bytes', function (l) { return l.size; }),
            col('borrowedAtMs', 'Borrowed at', 'sec', function (l) { return l.borrowedAtMs < 0 ? null : l.borrowedAtMs / 1000; }),
            col('thread', 'Thread', 'text', function (l) { return l.thread; }, {code: true})
          ];
        },
        stack: function (l) { return l.stack; }, empty: 'Every lease was returned.'
      }).panel);
    }
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

  /* ---------- footer ---------- */
  function renderFooter() {
    var defs = [
      ['Allocated', 'bytes and objects allocated on the heap; in sample mode an unbiased estimate from sampled objects (each stands for 1/p objects of its size), exact in exact mode.'],
      ['Held', 'bytes reachable at a GC: allocated before it and collected after it (or never); estimated from sampled objects. “Held at end”: at the last GC.'],
      ['Peak held', 'held bytes at the GC after which the heap held the most, with the stacks that held them.'],
      ['Native outstanding', 'native bytes (direct buffers, Unsafe) allocated while memscope tracked and not freed at the end; exact.'],
      ['Flame graph', 'each box is a frame; its width is its share of the metric. Click to zoom, search to highlight; colours tell application, library and JDK code apart.']
    ];
    if (isDiff) {
      defs = [
        ['Change', 'new run minus base run, for the compared figure (' + (D.meta.metricLabel || '') + ')' + (D.meta.normalized ? ', each divided by its run’s ' + (D.meta.per ? D.meta.per : 'duration') : '') + '.'],
        ['Differential flame graph', 'widths from one run (or the size of the change); colour: red where the stack grew, blue where it shrank, deeper for a larger change relative to the stack; faded where the change is within sampling noise.']
      ];
    }
    var over = D.definitions || {};
    var dl = el('dl');
    defs.forEach(function (d) { dl.appendChild(el('dt', null, d[0])); dl.appendChild(el('dd', null, over[d[0]] || d[1])); });
    $('definitions').appendChild(dl);
    $('notes').textContent = (D.notes || []).join(' ');
  }

  function fatal(e) {
    var box = el('div', {className: 'panel', id: 'fatal', style: 'border-color:#c0392b'}, el('h2', null, 'This page could not be drawn'), el('p', null, String(e && e.message || e)));
    document.querySelector('main').insertBefore(box, document.querySelector('main').firstChild);
  }

  try {
    if (D.format !== 'memscope-page') throw new Error('not a memscope page-data document: ' + D.format);
    if (isDiff) {
      renderDiffHeader();
      renderDiffCards();
      renderDiffProblems();
      $('timeline-section').hidden = true;
      initFlame();
      renderFlame();
      renderDiffTables();
    } else {
      renderHeader();
      renderCards();
      renderProblems();
      initFlame();
      renderChart();
      mark('chart');
      renderFlame();
      mark('flame');
      renderTables();
      mark('tables');
    }
    renderFooter();
    document.body.setAttribute('data-ready', 'true');
    mark('drawn');
  } catch (e) {
    fatal(e);
    throw e;
  }
})();
