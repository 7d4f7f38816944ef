// The three panes as in CubeGUI: metric tree → call tree → system tree, each selection
// narrowing the next; a collapsed node shows its inclusive value, an expanded one its
// exclusive value. Values are printed in each pane's value mode (core/modes.js).
import { $, el, colour } from './util.js';
import { get, ticket, isStale, currentGeneration } from './requests.js';
import { MODES, PANE_MODES, percent, distribution, paneFormat, formatValue, caption } from './modes.js';

export const state = {
  report: '', series: null, tree: null, generation: 0,  // series: the folder when a series item is open
  painted: Promise.resolve(),  // resolved after the open report's first paint (api.painted)
  metric: null, cnode: null, location: null,
  metricTotals: new Map(), callRoots: [], systemValues: null, systemItems: [],
  modes: { metrics: 'abs', calls: 'abs', system: 'abs' },
  external: '', ext: { metricTotals: new Map(), calls: null, systemValues: null },
  marks: { metrics: new Map(), calls: new Map(), system: new Map() },
};

// Set by the plugin host: told of every selection and mode change.
export const hooks = { onSelect() {}, onModes() {} };

export function status(text) { $('status').textContent = text; }
// A failed request shows its message; a stale one is dropped silently.
export const report = (e) => { if (!isStale(e)) status(e.message); };

// ---- generic tree rows ------------------------------------------------------------------

function makeItem(node, tree) {
  const li = el('li', { role: 'treeitem' });
  const toggleBox = el('span', { className: 'toggle' }, node.hasKids ? '▸' : '');
  const row = el('div', { className: 'row' }, toggleBox, el('span', { className: 'swatch' }),
    el('span', { className: 'value' }), el('span', { className: 'uom' }), el('span', { className: 'mark' }), el('span', { className: 'name' }, node.label));
  li.append(row);
  li._node = node;
  node.li = li;
  node.expanded = false;
  toggleBox.addEventListener('click', (e) => { e.stopPropagation(); toggle(node, tree).catch(report); });
  row.addEventListener('click', () => tree.select(node));
  row.addEventListener('dblclick', () => toggle(node, tree).catch(report));
  paintMark(tree.pane, node);
  return li;
}

export async function toggle(node, tree) {
  if (!node.hasKids) return;
  if (!node.expanded && !node.kidsLoaded) {
    node.kidsLoaded = true;
    const ul = el('ul', { role: 'group' });
    for (const k of await tree.loadKids(node)) ul.append(makeItem(k, tree));
    node.li.append(ul);
    node.kids = [...ul.children].map((li) => li._node);
  }
  node.expanded = !node.expanded;
  const ul = node.li.querySelector(':scope > ul');
  if (ul) ul.hidden = !node.expanded;
  node.li.setAttribute('aria-expanded', String(node.expanded));
  node.li.querySelector('.toggle').textContent = node.expanded ? '▾' : '▸';
  tree.onToggle(node);
}

function visibleNodes(rootUl) {
  return [...rootUl.querySelectorAll('li')].filter((li) => li.offsetParent !== null).map((li) => li._node);
}

function markSelected(ul, node) {
  ul.querySelectorAll('.row.selected').forEach((r) => r.classList.remove('selected'));
  if (node) { node.li.firstChild.classList.add('selected'); node.li.setAttribute('aria-selected', 'true'); }
}

// Keyboard: ↑ ↓ move, → opens / goes down, ← closes / goes up, Tab to the next pane.
function keyboard(ul, tree) {
  ul.addEventListener('keydown', async (e) => {
    const nodes = visibleNodes(ul);
    const at = nodes.indexOf(tree.selected);
    const sel = tree.selected;
    let next = null;
    if (e.key === 'ArrowDown') next = nodes[Math.min(at + 1, nodes.length - 1)];
    else if (e.key === 'ArrowUp') next = nodes[Math.max(at - 1, 0)];
    else if (e.key === 'ArrowRight' && sel) {
      if (sel.hasKids && !sel.expanded) await toggle(sel, tree);
      else if (sel.kids && sel.kids.length) next = sel.kids[0];
    } else if (e.key === 'ArrowLeft' && sel) {
      if (sel.expanded) await toggle(sel, tree); else next = sel.parentNode || null;
    } else if (e.key === 'Enter' && sel) await toggle(sel, tree);
    else return;
    e.preventDefault();
    if (next) { tree.select(next); next.li.scrollIntoView({ block: 'nearest' }); }
  });
}

// ---- painting in the pane's value mode -------------------------------------------------------

const rootOf = (n) => { while (n.parentNode) n = n.parentNode; return n; };

// The number a row shows in `mode`, from its absolute value `v` (docs/viewer.md).
function shownValue(pane, n, v, mode) {
  switch (mode) {
    case 'abs': return v;
    case 'root': return percent(v, panes[pane].rootValue(rootOf(n)));
    case 'metric': return percent(v, selectedMetricValue());
    case 'calls': return percent(v, selectedCallValue());
    case 'system': return percent(v, systemTree.selected ? systemValue(systemTree.selected) : NaN);
    case 'peer': return percent(v, Math.max(...peersOf(n)));
    case 'peerdist': return distribution(v, peersOf(n));
    case 'external': return percent(v, panes[pane].externalValue(n));
    default: return NaN;
  }
}

// Paints the visible rows of a pane: `abs(n)` its absolute value, `share(n)` its colour.
function paintPane(pane, nodes, abs, share, unit) {
  const mode = state.modes[pane];
  const shown = nodes.map((n) => shownValue(pane, n, abs(n), mode));
  const format = paneFormat(shown, mode, pane === 'metrics');
  nodes.forEach((n, i) => {
    const row = n.li.firstChild;
    const v = row.querySelector('.value');
    v.dataset.value = abs(n) === null || abs(n) === undefined ? '' : String(abs(n));
    v.dataset.shown = String(shown[i]);
    v.textContent = formatValue(shown[i], format);
    row.querySelector('.swatch').style.background = colour(share(n));
  });
  const box = $(`${pane}-unit`);
  box.textContent = caption(format, mode, unit);
  box.dataset.exponent = String(format.exponent);
}

// The marks of a tree item, one per plugin that set one, side by side.
function paintMark(pane, n) {
  const marks = [...(state.marks[pane].get(n.markId) || new Map()).values()];
  const box = n.li.querySelector(':scope > .row > .mark');
  box.replaceChildren(...marks.map((m) => el('span', { className: m.className || '', title: m.title || '' }, m.text)));
}

// Marks on tree items, set by plugins (`owner`: the plugin's name): `pane` is metrics, calls or
// system; `id` a metric's unique name, a call path's or a location's id; a null mark removes it.
export function setMark(pane, id, mark, owner) {
  const marks = state.marks[pane].get(id) || state.marks[pane].set(id, new Map()).get(id);
  if (mark) marks.set(owner, mark); else marks.delete(owner);
  for (const li of $(pane).querySelectorAll('li')) if (li._node.markId === id) paintMark(pane, li._node);
}

// Removes the marks `owner` set in a pane.
export function clearMarks(pane, owner) {
  for (const marks of state.marks[pane].values()) marks.delete(owner);
  for (const li of $(pane).querySelectorAll('li')) paintMark(pane, li._node);
}

export function repaint() { paintMetrics(); paintCalls(); paintSystem(); }

// ---- metric pane ----------------------------------------------------------------------------

const metricTree = {
  pane: 'metrics',
  selected: null,
  async loadKids(node) { return node.children.map((m) => metricNode(m, node)); },
  select(node) {
    this.selected = node;
    markSelected($('metrics'), node);
    state.metric = node.m.uniq_name;
    reloadCalls();
  },
  onToggle() { paintMetrics(); reloadCalls(); },
  rootValue: (root) => state.metricTotals.get(`${root.m.uniq_name}|incl`),
  externalValue: (n) => state.ext.metricTotals.get(`${n.m.uniq_name}|${n.expanded ? 'excl' : 'incl'}`),
};

function metricNode(m, parentNode) {
  return { m, markId: m.uniq_name, label: m.disp_name || m.uniq_name, children: m.kids, hasKids: m.kids.length > 0, parentNode };
}

// The metric flavour of the selection: expanded → exclusive, as in CubeGUI.
export function metricFlavour() {
  const s = metricTree.selected;
  return s && s.expanded ? 'excl' : 'incl';
}

const selectedMetricValue = () => state.metricTotals.get(`${state.metric}|${metricFlavour()}`);

export const selectedMetric = () => (metricTree.selected ? metricTree.selected.m : null);

// The total of a metric over the whole program: its call tree roots' inclusive values.
async function fetchTotal(report, name, flavour, totals) {
  const key = `${name}|${flavour}`;
  if (!totals.has(key)) {
    const born = currentGeneration();
    const r = await get('children', { report, metric: name, metric_flavour: flavour });
    if (born !== currentGeneration()) return undefined;  // another report opened meanwhile
    totals.set(key, r.cnodes.reduce((s, c) => s + c.incl, 0));
  }
  return totals.get(key);
}

// The other metrics' totals wait until the user has paused: each may decode a metric of
// hundreds of MB, and a click's own requests must not share the server with them.
export const activity = { last: 0 };
const IDLE_MS = 500;
async function untilIdle() {
  for (let wait; (wait = activity.last + IDLE_MS - performance.now()) > 0;)
    await new Promise((resolve) => setTimeout(resolve, wait));
}

// Totals are fetched one metric after the other, the selected one first, so that first paint
// decodes a single metric; the others when the user pauses (untilIdle).
export async function paintMetrics() {
  const nodes = visibleNodes($('metrics'));
  const key = (n) => `${n.m.uniq_name}|${n.expanded ? 'excl' : 'incl'}`;
  const known = nodes.filter((n) => state.metricTotals.has(key(n)));
  const share = (n) => { const r = metricTree.rootValue(rootOf(n)) || state.metricTotals.get(key(n)); return r ? Math.abs(state.metricTotals.get(key(n)) / r) : 0; };
  paintPane('metrics', known, (n) => state.metricTotals.get(key(n)), share, '');
  // The metric pane's rows are of different metrics: each shows its own unit.
  for (const n of known) n.li.querySelector(':scope > .row > .uom').textContent = state.modes.metrics === 'abs' ? n.m.uom || '' : '';
  const born = currentGeneration();
  // The selected metric first: the other panes' metric selection percent needs its total.
  const order = [...nodes.filter((n) => n.m.uniq_name === state.metric), ...nodes.filter((n) => n.m.uniq_name !== state.metric)];
  for (const n of order) {
    if (state.metricTotals.has(key(n)) && !needsExternal(n, key(n))) continue;
    if (n.m.uniq_name !== state.metric) await untilIdle();
    if (born !== currentGeneration()) return;
    const [name, flavour] = key(n).split('|');
    try { await fetchTotal(state.report, name, flavour, state.metricTotals); } catch (e) { state.metricTotals.set(key(n), NaN); }
    // A metric the external report lacks has no external percent ("–").
    if (needsExternal(n, key(n))) {
      try { await fetchTotal(state.external, name, flavour, state.ext.metricTotals); } catch (e) { state.ext.metricTotals.set(key(n), NaN); }
    }
    if (born !== currentGeneration()) return;
    // The selected metric's total is what the other panes' metric selection percent needs.
    if (name === state.metric) { paintCalls(); paintSystem(); }
    return paintMetrics();
  }
}

const needsExternal = (n, key) => state.modes.metrics === 'external' && state.external && !state.ext.metricTotals.has(key);

// ---- call pane -------------------------------------------------------------------------------

export const callTree = {
  pane: 'calls',
  selected: null,
  async loadKids(node) { return loadCallChildren(node.c.id, node); },
  select(node) {
    this.selected = node;
    markSelected($('calls'), node);
    state.cnode = node.c.id;
    reloadSystem();
    hooks.onSelect();
  },
  onToggle(node) { paintCalls(); if (node === this.selected) { reloadSystem(); hooks.onSelect(); } },
  rootValue: (root) => root.c.incl,
  externalValue: (n) => { const d = state.ext.calls && state.ext.calls.get(n.c.id); return d ? d[n.expanded ? 1 : 0] : NaN; },
};

export const callFlavour = () => (callTree.selected && callTree.selected.expanded ? 'excl' : 'incl');
const selectedCallValue = () => { const s = callTree.selected; return s ? (s.expanded ? s.c.excl : s.c.incl) : NaN; };

function callNode(c, parentNode) {
  return { c, markId: c.id, label: c.line > 0 && c.mod ? `${c.name} (${c.mod}:${c.line})` : c.name, hasKids: c.children > 0, parentNode };
}

async function loadCallChildren(parentId, parentNode) {
  const params = { report: state.report, metric: state.metric, metric_flavour: metricFlavour() };
  if (parentId !== null) params.cnode = parentId;
  const t = ticket(`children ${parentId}`);
  const r = await get('children', params, t);
  const ext = state.ext.calls;
  if (ext && externalShown() && r.cnodes.length) for (const [id, v] of await externalOf(r.cnodes.map((c) => c.id), t)) ext.set(id, v);
  return r.cnodes.map((c) => callNode(c, parentNode));
}

// Values of every loaded call path again, for the selected metric and flavour.
async function refreshCallValues(t) {
  const nodes = [...$('calls').querySelectorAll('li')].map((li) => li._node);
  const ids = nodes.map((n) => n.c.id).join(',');
  if (!ids) return null;
  const base = { report: state.report, metric: state.metric, metric_flavour: metricFlavour(), cnodes: ids };
  const [incl, excl] = await Promise.all([get('values', { ...base, calltree: 'incl' }, t), get('values', { ...base, calltree: 'excl' }, t)]);
  const byId = new Map(incl.values.map(([id, v], i) => [id, [v, excl.values[i][1]]]));
  return () => { for (const n of nodes) { const v = byId.get(n.c.id); n.c.incl = v[0]; n.c.excl = v[1]; } };
}

// The other report's values of the same call paths (matched by path, /diff), for external %:
// id → [inclusive, exclusive, the other report's id]. Only of the call pane's loaded rows
// (/diff's `cnodes`; the rows of an expanded call path are asked for when it opens): every
// call path's is 50 MB for a report of 100,000.
const externalShown = () => state.external && Object.values(state.modes).includes('external');

async function externalOf(ids, t) {
  const base = { a: state.report, b: state.external, metric: state.metric, metric_flavour: metricFlavour(), cnodes: ids.join(',') };
  const [incl, excl] = await Promise.all([get('diff', { ...base, calltree: 'incl' }, t), get('diff', { ...base, calltree: 'excl' }, t)]);
  return new Map(incl.values.map((row, i) => [row.a_cnode, [row.b, excl.values[i].b, row.b_cnode]]));
}

async function loadExternalCalls(t) {
  if (!externalShown()) return null;
  const ids = [...$('calls').querySelectorAll('li')].map((li) => li._node.c.id);
  return ids.length ? externalOf(ids, t) : new Map();
}

export function paintCalls() {
  const nodes = visibleNodes($('calls'));
  const total = state.callRoots.reduce((s, n) => s + n.c.incl, 0);
  const abs = (n) => (n.expanded ? n.c.excl : n.c.incl);
  const m = selectedMetric();
  paintPane('calls', nodes, abs, (n) => (total ? Math.abs(abs(n) / total) : 0), m ? m.uom : '');
  $('call-caption').textContent = `(${m && m.user ? m.disp_name : state.metric}, ${metricFlavour()})`;
}

export async function reloadCalls() {
  if (!state.metric) return;
  const ul = $('calls');
  const t = ticket('calls');
  try {
    if (!ul.firstChild) {
      const roots = await loadCallChildren(null, null);
      if (!t.current()) return;
      for (const n of roots) ul.append(makeItem(n, callTree));
      state.callRoots = roots;
      if (roots.length) {
        if (roots[0].hasKids) await toggle(roots[0], callTree);
        callTree.select(roots[0]);
      }
    } else {
      // The system pane and the plugins ask for their own values: sent with the call pane's,
      // not after them, so that a metric change costs one round of requests.
      reloadSystem();
      hooks.onSelect();
      const apply = await refreshCallValues(t);
      if (apply) apply();
    }
    state.ext.calls = await loadExternalCalls(t);
    if (state.ext.calls && state.modes.system === 'external') reloadSystem();
    paintCalls();
    paintMetrics();
    status('');
  } catch (e) { report(e); }
}

// ---- system pane ---------------------------------------------------------------------------

const systemTree = {
  pane: 'system',
  selected: null,
  async loadKids(node) { return node.kidsOf(); },
  select(node) {
    this.selected = node;
    markSelected($('system'), node);
    state.location = node.loc ? node.loc.id : null;
    paintSystem();
    hooks.onSelect();
  },
  onToggle() { paintSystem(); },
  rootValue: (root) => sumOf(root.locs, state.systemValues),
  externalValue: (n) => (state.ext.systemValues ? systemValue(n, state.ext.systemValues) : NaN),
};

const sumOf = (locs, values) => locs.reduce((s, id) => s + (values.get(id) || 0), 0);
// Inner nodes hold no values of their own: expanded they show 0, as CubeGUI does.
const systemValue = (n, values = state.systemValues) => (n.expanded && !n.loc ? 0 : sumOf(n.locs, values));

// Peers of a system item: all items of its kind at its depth (all locations, all processes…).
function peersOf(n) {
  return state.systemItems.filter((x) => x.peerKey === n.peerKey).map((x) => sumOf(x.locs, state.systemValues));
}

export function buildSystem() {
  const t = state.tree.system;
  const groupsOf = new Map(), locsOf = new Map(), nodeKids = new Map();
  for (const g of t.groups) (groupsOf.get(g.node) || groupsOf.set(g.node, []).get(g.node)).push(g);
  for (const l of t.locations) (locsOf.get(l.group) || locsOf.set(l.group, []).get(l.group)).push(l);
  for (const n of t.nodes) (nodeKids.get(n.parent) || nodeKids.set(n.parent, []).get(n.parent)).push(n);
  const collectLocs = (id) => [
    ...(nodeKids.get(id) || []).flatMap((k) => collectLocs(k.id)),
    ...(groupsOf.get(id) || []).flatMap((g) => (locsOf.get(g.id) || []).map((l) => l.id))];
  const locNode = (l, p) => ({ loc: l, markId: l.id, peerKey: 'location', label: `${l.name} (${l.type} ${l.id})`, hasKids: false, locs: [l.id], parentNode: p });
  const groupNode = (g, p) => {
    const node = { label: `${g.name} (rank ${g.rank})`, peerKey: 'group', parentNode: p, locs: (locsOf.get(g.id) || []).map((l) => l.id) };
    node.hasKids = node.locs.length > 0;
    node.kidsOf = () => (locsOf.get(g.id) || []).map((l) => locNode(l, node));
    return node;
  };
  const sysNode = (s, p, depth) => {
    const node = { label: s.class ? `${s.name} (${s.class})` : s.name, peerKey: `node ${depth}`, parentNode: p, locs: collectLocs(s.id) };
    node.kidsOf = () => [...(nodeKids.get(s.id) || []).map((k) => sysNode(k, node, depth + 1)), ...(groupsOf.get(s.id) || []).map((g) => groupNode(g, node))];
    node.hasKids = (nodeKids.get(s.id) || []).length + (groupsOf.get(s.id) || []).length > 0;
    return node;
  };
  // Every item's kind and locations, for peer percent (the tree itself is built lazily).
  const items = [];
  const walk = (s, depth) => {
    items.push({ peerKey: `node ${depth}`, locs: collectLocs(s.id) });
    for (const k of nodeKids.get(s.id) || []) walk(k, depth + 1);
    for (const g of groupsOf.get(s.id) || []) items.push({ peerKey: 'group', locs: (locsOf.get(g.id) || []).map((l) => l.id) });
  };
  for (const s of nodeKids.get(null) || []) walk(s, 0);
  for (const l of t.locations) items.push({ peerKey: 'location', locs: [l.id] });
  state.systemItems = items;
  const ul = $('system');
  ul.replaceChildren();
  systemTree.selected = null;
  for (const s of nodeKids.get(null) || []) ul.append(makeItem(sysNode(s, null, 0), systemTree));
}

// The selected call path's values per location, with the call pane's flavour (expanded →
// exclusive); the external report's at the matching call path when a pane shows external %.
export async function reloadSystem() {
  const sel = callTree.selected;
  if (!sel || !state.metric) return;
  const t = ticket('system');  // answers to earlier clicks may arrive later: they are stale
  const params = { metric: state.metric, metric_flavour: metricFlavour(), calltree: callFlavour() };
  try {
    const own = get('values', { ...params, report: state.report, cnode: sel.c.id }, t);
    const match = state.modes.system === 'external' && state.ext.calls && state.ext.calls.get(sel.c.id);
    const ext = match && match[2] !== null ? get('values', { ...params, report: state.external, cnode: match[2] }, t) : null;
    const [r, e] = await Promise.all([own, ext]);
    state.systemValues = new Map(r.values);
    state.ext.systemValues = e ? new Map(e.values) : null;
    paintSystem();
  } catch (e) { report(e); }
}

export function paintSystem() {
  if (!state.systemValues) return;
  const nodes = visibleNodes($('system'));
  const all = [...state.systemValues.values()];
  const total = all.reduce((s, v) => s + v, 0);
  const max = Math.max(1e-300, ...all.map(Math.abs));
  const m = selectedMetric();
  paintPane('system', nodes, (n) => systemValue(n), (n) => Math.abs(systemValue(n)) / (n.loc ? max : Math.max(max, Math.abs(total))), m ? m.uom : '');
}

// A metric of the user's (core/derived.js, `m.uniq_name` its CubePL expression): one more
// root of the metric pane, with a button that calls `onRemove`; selected if `select`.
export function addMetricRoot(m, select, onRemove) {
  const n = metricNode({ ...m, kids: [] }, null);
  const li = makeItem(n, metricTree);
  li.classList.add('user-metric');
  li.firstChild.append(el('button', { className: 'remove', title: 'remove this derived metric', type: 'button',
    onclick: (e) => { e.stopPropagation(); onRemove(); } }, '×'));
  $('metrics').append(li);
  if (select) metricTree.select(n); else paintMetrics();
  return n;
}

// Removes the user's metric of that expression from the pane (selecting the first metric
// instead when it was selected).
export function removeMetricRoot(expression) {
  const li = [...$('metrics').children].find((x) => x._node.m.user && x._node.m.uniq_name === expression);
  if (!li) return;
  li.remove();
  if (metricTree.selected === li._node && $('metrics').firstChild) metricTree.select($('metrics').firstChild._node);
}

// ---- opening a report ------------------------------------------------------------------------

// Builds the metric and system panes of state.tree and selects `time` (or the first metric);
// `userRoots` ([{m, onRemove}]) are the user's derived metrics, roots after the report's.
export async function showReport(userRoots = []) {
  $('metrics').replaceChildren(); $('calls').replaceChildren();
  metricTree.selected = null; callTree.selected = null;
  const byId = new Map(state.tree.metrics.map((m) => [m.id, { ...m, kids: [] }]));
  const roots = [];
  for (const m of byId.values()) {
    if (m.ghost) continue;
    if (m.parent === null) roots.push(m); else if (byId.has(m.parent)) byId.get(m.parent).kids.push(m);
  }
  const nodes = roots.map((m) => metricNode(m, null));
  for (const n of nodes) $('metrics').append(makeItem(n, metricTree));
  for (const u of userRoots) addMetricRoot(u.m, false, u.onRemove);
  buildSystem();
  const first = nodes.find((n) => n.m.uniq_name === 'time') || nodes[0];
  if (!first) return;
  metricTree.selected = first; markSelected($('metrics'), first); state.metric = first.m.uniq_name;
  await reloadCalls();
  activity.last = performance.now();  // the first look at the tree counts as the user's turn
  paintMetrics();
}

// Opens the lazily loaded call tree along `path` (ids from the root) and selects its end.
export async function reveal(path) {
  let list = state.callRoots, node = null;
  for (const id of path) {
    node = list.find((n) => n.c.id === id);
    if (!node) return;
    if (id !== path[path.length - 1] && !node.expanded) await toggle(node, callTree);
    list = node.kids || [];
  }
  callTree.select(node);
  node.li.scrollIntoView({ block: 'center' });
}

// The value-mode selectors above the panes.
export function setUpPanes() {
  const panesByName = { metrics: metricTree, calls: callTree, system: systemTree };
  for (const [pane, tree] of Object.entries(panesByName)) {
    keyboard($(pane), tree);
    const select = $(`${pane}-mode`);
    for (const m of PANE_MODES[pane]) select.add(new Option(MODES[m], m));
    select.addEventListener('change', () => {
      state.modes[pane] = select.value;
      if (select.value === 'external') reloadCalls();  // fetches the external report's values
      repaint();
      hooks.onModes();
    });
  }
  Object.assign(panes, panesByName);
}

const panes = {};
