// Small helpers shared by the core and the plugins. Text from reports (region, metric, system
// names) only ever reaches the page through textContent or DOM properties, never as HTML.

export const $ = (id) => document.getElementById(id);

// An element with properties and children (strings become text nodes, never HTML).
export function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'style') Object.assign(e.style, v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k in e) e[k] = v;
    else e.setAttribute(k, v);
  }
  e.append(...children.filter((c) => c !== null && c !== undefined).map((c) => (typeof c === 'object' ? c : String(c))));
  return e;
}

// An SVG element with attributes (numbers and strings only, set as attributes).
export function svgEl(tag, attrs = {}, text) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

// Six significant digits, as the CubeLib tools print.
export function fmt(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  if (v !== 0 && (Math.abs(v) >= 1e9 || Math.abs(v) < 1e-4)) return v.toExponential(5);
  return String(Number(v.toPrecision(6)));
}

// White → blue → orange → red, like CubeGUI's default scale.
const STOPS = [[255, 255, 255], [198, 219, 239], [107, 174, 214], [253, 212, 158], [252, 141, 89], [215, 48, 31]];
export function colour(share) {
  const s = Math.max(0, Math.min(1, share || 0)) * (STOPS.length - 1);
  const i = Math.min(Math.floor(s), STOPS.length - 2), f = s - i;
  const c = STOPS[i].map((a, k) => Math.round(a + (STOPS[i + 1][k] - a) * f));
  return `rgb(${c.join(',')})`;
}

export function groupBy(list, key) {
  const m = new Map();
  for (const x of list) { const k = key(x); (m.get(k) || m.set(k, []).get(k)).push(x); }
  return m;
}
