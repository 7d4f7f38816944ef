// CubeGUI's value modes and its way of printing a pane's numbers: one exponent common to the
// pane (shown in its caption with the unit), mantissas with a fixed number of decimals so that
// they align. docs/viewer.md defines each mode.
import { fmt } from './util.js';

export const MODES = {
  abs: 'absolute',
  root: 'own root percent',
  metric: 'metric selection percent',
  calls: 'call tree selection percent',
  system: 'system selection percent',
  peer: 'peer percent',
  peerdist: 'peer distribution',
  external: 'external percent',
};

// The modes a pane offers: selections of its own pane and the panes left of it.
export const PANE_MODES = {
  metrics: ['abs', 'root', 'metric', 'external'],
  calls: ['abs', 'root', 'metric', 'calls', 'external'],
  system: ['abs', 'root', 'metric', 'calls', 'system', 'peer', 'peerdist', 'external'],
};

export const isPercent = (mode) => mode !== 'abs';

// 100·value/reference; NaN when the reference is 0 or unknown (shown as "–").
export const percent = (value, reference) =>
  (reference && Number.isFinite(reference) ? (100 * value) / reference : NaN);

// Peer distribution: where the value lies between its peers' minimum (0 %) and maximum (100 %).
export function distribution(value, peers) {
  const lo = Math.min(...peers), hi = Math.max(...peers);
  return hi > lo ? (100 * (value - lo)) / (hi - lo) : (peers.length ? 0 : NaN);
}

// How a pane prints `values` (the numbers of its visible rows in the pane's mode): percentages
// with 2 decimals; absolute numbers scaled by a common power of ten when the largest is below
// 1 or at least 1000, with 5 decimals (six significant digits for the largest), integers as
// they are. `mixedUnits` (the metric pane, whose rows are of different metrics): each number
// on its own, with six significant digits.
export function paneFormat(values, mode, mixedUnits = false) {
  const finite = values.filter(Number.isFinite);
  if (isPercent(mode)) return { exponent: 0, decimals: 2 };
  if (mixedUnits) return { exponent: 0, own: true };
  const max = Math.max(0, ...finite.map(Math.abs));
  const exponent = max === 0 ? 0 : Math.floor(Math.log10(max));
  if (exponent >= 0 && exponent < 3) return { exponent: 0, decimals: finite.every(Number.isInteger) ? 0 : 3 };
  return { exponent, decimals: 5 };
}

export function formatValue(value, { exponent, decimals, own }) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (own) return fmt(value);
  const scaled = exponent ? value / 10 ** exponent : value;
  const text = scaled.toFixed(decimals);
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

// The caption of a pane: "×10^3 sec", "%", or the unit alone.
export function caption({ exponent }, mode, unit) {
  if (isPercent(mode)) return '%';
  return [exponent ? `×10^${exponent}` : '', unit || ''].filter(Boolean).join(' ');
}

// The references of the call pane's modes for views of the whole call tree (flame graph,
// sunburst), from the boxes of /flame (each drawn call path and its ancestors, with its
// inclusive value): each call path's own root's value, the selected metric's total (the
// roots' sum, /flame's `total`) and the selected call path's value as the call pane shows it
// (asked for when it is expanded, or not drawn).
export async function callModeRefs(answer, sel, api) {
  const byId = new Map(answer.boxes.map((b) => [b.id, b]));
  const rootOf = (id) => {
    let b = byId.get(id);
    while (b && b.parent !== null) b = byId.get(b.parent);
    return b ? b.id : id;
  };
  const box = byId.get(sel.cnode);
  let selected = box && box.incl;
  if (sel.cnode !== null && (sel.callFlavour === 'excl' || !box)) {
    const r = await api.get('values', { report: sel.report, metric: sel.metric, metric_flavour: sel.metricFlavour, calltree: sel.callFlavour, cnodes: sel.cnode });
    selected = r.values[0][1];
  }
  return { root: (id) => { const r = byId.get(rootOf(id)); return r && r.incl; }, total: answer.total, selected };
}

// The handler of a view of the whole call tree (flame graph, sunburst) drawn on `canvas`: asks
// the server for the boxes at least `minExtent` of `extent` wide down to `depth` (/flame: a
// few thousand of 100,000 call paths, laid out there), drawn by `paint(boxes)`; then the
// references of the call pane's mode for its tooltips, handed to `setRefs` before
// canvas.dataset.refs says 'ready' ('' while they are on their way).
export async function paintWholeTree(canvas, sel, api, { extent, minExtent, depth }, paint, setRefs) {
  canvas.dataset.refs = '';
  const answer = await api.get('flame', { report: sel.report, metric: sel.metric, metric_flavour: sel.metricFlavour, extent, min_extent: minExtent, depth });
  setRefs(null);
  paint(answer.boxes);
  setRefs(await callModeRefs(answer, sel, api));
  canvas.dataset.refs = 'ready';
}

// A call path's inclusive value `v` as text in the call pane's mode (`refs` of callModeRefs):
// absolute as `format` prints it, percentages with two decimals. External percent needs the
// other report's tree: these views show the absolute value then.
export function callModeText(v, id, mode, refs, format) {
  const reference = { root: refs && refs.root(id), metric: refs && refs.total, calls: refs && refs.selected }[mode];
  if (reference === undefined) return format(v);
  const p = percent(v, reference);
  return Number.isNaN(p) ? '–' : `${p.toFixed(2)} %`;
}
