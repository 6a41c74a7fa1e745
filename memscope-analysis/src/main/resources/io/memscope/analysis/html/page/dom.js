/* memscope report.html, module "dom": element helpers. Every name that comes from the application (classes, methods,
 * files, threads, the command line) is put into the page as text only: textContent, createTextNode, setAttribute,
 * canvas fillText. No module of the page uses innerHTML, outerHTML, insertAdjacentHTML, document.write or eval. */
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
var SVG_NS = 'http://www.w3.org/2000/svg';
/** An SVG element (attributes set with setAttribute, so as text). */
function svgEl(tag, attrs) {
  var e = document.createElementNS(SVG_NS, tag);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  return e;
}
