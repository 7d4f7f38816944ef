// Call graph (CubeGUI's Callgraph plugin): regions as nodes, calls between them as edges,
// laid out by dagre (npm, compiled in at build time as /vendor/dagre.js; callgraph_layout.js).
// A node's value is the region's exclusive value summed over its call paths, an edge's the
// inclusive value of the call paths where the caller calls the callee; nodes are sized and
// coloured by their share. Regions are told apart by name. Only the MAX_NODES regions of
// largest inclusive value and, of the edges among them, each one's largest incoming edge and
// the largest others up to MAX_EDGES are drawn (the caption says how many of how many), so a
// report of 100,000 call paths draws a few hundred elements; the server sums and picks them
// (/api/v1/callgraph, cubekit/call_graph.hpp). A click on a node selects the region's largest
// call path.
//
// dagre takes 50-300 ms for those 50 regions on a loaded 2-core machine (docs/viewer.md), so:
// a layout depends on the graph's shape only (which regions, which calls; every node has a
// slot of the same height) and is kept per report and shape, so a metric change that draws the
// same regions only recolours; a new shape is laid out in a Web Worker while the page shows at
// once the selected region's callers and callees (a small dagre layout on the page's thread),
// then the whole graph when the worker answers.
import { el, svgEl } from '../core/util.js';

// dagre's time grows fast with the edges and with how many ranks they span: on a generated
// report 60 edges lay out in 70-190 ms, 400 in 7 s (docs/viewer.md).
const MAX_NODES = 50;
const MAX_EDGES = 60;
// The first paint of a shape not laid out yet: the selected region and at most this many of
// its callers and callees.
const MAX_NEIGHBOURS = 12;
// Layouts and graphs kept per report (shapes seen, e.g. one per metric whose largest regions
// differ; the graphs of the metrics seen).
const MAX_LAYOUTS = 16;
let box = null, layoutLib = null, drawn = { key: '' }, layouts = new Map(), graphs = new Map(), selects = 0;

// The layout module (callgraph_layout.js, which imports dagre), or null when the build had no
// npm and /vendor/dagre.js is missing.
async function layoutModule() {
  if (layoutLib === null) {
    try { layoutLib = await import('./callgraph_layout.js'); } catch (e) { layoutLib = false; }
  }
  return layoutLib || null;
}

// dagre's first layouts on the page's thread compile its code (7-20 ms for a dozen regions,
// three times that on a loaded machine), which the tab's first answer would pay: one small
// layout of a few ranks and crossings when the page is first idle, once per page.
let warmed = false;
function warmUp(lib) {
  if (warmed) return;
  warmed = true;
  const names = ['a', 'b', 'c', 'd'];
  const shape = { nodes: names.map((name) => ({ name, width: 20 })),
    links: [['a', 'b'], ['a', 'c'], ['b', 'd'], ['c', 'd'], ['a', 'd']].map(([from, to]) => ({ from, to })) };
  (window.requestIdleCallback || ((f) => setTimeout(f, 500)))(() => lib.layOut(shape));
}

// ---- layouts in a Web Worker -----------------------------------------------------------------
let worker = null, nextId = 0;
const waiting = new Map();  // message id → {resolve, reject, here (lay out on this thread)}

function startWorker() {
  try {
    worker = new Worker(new URL('./callgraph_layout.js', import.meta.url), { type: 'module' });
  } catch (e) { worker = false; return; }
  worker.onmessage = ({ data }) => {
    const w = waiting.get(data.id);
    waiting.delete(data.id);
    if (data.error) w.reject(new Error(data.error)); else w.resolve(data.layout);
  };
  // A worker that cannot start (no module workers): lay out on this thread from now on.
  worker.onerror = (e) => {
    e.preventDefault();
    worker = false;
    for (const w of waiting.values()) w.here();
    waiting.clear();
  };
}

function layOutInWorker(lib, shape) {
  if (worker === null) startWorker();
  return new Promise((resolve, reject) => {
    const here = () => { try { resolve(lib.layOut(shape)); } catch (e) { reject(e); } };
    if (!worker) { setTimeout(here, 0); return; }
    const id = ++nextId;
    waiting.set(id, { resolve, reject, here });
    worker.postMessage({ id, shape });
  });
}

// Keeps `value` under `key` in `map`, at most MAX_LAYOUTS entries (the oldest goes first).
function remember(map, key, value) {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_LAYOUTS) map.delete(map.keys().next().value);
}

// The regions and calls drawn for the selection's metric (kept per metric of the report: a
// metric's values do not change, a user's metric is named by its expression). The server sums
// the call paths into regions and calls and picks the heaviest (/api/v1/callgraph): a report of
// 100,000 call paths would otherwise send 100,000 values twice and sum them here (300-500 ms).
async function graphOf(s, api) {
  const g = await api.get('callgraph', { report: s.report, metric: s.metric, metric_flavour: s.metricFlavour, regions: MAX_NODES, calls: MAX_EDGES });
  return { nodes: g.regions, links: g.calls.map((e) => ({ from: e.from, to: e.to, value: e.value, calls: e.call_paths })),
    regionCount: g.region_count, edgeCount: g.call_count };
}

// The layout of `shape` for this report: kept, or asked of the worker once.
function layoutOf(lib, shape) {
  let entry = layouts.get(shape.key);
  if (!entry) {
    entry = { layout: null };
    entry.promise = layOutInWorker(lib, shape).then((layout) => { entry.layout = layout; return layout; },
      (e) => { layouts.delete(shape.key); throw e; });
    remember(layouts, shape.key, entry);
  }
  return entry;
}

const nodeWidth = (name) => Math.min(260, 16 + 6.5 * name.length);

// What a layout depends on: the regions (and so their widths) and the calls drawn.
function shapeOf(nodes, links) {
  const names = nodes.map((n) => n.name).sort();
  const calls = links.map((e) => [e.from, e.to]).sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1));
  return { key: JSON.stringify([names, calls]),
    nodes: names.map((name) => ({ name, width: nodeWidth(name) })),
    links: calls.map(([from, to]) => ({ from, to })) };
}

// The region `name` (or the largest) with its largest callers and callees among the drawn.
function neighbourhood(picked, name) {
  const centre = picked.nodes.find((n) => n.name === name) || picked.nodes[0];
  const near = picked.links.filter((e) => e.from === centre.name || e.to === centre.name).slice(0, MAX_NEIGHBOURS);
  const names = new Set([centre.name, ...near.flatMap((e) => [e.from, e.to])]);
  const nodes = picked.nodes.filter((n) => names.has(n.name));
  return { centre, nodes, links: picked.links.filter((e) => names.has(e.from) && names.has(e.to)) };
}

// The graph of `nodes` and `links` (the drawn part of `picked`) at the positions of `layout`,
// sized and coloured by the values. `stage` says whether it is the whole graph.
function draw(picked, nodes, links, layout, stage, api) {
  const max = Math.max(1e-300, ...picked.nodes.map((n) => Math.abs(n.excl)));
  const width = Math.ceil(layout.width), height = Math.ceil(layout.height);
  const svg = svgEl('svg', { id: 'callgraph', width, height, viewBox: `0 0 ${width} ${height}`, 'data-stage': stage });
  const boxes = new Map(nodes.map((n) => {
    const share = Math.abs(n.excl) / max, { x, y } = layout.nodes[n.name];
    return [n.name, { n, share, x, y, w: nodeWidth(n.name), h: 18 + Math.round(18 * Math.sqrt(share)) }];
  }));
  const maxEdge = Math.max(1e-300, ...links.map((e) => Math.abs(e.value)));
  const byEnds = new Map(links.map((e) => [`${e.from}\u0000${e.to}`, e]));
  for (const { from, to, points } of layout.edges) {
    const e = byEnds.get(`${from}\u0000${to}`);
    // The ends touch the boxes, which may be lower than their slots.
    const ends = points.map((p, i) => {
      const b = i === 0 ? boxes.get(from) : i === points.length - 1 ? boxes.get(to) : null;
      return b ? { x: p.x, y: Math.min(b.y + b.h / 2, Math.max(b.y - b.h / 2, p.y)) } : p;
    });
    const d = ends.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join('');
    const path = svgEl('path', { d, class: 'edge', 'stroke-width': (0.6 + 3 * Math.abs(e.value) / maxEdge).toFixed(2), 'data-from': e.from, 'data-to': e.to, 'data-value': e.value, 'data-calls': e.calls });
    path.append(svgEl('title', {}, `${e.from} → ${e.to}: ${api.format(e.value)} (${e.calls} call paths)`));
    svg.append(path);
  }
  for (const { n, share, x, y, w, h } of boxes.values()) {
    const node = svgEl('g', { class: 'node', transform: `translate(${(x - w / 2).toFixed(1)},${(y - h / 2).toFixed(1)})`, 'data-region': n.name, 'data-value': n.excl, 'data-incl': n.incl });
    node.append(svgEl('rect', { width: w, height: h, rx: 3, fill: api.colour(share) }),
      svgEl('text', { x: w / 2, y: h / 2 + 4, 'text-anchor': 'middle' }, n.name.length > 38 ? `${n.name.slice(0, 37)}…` : n.name),
      svgEl('title', {}, `${n.name}: ${api.format(n.excl)} exclusive, ${api.format(n.incl)} inclusive`));
    node.addEventListener('click', () => api.selectCallPath(n.top));
    svg.append(node);
  }
  svg.dataset.elements = String(svg.querySelectorAll('*').length);
  return svg;
}

function caption(d, text) {
  return el('p', { className: 'caption' }, `${d.metric} (${d.flavour}): ${text}`);
}

// The whole graph of `d` at `layout`; `kept` says whether the layout was laid out before.
function drawWhole(d, layout, kept, api) {
  const p = d.picked;
  const svg = draw(p, p.nodes, p.links, layout, 'whole', api);
  svg.dataset.layout = kept ? 'kept' : 'new';
  box.replaceChildren(caption(d, `${p.nodes.length} of ${p.regionCount} regions, ${p.links.length} of ${p.edgeCount} calls`), svg);
}

// While the worker lays out the whole graph: the selected region's callers and callees.
function drawNeighbourhood(d, lib, name, api) {
  const near = neighbourhood(d.picked, name);
  const svg = draw(d.picked, near.nodes, near.links, lib.layOut(shapeOf(near.nodes, near.links)), 'neighbourhood', api);
  box.replaceChildren(caption(d, `${near.centre.name}, its callers and callees (${near.nodes.length} of ${d.picked.nodes.length} regions); laying out the rest …`), svg);
}

export default {
  name: 'Call graph',
  help: 'Regions as nodes, calls as edges, sized and coloured by the selected metric (exclusive per region).',
  mount(element) {
    box = el('div', { className: 'callgraph' });
    element.append(box);
  },
  // The layout module and the worker are started with the first report, and dagre warmed up
  // on the page, so that opening the tab does not wait for dagre to load or compile.
  async onReportOpened() {
    drawn = { key: '' }; layouts = new Map(); graphs = new Map();
    if (box) box.replaceChildren();
    const lib = await layoutModule();
    if (!lib) return;
    if (worker === null) startWorker();
    warmUp(lib);
  },
  async onSelect(s, api) {
    const mine = ++selects;
    const key = `${s.report}|${s.metric}|${s.metricFlavour}`;
    const lib = await layoutModule();
    if (!lib) { box.replaceChildren(el('p', {}, 'The layout library (dagre) was not built in: npm was missing when cubekit was built.')); return; }
    if (drawn.key !== key) {
      const picked = graphs.get(key) || await graphOf(s, api);
      remember(graphs, key, picked);
      const shape = shapeOf(picked.nodes, picked.links);
      drawn = { key, picked, metric: s.metric, flavour: s.metricFlavour, entry: layoutOf(lib, shape), whole: false };
    }
    const d = drawn;
    if (!d.picked.nodes.length) { box.replaceChildren(caption(d, 'no region has a value')); return; }
    if (!d.whole) {
      if (d.entry.layout) drawWhole(d, d.entry.layout, true, api);
      else {
        drawNeighbourhood(d, lib, s.callName, api);
        const layout = await d.entry.promise;
        if (mine !== selects || drawn !== d) return;  // a newer selection paints instead
        drawWhole(d, layout, false, api);
      }
      d.whole = true;
    }
    const selected = s.callName;
    for (const g of box.querySelectorAll('g.node')) {
      g.classList.toggle('selected', g.dataset.region === selected);
      if (g.dataset.region === selected) g.scrollIntoView({ block: 'center', inline: 'center' });
    }
  },
};
