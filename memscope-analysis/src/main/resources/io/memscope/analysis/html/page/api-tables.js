/* memscope report.html, module "api-tables" (report page only): what the application reported through memscope's
 * API: scopes, their anomalies, profiled functions, named objects, pools and their leaks. */
function renderApi(box) {
  var scopes = D.scopes || [], fns = D.functions || [], objs = D.trackedObjects || [], pools = D.pools || [];
  var leaks = D.poolLeaks || [], sa = D.scopeAnomalies || {};
  if (!scopes.length && !fns.length && !objs.length && !pools.length) {
    box.appendChild(el('section', {className: 'panel', id: 'api-none'}, el('h2', null, 'Scopes, functions, named objects and pools'),
      el('p', {className: 'hint'}, 'None in this recording: the application opened no memscope scope, tracked no object, used no pool tracker, and no function was profiled (memscope run --functions).')));
    return;
  }
  if (scopes.length) renderScopes(box, scopes);
  if (Object.keys(sa).length) renderScopeAnomalies(box, sa);
  if (fns.length) renderFunctions(box, fns);
  if (objs.length) renderTrackedObjects(box, objs);
  if (pools.length) renderPools(box, pools, leaks);
}
/** Memory by scope; a click on a scope restricts the flame graph to it. */
function renderScopes(box, scopes) {
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
/** Scopes closed out of order, twice or on another thread. */
function renderScopeAnomalies(box, sa) {
  box.appendChild(makeTable({
    id: 'scope-anomalies', title: 'Scope anomalies', filter: false,
    intro: 'Scopes closed out of order, twice or on another thread: memscope counted and repaired them; the application was not disturbed.',
    rows: Object.keys(sa).map(function (k) { return {kind: k, count: sa[k]}; }), sort: {key: 'count', dir: 'descending'},
    columns: function () {
      return [col('kind', 'Kind', 'text', function (x) { return x.kind; }), col('count', 'Count', 'count', function (x) { return x.count; })];
    }
  }).panel);
}
/** The profiled methods by call site. */
function renderFunctions(box, fns) {
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
/** The objects the application named. */
function renderTrackedObjects(box, objs) {
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
        col('alive', 'Alive', 'text', function (o) { return trackedAlive(o) ? 'alive at the end' : 'collected at ' + fmtSec(o.collectedAtMs / 1000); })
      ];
    }
  }).panel);
}
/** Pools and their leases lost or never returned. */
function renderPools(box, pools, leaks) {
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
/** A named object is alive at the end when the page data says so, or (without that flag) when it has no collection
 * time: collectedAtMs null, or -1 as older page data wrote it. */
function trackedAlive(o) {
  return o.alive != null ? !!o.alive : !(o.collectedAtMs >= 0);
}
