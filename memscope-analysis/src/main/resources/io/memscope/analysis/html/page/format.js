/* memscope report.html, module "format": numbers as the page shows them (bytes, counts, times, shares), estimates
 * rounded to their precision, and the colour mix of the differential flame graph. Pure functions of their arguments
 * (the estimates read INTERVAL and EXACT_ALLOC, set by "model" before any page is drawn). */
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
function estError(bytes, interval) {
  var m = interval == null ? INTERVAL : interval;
  return m > 0 ? Math.sqrt(m * Math.abs(bytes || 0)) : 0;
}
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
function fmtEstCount(n, bytes, interval) {
  var m = interval == null ? INTERVAL : interval;
  if (n == null || isNaN(n) || n <= 0 || !(bytes > 0) || m <= 0) return fmtCount(n);
  var se = n * estError(bytes, m) / bytes;
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

/** The colour a fraction t (0..1) of the way from one #rrggbb colour to another, as "rgb(r, g, b)": a linear mix of
 * each channel, rounded (what d3's interpolateRgb gives with its default gamma of 1). */
function mixRgb(from, to, t) {
  var out = [];
  for (var i = 1; i < 7; i += 2) {
    var a = parseInt(from.substring(i, i + 2), 16), b = parseInt(to.substring(i, i + 2), 16);
    out.push(Math.max(0, Math.min(255, Math.round(a + t * (b - a)))));
  }
  return 'rgb(' + out.join(', ') + ')';
}
/** A linear map from [d0, d1] onto [0, w] (d3's scaleLinear without clamping; a point domain maps to the middle). */
function linearScale(d0, d1, w) {
  var span = d1 - d0;
  return span ? function (v) { return w * ((v - d0) / span); } : function () { return w / 2; };
}
