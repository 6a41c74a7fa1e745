/* memscope report.html, module "retention" (report page only, after "main"): "Why memory is held" (page data
 * "retention", see docs/formats/report-html.md); its own function, so its names stay its own. Each site's
 * shapes of paths from GC roots become one tree: the root, then each step down to the site's objects, every node
 * with the bytes and samples of the paths through it. A search keeps the sites and branches whose root, classes or
 * fields match. Names from the application go into the page as text only (textContent, createTextNode). */
(function () {
  'use strict';

  var R = D.retention; // D: the page data, parsed by the module "model"
  var section = document.getElementById('retention-section');
  if (!R || !section) return;

  var UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  function fmtBytes(b) {
    var v = Math.abs(b), u = 0;
    while (v >= 1024 && u < UNITS.length - 1) { v /= 1024; u++; }
    return (b < 0 ? '−' : '') + (u === 0 ? String(Math.round(v)) : v.toFixed(v >= 100 ? 0 : 1)) + ' ' + UNITS[u];
  }
  function fmtMs(ms) { return ms < 1000 ? (ms < 10 ? ms.toFixed(1) : Math.round(ms)) + ' ms' : (ms / 1000).toFixed(2) + ' s'; }
  function plural(n, what) { return n.toLocaleString('en-US') + ' ' + what + (n === 1 ? '' : 's'); }
  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text != null) e.textContent = text;
    return e;
  }

  var w = R.walk;
  var what = w.trigger === 'end' ? 'at the end of the capture' : 'on demand, ' + (w.timeMs / 1000).toFixed(1) + ' s into the run';
  var line = 'One walk of the heap from its GC roots ' + what + ': ' + w.samplesReached + ' of ' +
      plural(w.samplesTracked, 'tracked sampled object') + ' reached through ' + plural(w.objectsVisited, 'object') +
      '; the application paused ' + fmtMs(w.pauseMs) + '.';
  if (!w.complete) {
    line += w.outcome === 'failed' ? ' The walk failed: ' + (w.detail || 'unknown reason') + '.'
        : ' It stopped at its ' + w.outcome + ' (' + (w.detail || '') + '): objects it did not reach are not shown, held or not.';
  }
  document.getElementById('retention-walk').textContent = line;
  section.hidden = false;
  var host = document.getElementById('retention');
  if (!R.sites.length) {
    host.appendChild(el('p', 'hint', 'The walk reached no sampled object of a heap site in this report.'));
  }

  /* a site's shapes as one tree: root -> step -> ... ; each node sums the bytes and samples of its paths */
  function tree(site) {
    var top = {children: [], byKey: {}};
    site.retainedBy.forEach(function (s) {
      var node = top;
      [s.root].concat(s.path).forEach(function (text, depth) {
        var child = node.byKey[text];
        if (!child) {
          child = {text: text, root: depth === 0, bytes: 0, samples: 0, children: [], byKey: {}};
          node.byKey[text] = child;
          node.children.push(child);
        }
        child.bytes += s.bytes;
        child.samples += s.samples;
        node = child;
      });
    });
    return top;
  }

  function renderNode(n, site) {
    var li = el('li', 'rnode');
    var head = el('div', 'rrow');
    head.appendChild(el('span', 'rbytes', fmtBytes(n.bytes)));
    head.appendChild(el('span', n.root ? 'rroot' : 'rstep', n.text));
    head.appendChild(el('span', 'rsamples', plural(n.samples, 'sample')));
    li.appendChild(head);
    li._text = n.text.toLowerCase();
    li._raw = n.text;
    var ul = el('ul', 'rtree');
    if (n.children.length) {
      n.children.sort(function (a, b) { return b.bytes - a.bytes; });
      n.children.forEach(function (c) { ul.appendChild(renderNode(c, site)); });
    } else {
      var leaf = el('li', 'rnode rleaf');
      var row = el('div', 'rrow');
      row.appendChild(el('span', 'rbytes', ''));
      row.appendChild(el('span', 'rsite', site.site + ' [' + site.type + ']'));
      leaf.appendChild(row);
      ul.appendChild(leaf);
    }
    li.appendChild(ul);
    return li;
  }

  var blocks = R.sites.map(function (site) {
    var d = el('details', 'rsite-block');
    d.open = site.leak;
    var sum = el('summary');
    sum.appendChild(el('span', 'rbytes', fmtBytes(site.retainedBy.reduce(function (a, s) { return a + s.bytes; }, 0))));
    sum.appendChild(el('span', 'rsite', site.site));
    sum.appendChild(el('span', 'rtype', site.type));
    if (site.leak) sum.appendChild(el('span', 'rtag', 'leak suspect'));
    sum.appendChild(el('span', 'rsamples', plural(site.retainedBy.length, 'path')));
    d.appendChild(sum);
    var ul = el('ul', 'rtree rtop');
    tree(site).children.forEach(function (c) { ul.appendChild(renderNode(c, site)); });
    d.appendChild(ul);
    d._site = (site.site + ' ' + site.type).toLowerCase();
    host.appendChild(d);
    return d;
  });

  /* search: text (case-insensitive) or /regex/ over roots, steps and the site */
  function matcher(q) {
    q = q.trim();
    if (!q) return null;
    var m = /^\/(.*)\/([a-z]*)$/.exec(q);
    if (m) {
      try { var re = new RegExp(m[1], m[2].indexOf('i') >= 0 ? 'i' : ''); return function (s, raw) { return re.test(raw); }; }
      catch (e) { return function () { return false; }; }
    }
    var lower = q.toLowerCase();
    return function (s) { return s.indexOf(lower) >= 0; };
  }
  /* keeps a node when it or a node below it matches; below a match everything stays (the paths it leads to) */
  function filterNode(li, match) {
    var own = match(li._text, li._raw);
    var kids = li.lastChild && li.lastChild.children ? Array.prototype.slice.call(li.lastChild.children) : [];
    var any = false;
    kids.forEach(function (k) {
      if (k._text === undefined) return;
      if (own) {
        clearFilter(k);
        any = true;
      } else if (filterNode(k, match)) {
        any = true;
      }
    });
    li.classList.toggle('rhit', own);
    li.hidden = !(own || any);
    return own || any;
  }
  function clearFilter(li) {
    li.hidden = false;
    li.classList.remove('rhit');
    if (li.lastChild && li.lastChild.children) {
      Array.prototype.forEach.call(li.lastChild.children, clearFilter);
    }
  }
  document.getElementById('retention-search').addEventListener('input', function (ev) {
    var match = matcher(ev.target.value);
    blocks.forEach(function (d) {
      var roots = Array.prototype.slice.call(d.lastChild.children);
      if (!match) {
        roots.forEach(clearFilter);
        d.hidden = false;
        return;
      }
      var siteHit = match(d._site, d._site);
      var hit = false;
      roots.forEach(function (li) {
        if (siteHit) { clearFilter(li); hit = true; } else if (filterNode(li, match)) { hit = true; }
      });
      d.hidden = !hit;
      if (hit) d.open = true;
    });
  });
})();
