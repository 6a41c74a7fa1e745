/* memscope report.html, module "model": the page data (parsed once) and what the flame graph and the tables derive
 * from it: the metrics, the state of the page's controls, the time range and scope filters, each stack's value under
 * them, and the flame graph's tree laid out by d3-hierarchy. */
function mark(name) { if (window.performance && performance.mark) performance.mark('memscope-' + name); }
mark('start');
var D = JSON.parse(document.getElementById('memscope-data').textContent);
mark('parsed');
var S = D.stacks || {frames: []};
var NSTACKS = S.frames.length;
var INTERVAL = (D.meta && D.meta.intervalBytes) || 0;
/** The malloc sampling interval: native:malloc figures are estimates from samples taken at it (0: no malloc). */
var MALLOC_INTERVAL = (D.meta && D.meta.mallocIntervalBytes) || 0;
var EXACT_ALLOC = !!(D.totals && D.totals.exact);
var frames = D.frames || [];
var frameKinds = D.frameKinds || [];
var types = D.types || [];
var KIND_NAMES = ['application', 'library', 'JDK', 'allocated type', 'native code'];
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
    help: 'native bytes allocated and not freed at the end (malloc: estimated from its samples)'},
  {key: 'nativeAllocBytes', label: 'Native allocated', unit: 'bytes', col: 'nativeAllocBytes',
    help: 'native bytes allocated in the window (malloc: estimated from its samples)'}
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
/** Orders scope paths as a tree: a path right before its children. */
function comparePaths(a, b) {
  var x = a.split('/'), y = b.split('/');
  for (var i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}
/* ---------- the flame graph's tree ---------- */
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
  return layoutTree(root);
}
/** d3-hierarchy's partition of a tree of {name, self, map}: every node gets x0..x1 within 0..1 (its value's share), the
 * larger child first, ties by name. */
function layoutTree(root) {
  var h = d3.hierarchy(root, function (d) { return d.map.size ? Array.from(d.map.values()) : null; })
    .sum(function (d) { return d.self; })
    .sort(function (a, b) { return b.value - a.value || (a.data.name < b.data.name ? -1 : 1); });
  d3.partition()(h);
  return h;
}
