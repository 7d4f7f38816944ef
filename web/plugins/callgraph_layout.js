// The call graph's layout by dagre (npm, compiled in as /vendor/dagre.js), as a function the
// plugin may call on the page's thread and as the body of a module Web Worker
// (`new Worker(url, { type: 'module' })`): the worker answers each message {id, shape} with
// {id, layout} or {id, error}. A layout depends on the shape only (node names and widths, the
// edges), never on values, so that one layout serves every metric of that shape.
import dagre from '../vendor/dagre.js';

// The height of every node's slot; a node's box is drawn at most this high, centred in it.
export const SLOT_HEIGHT = 36;

// shape: {nodes: [{name, width}], links: [{from, to}]} → {width, height, nodes: {name: {x, y}},
// edges: [{from, to, points: [{x, y}]}]} (node centres; edge points from caller to callee).
export function layOut(shape) {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 6, ranksep: 60, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of shape.nodes) g.setNode(n.name, { width: n.width, height: SLOT_HEIGHT });
  for (const e of shape.links) g.setEdge(e.from, e.to, {});
  dagre.layout(g);
  const nodes = {};
  for (const name of g.nodes()) { const { x, y } = g.node(name); nodes[name] = { x, y }; }
  const edges = g.edges().map((id) => ({ from: id.v, to: id.w, points: g.edge(id).points.map(({ x, y }) => ({ x, y })) }));
  const { width, height } = g.graph();
  return { width, height, nodes, edges };
}

// As a worker: one layout per message.
if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
  self.onmessage = ({ data: { id, shape } }) => {
    try { self.postMessage({ id, layout: layOut(shape) }); } catch (e) { self.postMessage({ id, error: e.message }); }
  };
}
