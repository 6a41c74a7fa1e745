/* memscope report.html, module "table": sortable, filterable tables with expandable stacks (both pages). */
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
    var behind = col.est(row), m = col.estInterval ? col.estInterval(row) : undefined;
    if (col.type === 'bytes') return fmtEstBytes(v, estError(behind, m));
    if (col.type === 'count') return fmtEstCount(v, behind, m);
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

function siteStack(site) {
  var s = (site.stacks || [])[0];
  return s == null ? (site.stack || null) : S.frames[s];
}
/** The first columns of every site table: the site and the allocated type. */
function siteColumns() {
  return [
    col('site', 'Site', 'text', function (s) { return s.site; }, {code: true}),
    col('type', 'Type', 'text', function (s) { return typeName(s.type); }, {code: true})
  ];
}
function col(key, label, type, get, extra) {
  var c = {key: key, label: label, type: type, get: get};
  for (var k in extra) c[k] = extra[k];
  return c;
}
