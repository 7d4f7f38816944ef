// Call graph (CubeGUI's Callgraph plugin): regions as nodes, calls between them as edges,
// laid out by dagre (npm, compiled in at build time as /vendor/dagre.js). A node's value is the
// region's exclusive value summed over its call paths, an edge's the inclusive value of the
// call paths where the caller calls the callee; nodes are sized and coloured by their share.
// Regions are told apart by name. Only the MAX_NODES regions of largest value and, of the
// edges among them, each one's largest incoming edge and the largest others up to MAX_EDGES
// are drawn, so a report of 100,000 call paths draws a
// few thousand elements at most; a click on a node selects the region's largest call path.
import { el, svgEl } from '../core/util.js';

// dagre's time grows fast with the edges and with how many ranks they span: on a generated
// report 60 edges lay out in 70-190 ms, 400 in 7 s (docs/viewer.md).
const MAX_NODES = 50;
const MAX_EDGES = 60;
let box = null, layoutLib = null, drawn = { key: '', graph: null };

// The layout library, or null with a message when the build had no npm.
async function dagre() {
  if (layoutLib === null) {
    try { layoutLib = (await import('../vendor/dagre.js')).default; } catch (e) { layoutLib = false; }
  }
  return layoutLib || null;
}

// Per region: exclusive sum, inclusive sum over its outermost call paths (for ranking), its
// call path of largest inclusive value; per caller→callee pair: inclusive sum and count.
export function aggregate(calls, incl, excl) {
  const byId = new Map(calls.map((c) => [c.id, c]));
  const regions = new Map(), edges = new Map();
  const region = (name) => regions.get(name) || regions.set(name, { name, excl: 0, incl: 0, top: null, topValue: -Infinity }).get(name);
  for (const c of calls) {
    const r = region(c.name);
    const vi = incl.get(c.id) || 0;
    r.excl += excl.get(c.id) || 0;
    if (vi > r.topValue) { r.top = c.id; r.topValue = vi; }
    const parent = c.parent === null ? null : byId.get(c.parent);
    if (!parent || parent.name !== c.name) r.incl += vi;
    if (!parent) continue;
    const key = `${parent.name}\u0000${c.name}`;
    const e = edges.get(key) || edges.set(key, { from: parent.name, to: c.name, value: 0, calls: 0 }).get(key);
    e.value += vi;
    e.calls += 1;
  }
  return { regions, edges };
}

// The regions and edges drawn: the largest by inclusive value, edges among them.
function pick({ regions, edges }) {
  const nodes = [...regions.values()].sort((a, b) => Math.abs(b.incl) - Math.abs(a.incl)).slice(0, MAX_NODES);
  const kept = new Set(nodes.map((n) => n.name));
  const among = [...edges.values()].filter((e) => kept.has(e.from) && kept.has(e.to) && e.from !== e.to)
    .sort((a, b) => Math.abs(b.value) - Math.abs(a.value));
  // Each region's largest call from a drawn caller first (no node left hanging), then the rest.
  const first = new Map();
  for (const e of among) if (!first.has(e.to)) first.set(e.to, e);
  const chosen = new Set(first.values());
  for (const e of among) { if (chosen.size >= MAX_EDGES) break; chosen.add(e); }
  const links = among.filter((e) => chosen.has(e));
  return { nodes, links, regionCount: regions.size, edgeCount: edges.size };
}

function draw(lib, picked, api) {
  const max = Math.max(1e-300, ...picked.nodes.map((n) => Math.abs(n.excl)));
  const g = new lib.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 6, ranksep: 60, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of picked.nodes) {
    const share = Math.abs(n.excl) / max;
    g.setNode(n.name, { width: Math.min(260, 16 + 6.5 * n.name.length), height: 18 + Math.round(18 * Math.sqrt(share)), n, share });
  }
  for (const e of picked.links) g.setEdge(e.from, e.to, { e });
  lib.layout(g);
  const { width, height } = g.graph();
  const svg = svgEl('svg', { id: 'callgraph', width: Math.ceil(width), height: Math.ceil(height), viewBox: `0 0 ${Math.ceil(width)} ${Math.ceil(height)}` });
  const maxEdge = Math.max(1e-300, ...picked.links.map((e) => Math.abs(e.value)));
  for (const id of g.edges()) {
    const { e, points } = g.edge(id);
    const d = points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join('');
    const path = svgEl('path', { d, class: 'edge', 'stroke-width': (0.6 + 3 * Math.abs(e.value) / maxEdge).toFixed(2), 'data-from': e.from, 'data-to': e.to, 'data-value': e.value, 'data-calls': e.calls });
    path.append(svgEl('title', {}, `${e.from} → ${e.to}: ${api.format(e.value)} (${e.calls} call paths)`));
    svg.append(path);
  }
  for (const name of g.nodes()) {
    const { x, y, width: w, height: h, n, share } = g.node(name);
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

export default {
  name: 'Call graph',
  help: 'Regions as nodes, calls as edges, sized and coloured by the selected metric (exclusive per region).',
  mount(element) {
    box = el('div', { className: 'callgraph' });
    element.append(box);
  },
  onReportOpened() { drawn = { key: '', graph: null }; if (box) box.replaceChildren(); },
  async onSelect(s, api) {
    const key = `${s.report}|${s.metric}|${s.metricFlavour}`;
    if (drawn.key !== key) {
      const lib = await dagre();
      if (!lib) { box.replaceChildren(el('p', {}, 'The layout library (dagre) was not built in: npm was missing when cubekit was built.')); return; }
      const base = { report: s.report, metric: s.metric, metric_flavour: s.metricFlavour };
      const [calls, incl, excl] = await Promise.all([api.calls(), api.get('values', { ...base, calltree: 'incl' }), api.get('values', { ...base, calltree: 'excl' })]);
      const picked = pick(aggregate(calls, new Map(incl.values), new Map(excl.values)));
      const caption = el('p', { className: 'caption' }, `${s.metric} (${s.metricFlavour}): ${picked.nodes.length} of ${picked.regionCount} regions, ${picked.links.length} of ${picked.edgeCount} calls`);
      box.replaceChildren(caption, draw(await dagre(), picked, api));
      drawn = { key, graph: picked };
    }
    const selected = s.callName;
    for (const g of box.querySelectorAll('g.node')) {
      g.classList.toggle('selected', g.dataset.region === selected);
      if (g.dataset.region === selected) g.scrollIntoView({ block: 'center', inline: 'center' });
    }
  },
};
