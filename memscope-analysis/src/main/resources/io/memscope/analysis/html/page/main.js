/* memscope report.html, module "main" (last but "retention"): the footer, and drawing the page the data asks for, in
 * order; an error is shown on the page (and thrown, for the console). */
function renderFooter() {
  var defs = [
    ['Allocated', 'bytes and objects allocated on the heap; in sample mode an unbiased estimate from sampled objects (each stands for 1/p objects of its size), exact in exact mode.'],
    ['Held', 'bytes reachable at a GC: allocated before it and collected after it (or never); estimated from sampled objects. “Held at end”: at the last GC.'],
    ['Peak held', 'held bytes at the GC after which the heap held the most, with the stacks that held them.'],
    ['Native outstanding', 'native bytes (direct buffers, Unsafe, arenas; malloc when tracked) allocated while memscope tracked and not freed at the end; exact, but malloc, estimated from its samples as heap figures are.'],
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
    renderProcessMemory();
    mark('process-memory');
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
