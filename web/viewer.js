// The cubekit viewer: CubeGUI's three panes over the JSON API of `cubekit serve` (docs/server.md).
// Metric tree → call tree → system tree, each selection narrowing the next; a collapsed node
// shows its inclusive value, an expanded one its exclusive value, as in CubeGUI.
'use strict';

const $ = (id) => document.getElementById(id);
const state = {
  report: '', compare: '', mode: 'abs', tree: null,
  metric: null, metricExpanded: new Set(), cnode: null, location: null,
  metricTotals: new Map(), callRoots: [], systemValues: null, diff: null, tab: 'flame',
};

async function api(endpoint, params) {
  const q = new URLSearchParams(params).toString();
  const res = await fetch(`/api/v1/${endpoint}?${q}`);
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

function status(text) { $('status').textContent = text; }

// Six significant digits, as the CubeLib tools print.
function fmt(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  if (v !== 0 && (Math.abs(v) >= 1e9 || Math.abs(v) < 1e-4)) return v.toExponential(5);
  return String(Number(v.toPrecision(6)));
}

// White → blue → orange → red, like CubeGUI's default scale.
const STOPS = [[255, 255, 255], [198, 219, 239], [107, 174, 214], [253, 212, 158], [252, 141, 89], [215, 48, 31]];
function colour(share) {
  const s = Math.max(0, Math.min(1, share || 0)) * (STOPS.length - 1);
  const i = Math.min(Math.floor(s), STOPS.length - 2), f = s - i;
  const c = STOPS[i].map((a, k) => Math.round(a + (STOPS[i + 1][k] - a) * f));
  return `rgb(${c.join(',')})`;
}

// ---- generic tree rows ------------------------------------------------------------------

// A row: toggle, colour swatch, value, name. `node` carries {value(expanded), label, kids}.
function makeItem(node, tree) {
  const li = document.createElement('li');
  li.setAttribute('role', 'treeitem');
  const row = document.createElement('div');
  row.className = 'row';
  row.innerHTML = '<span class="toggle"></span><span class="swatch"></span><span class="value"></span><span class="name"></span>';
  row.querySelector('.name').textContent = node.label;
  li.appendChild(row);
  li._node = node;
  node.li = li;
  node.expanded = false;
  row.querySelector('.toggle').textContent = node.hasKids ? '▸' : '';
  row.querySelector('.toggle').addEventListener('click', (e) => { e.stopPropagation(); toggle(node, tree); });
  row.addEventListener('click', () => tree.select(node));
  row.addEventListener('dblclick', () => toggle(node, tree));
  return li;
}

async function toggle(node, tree) {
  if (!node.hasKids) return;
  if (!node.expanded) {
    if (!node.kidsLoaded) {
      node.kidsLoaded = true;
      const ul = document.createElement('ul');
      ul.setAttribute('role', 'group');
      for (const k of await tree.loadKids(node)) ul.appendChild(makeItem(k, tree));
      node.li.appendChild(ul);
      node.kids = [...ul.children].map((li) => li._node);
    }
    node.expanded = true;
  } else {
    node.expanded = false;
  }
  const ul = node.li.querySelector(':scope > ul');
  if (ul) ul.hidden = !node.expanded;
  node.li.setAttribute('aria-expanded', String(node.expanded));
  node.li.querySelector('.toggle').textContent = node.expanded ? '▾' : '▸';
  tree.onToggle(node);
}

function paintRow(node, value, share, extra) {
  const row = node.li.firstChild;
  const v = row.querySelector('.value');
  v.dataset.value = value === null || value === undefined ? '' : String(value);
  v.textContent = state.mode === 'pct' && extra.total ? `${fmt(100 * value / extra.total)} %` : fmt(value);
  v.classList.toggle('diff-pos', !!extra.diff && value > 0);
  v.classList.toggle('diff-neg', !!extra.diff && value < 0);
  row.querySelector('.swatch').style.background = colour(share);
  let pair = row.querySelector('.pair');
  if (extra.pair) {
    if (!pair) { pair = document.createElement('span'); pair.className = 'pair'; row.insertBefore(pair, row.querySelector('.name')); }
    pair.textContent = extra.pair;
  } else if (pair) pair.remove();
}

function visibleNodes(rootUl) {
  return [...rootUl.querySelectorAll('li')].filter((li) => li.offsetParent !== null).map((li) => li._node);
}

// Keyboard: ↑ ↓ move, → opens / goes down, ← closes / goes up, Tab to the next pane.
function keyboard(ul, tree) {
  ul.addEventListener('keydown', async (e) => {
    const nodes = visibleNodes(ul);
    const at = nodes.indexOf(tree.selected);
    let next = null;
    if (e.key === 'ArrowDown') next = nodes[Math.min(at + 1, nodes.length - 1)];
    else if (e.key === 'ArrowUp') next = nodes[Math.max(at - 1, 0)];
    else if (e.key === 'ArrowRight' && tree.selected) {
      if (tree.selected.hasKids && !tree.selected.expanded) await toggle(tree.selected, tree);
      else if (tree.selected.kids && tree.selected.kids.length) next = tree.selected.kids[0];
    } else if (e.key === 'ArrowLeft' && tree.selected) {
      if (tree.selected.expanded) await toggle(tree.selected, tree);
      else next = tree.selected.parentNode || null;
    } else if (e.key === 'Enter' && tree.selected) await toggle(tree.selected, tree);
    else return;
    e.preventDefault();
    if (next) { tree.select(next); next.li.scrollIntoView({ block: 'nearest' }); }
  });
}

function markSelected(ul, node) {
  ul.querySelectorAll('.row.selected').forEach((r) => r.classList.remove('selected'));
  if (node) { node.li.firstChild.classList.add('selected'); node.li.setAttribute('aria-selected', 'true'); }
}

// ---- metric pane ----------------------------------------------------------------------------

const metricTree = {
  selected: null,
  async loadKids(node) { return node.children.map((m) => metricNode(m, node)); },
  select(node) {
    this.selected = node;
    markSelected($('metrics'), node);
    state.metric = node.m.uniq_name;
    reloadCalls();
  },
  onToggle() { paintMetrics(); reloadCalls(); },
};

function metricNode(m, parentNode) {
  return { m, label: m.disp_name || m.uniq_name, children: m.kids, hasKids: m.kids.length > 0, parentNode };
}

// The metric flavour of the selection: expanded → exclusive, as in CubeGUI.
function metricFlavour() {
  const s = metricTree.selected;
  return s && s.expanded ? 'excl' : 'incl';
}

async function metricTotal(name, flavour) {
  const key = `${name}|${flavour}`;
  if (!state.metricTotals.has(key)) {
    const r = await api('children', { report: state.report, metric: name, metric_flavour: flavour });
    state.metricTotals.set(key, r.cnodes.reduce((s, c) => s + c.incl, 0));
  }
  return state.metricTotals.get(key);
}

// The other metrics' totals wait until the user has paused: each may decode a metric of
// hundreds of MB, and a click's own requests must not share the server with them.
let lastAction = 0;
const IDLE_MS = 500;
async function untilIdle() {
  for (let wait; (wait = lastAction + IDLE_MS - performance.now()) > 0;)
    await new Promise((resolve) => setTimeout(resolve, wait));
}

// Totals are fetched one metric after the other, the selected one first, so that first paint
// decodes a single metric; the others when the user pauses (untilIdle).
async function paintMetrics() {
  const nodes = visibleNodes($('metrics'));
  const known = [];
  for (const n of nodes) {
    const flavour = n.expanded ? 'excl' : 'incl';
    const key = `${n.m.uniq_name}|${flavour}`;
    if (state.metricTotals.has(key)) known.push([n, state.metricTotals.get(key)]);
  }
  const rootOf = (n) => { while (n.parentNode) n = n.parentNode; return n; };
  for (const [n, v] of known) {
    const root = state.metricTotals.get(`${rootOf(n).m.uniq_name}|incl`) || v;
    paintRow(n, v, root ? Math.abs(v / root) : 0, { total: root });
  }
  if (known.length < nodes.length) {
    for (const n of nodes) {
      const flavour = n.expanded ? 'excl' : 'incl';
      if (state.metricTotals.has(`${n.m.uniq_name}|${flavour}`)) continue;
      if (n.m.uniq_name !== state.metric) await untilIdle();
      if (state.metricTotals.has(`${n.m.uniq_name}|${flavour}`)) continue;
      try { await metricTotal(n.m.uniq_name, flavour); } catch (e) { state.metricTotals.set(`${n.m.uniq_name}|${flavour}`, NaN); }
      const root = rootOf(n);
      if (!state.metricTotals.has(`${root.m.uniq_name}|incl`)) continue;
      return paintMetrics();
    }
  }
}

// ---- call pane -------------------------------------------------------------------------------

const callTree = {
  selected: null,
  async loadKids(node) { return loadCallChildren(node.c.id, node); },
  select(node) {
    this.selected = node;
    markSelected($('calls'), node);
    state.cnode = node.c.id;
    reloadSystem();
    renderBottom();
  },
  onToggle(node) { paintCalls(); if (node === this.selected) { reloadSystem(); renderBottom(); } },
};

function callNode(c, parentNode) {
  return { c, label: c.line > 0 && c.mod ? `${c.name} (${c.mod}:${c.line})` : c.name, hasKids: c.children > 0, parentNode };
}

async function loadCallChildren(parentId, parentNode) {
  const params = { report: state.report, metric: state.metric, metric_flavour: metricFlavour() };
  if (parentId !== null) params.cnode = parentId;
  const r = await api('children', params);
  return r.cnodes.map((c) => callNode(c, parentNode));
}

// Values of every loaded call path again, for the selected metric and flavour.
async function refreshCallValues() {
  const nodes = [...$('calls').querySelectorAll('li')].map((li) => li._node);
  const ids = nodes.map((n) => n.c.id).join(',');
  if (!ids) return;
  const base = { report: state.report, metric: state.metric, metric_flavour: metricFlavour(), cnodes: ids };
  const [incl, excl] = await Promise.all([
    api('values', { ...base, calltree: 'incl' }), api('values', { ...base, calltree: 'excl' })]);
  const byId = new Map(incl.values.map(([id, v], i) => [id, [v, excl.values[i][1]]]));
  for (const n of nodes) { const v = byId.get(n.c.id); n.c.incl = v[0]; n.c.excl = v[1]; }
}

async function loadDiff() {
  state.diff = null;
  if (!state.compare) return;
  const base = { a: state.report, b: state.compare, metric: state.metric, metric_flavour: metricFlavour() };
  const [incl, excl] = await Promise.all([api('diff', { ...base, calltree: 'incl' }), api('diff', { ...base, calltree: 'excl' })]);
  state.diff = new Map();
  incl.values.forEach((row, i) => { if (row.a_cnode !== null) state.diff.set(row.a_cnode, [row, excl.values[i]]); });
}

function paintCalls() {
  const nodes = visibleNodes($('calls'));
  if (state.diff) {
    const value = (n) => { const d = state.diff.get(n.c.id); return d ? d[n.expanded ? 1 : 0] : null; };
    const max = Math.max(1e-300, ...nodes.map((n) => Math.abs((value(n) || {}).diff || 0)));
    for (const n of nodes) {
      const d = value(n);
      if (!d) continue;
      paintRow(n, d.diff, Math.abs(d.diff) / max, { diff: true, pair: `${fmt(d.a)} − ${fmt(d.b)}` });
    }
    $('call-caption').textContent = `(${state.metric}: ${state.report} − ${state.compare})`;
    return;
  }
  const total = state.callRoots.reduce((s, n) => s + n.c.incl, 0);
  for (const n of nodes) {
    const v = n.expanded ? n.c.excl : n.c.incl;
    paintRow(n, v, total ? Math.abs(v / total) : 0, { total });
  }
  $('call-caption').textContent = `(${state.metric}, ${metricFlavour()})`;
}

async function reloadCalls() {
  if (!state.metric) return;
  const ul = $('calls');
  try {
    if (!ul.firstChild) {
      const roots = await loadCallChildren(null, null);
      for (const n of roots) ul.appendChild(makeItem(n, callTree));
      state.callRoots = roots;
      if (roots.length) {
        if (roots[0].hasKids) await toggle(roots[0], callTree);
        callTree.select(roots[0]);
      }
    } else {
      // The system pane and the bottom tab ask for their own values: sent with the call
      // pane's, not after them, so that a metric change costs one round of requests.
      reloadSystem();
      renderBottom();
      await refreshCallValues();
    }
    await loadDiff();
    paintCalls();
    status('');
  } catch (e) { status(e.message); }
}

// ---- system pane ---------------------------------------------------------------------------

const systemTree = {
  selected: null,
  async loadKids(node) { return node.kidsOf(); },
  select(node) { this.selected = node; markSelected($('system'), node); state.location = node.loc ? node.loc.id : null; },
  onToggle() { paintSystem(); },
};

function buildSystem() {
  const t = state.tree.system;
  const groupsOf = new Map(), locsOf = new Map(), nodeKids = new Map();
  for (const g of t.groups) (groupsOf.get(g.node) || groupsOf.set(g.node, []).get(g.node)).push(g);
  for (const l of t.locations) (locsOf.get(l.group) || locsOf.set(l.group, []).get(l.group)).push(l);
  for (const n of t.nodes) (nodeKids.get(n.parent) || nodeKids.set(n.parent, []).get(n.parent)).push(n);
  const locNode = (l, p) => ({ loc: l, label: `${l.name} (${l.type} ${l.id})`, hasKids: false, locs: [l.id], parentNode: p });
  const groupNode = (g, p) => {
    const node = { label: `${g.name} (rank ${g.rank})`, parentNode: p, locs: (locsOf.get(g.id) || []).map((l) => l.id) };
    node.hasKids = node.locs.length > 0;
    node.kidsOf = () => (locsOf.get(g.id) || []).map((l) => locNode(l, node));
    return node;
  };
  const sysNode = (s, p) => {
    const node = { label: s.class ? `${s.name} (${s.class})` : s.name, parentNode: p };
    const kids = () => [...(nodeKids.get(s.id) || []).map((k) => sysNode(k, node)), ...(groupsOf.get(s.id) || []).map((g) => groupNode(g, node))];
    node.kidsOf = kids;
    node.locs = collectLocs(s.id);
    node.hasKids = (nodeKids.get(s.id) || []).length + (groupsOf.get(s.id) || []).length > 0;
    return node;
  };
  const collectLocs = (id) => [
    ...(nodeKids.get(id) || []).flatMap((k) => collectLocs(k.id)),
    ...(groupsOf.get(id) || []).flatMap((g) => (locsOf.get(g.id) || []).map((l) => l.id))];
  const ul = $('system');
  ul.replaceChildren();
  for (const s of nodeKids.get(null) || []) ul.appendChild(makeItem(sysNode(s, null), systemTree));
}

// The selected call path's values per location, with the call pane's flavour (expanded →
// exclusive).
let systemRequest = 0;
async function reloadSystem() {
  const sel = callTree.selected;
  if (!sel || !state.metric) return;
  const mine = ++systemRequest;  // answers to earlier clicks may arrive later: ignored
  try {
    const r = await api('values', {
      report: state.report, metric: state.metric, metric_flavour: metricFlavour(),
      calltree: sel.expanded ? 'excl' : 'incl', cnode: sel.c.id });
    if (mine !== systemRequest) return;
    state.systemValues = new Map(r.values);
    paintSystem();
    renderTopology();
  } catch (e) { status(e.message); }
}

function paintSystem() {
  if (!state.systemValues) return;
  const nodes = visibleNodes($('system'));
  const sum = (locs) => locs.reduce((s, id) => s + (state.systemValues.get(id) || 0), 0);
  const all = [...state.systemValues.values()];
  const total = all.reduce((s, v) => s + v, 0);
  const max = Math.max(1e-300, ...all.map(Math.abs));
  for (const n of nodes) {
    // Inner nodes hold no values of their own: expanded they show 0, as CubeGUI does.
    const v = n.expanded && !n.loc ? 0 : sum(n.locs);
    paintRow(n, v, Math.abs(v) / (n.loc ? max : Math.max(max, Math.abs(total))), { total });
  }
}

// ---- bottom tabs -------------------------------------------------------------------------------

function renderBottom() {
  if (state.tab === 'flame') renderFlame();
  else if (state.tab === 'box') renderBox();
  else if (state.tab === 'topology') renderTopology();
  else if (state.tab === 'flat') renderFlat();
  else if (state.tab === 'pop') renderPop();
}

// The whole call tree (the flame graph's), asked for once per report: a metric change while
// the first answer is on its way waits for it instead of asking again (800 KB of JSON).
function allCalls() {
  if (!state.callsRequest)
    state.callsRequest = api('tree', { report: state.report, parts: 'calls' }).then((t) => (state.calls = t.calls));
  return state.callsRequest;
}

let flameRects = [];
async function renderFlame() {
  const canvas = $('flame');
  if (!state.metric) return;
  const [calls, incl] = await Promise.all([
    allCalls(),
    api('values', { report: state.report, metric: state.metric, metric_flavour: metricFlavour(), calltree: 'incl' })]);
  const value = new Map(incl.values);
  const kids = new Map();
  for (const c of calls) (kids.get(c.parent) || kids.set(c.parent, []).get(c.parent)).push(c);
  const width = canvas.clientWidth || 800, rowH = 17;
  canvas.width = width;
  const ctx = canvas.getContext('2d');
  const roots = kids.get(null) || [];
  const total = roots.reduce((s, c) => s + Math.max(0, value.get(c.id) || 0), 0) || 1;
  flameRects = [];
  let depthMax = 0;
  const place = (list, x0, depth) => {
    let x = x0;
    for (const c of list) {
      const w = (Math.max(0, value.get(c.id) || 0) / total) * width;
      if (w >= 0.5) {
        flameRects.push({ c, x, y: depth * rowH, w, v: value.get(c.id) });
        depthMax = Math.max(depthMax, depth);
        if (depth < 60) place(kids.get(c.id) || [], x, depth + 1);
      }
      x += w;
    }
  };
  place(roots, 0, 0);
  canvas.height = Math.max(60, (depthMax + 1) * rowH + 2);
  ctx.font = '11px system-ui, sans-serif';
  for (const r of flameRects) {
    ctx.fillStyle = r.c.id === state.cnode ? '#6a9fd8' : colour(0.25 + 0.75 * (r.w / width));
    ctx.fillRect(r.x, r.y, Math.max(r.w - 1, 0.5), rowH - 1);
    if (r.w > 30) {
      ctx.fillStyle = '#000';
      ctx.save(); ctx.beginPath(); ctx.rect(r.x, r.y, r.w - 2, rowH); ctx.clip();
      ctx.fillText(r.c.name, r.x + 3, r.y + 12); ctx.restore();
    }
  }
  canvas.dataset.rects = String(flameRects.length);
}

function flameHit(e) {
  const b = $('flame').getBoundingClientRect();
  const x = e.clientX - b.left, y = e.clientY - b.top;
  return flameRects.find((r) => x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + 17);
}

let boxRequest = 0;
async function renderBox() {
  if (state.cnode === null) return;
  const sel = callTree.selected;
  const mine = ++boxRequest;
  const s = await api('statistics', {
    report: state.report, metric: state.metric, metric_flavour: metricFlavour(),
    calltree: sel && sel.expanded ? 'excl' : 'incl', cnode: state.cnode });
  if (mine !== boxRequest) return;
  const svg = $('box');
  // The plot on the left, the numbers in a column on the right (labels on the axis collide
  // when the values are close).
  const W = svg.clientWidth || 600, pad = 40, plotW = Math.max(200, W - 2 * pad - 260);
  const lo = Math.min(s.min, 0), hi = s.max === lo ? lo + 1 : s.max;
  const X = (v) => pad + ((v - lo) / (hi - lo)) * plotW;
  const y = 100;
  const stats = [['max', s.max], ['q3', s.q3], ['median', s.median], ['mean', s.mean], ['q1', s.q1], ['min', s.min]];
  const list = stats.map(([t, v], i) => `<text x="${pad + plotW + 40}" y="${50 + 18 * i}" font-size="12">${t}: ${fmt(v)}</text>`).join('');
  svg.innerHTML = `
    <text x="${pad}" y="20" font-size="12">${escapeHtml(sel ? sel.c.name : '')}: ${escapeHtml(s.metric)} over ${s.count} locations</text>
    <line x1="${X(lo)}" x2="${X(hi)}" y1="${y + 40}" y2="${y + 40}" stroke="#999"/>
    <text x="${X(lo)}" y="${y + 56}" font-size="11" text-anchor="middle">${fmt(lo)}</text>
    <text x="${X(hi)}" y="${y + 56}" font-size="11" text-anchor="middle">${fmt(hi)}</text>
    <line x1="${X(s.min)}" x2="${X(s.max)}" y1="${y}" y2="${y}" stroke="#333"/>
    <line x1="${X(s.min)}" x2="${X(s.min)}" y1="${y - 12}" y2="${y + 12}" stroke="#333"/>
    <line x1="${X(s.max)}" x2="${X(s.max)}" y1="${y - 12}" y2="${y + 12}" stroke="#333"/>
    <rect x="${X(s.q1)}" y="${y - 22}" width="${Math.max(1, X(s.q3) - X(s.q1))}" height="44" fill="#c6dbef" stroke="#333"/>
    <line x1="${X(s.median)}" x2="${X(s.median)}" y1="${y - 22}" y2="${y + 22}" stroke="#d7301f" stroke-width="2"/>
    <circle cx="${X(s.mean)}" cy="${y}" r="4" fill="#fc8d59" stroke="#333"/>${list}`;
  svg.dataset.median = String(s.median);
}

function escapeHtml(t) { return String(t).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c])); }

// The report's first topology as grids: 2-D directly, 3-D as one grid per plane.
function renderTopology() {
  const box = $('topology');
  const topo = state.tree && state.tree.topologies[0];
  if (!topo) { box.textContent = 'The report has no topology.'; return; }
  if (!state.systemValues) return;
  const t = state.tree.system;
  const locsOfGroup = new Map();
  for (const l of t.locations) (locsOfGroup.get(l.group) || locsOfGroup.set(l.group, []).get(l.group)).push(l.id);
  const valueOf = (c) => (c.kind === 'location' ? state.systemValues.get(c.id) || 0
    : (locsOfGroup.get(c.id) || []).reduce((s, l) => s + (state.systemValues.get(l) || 0), 0));
  const dims = topo.dims.map((d) => d.size);
  const [nx, ny, nz] = [dims[0] || 1, dims[1] || 1, dims[2] || 1];
  const cells = new Map();
  for (const c of topo.coords) cells.set(`${c.coords[0] || 0},${c.coords[1] || 0},${c.coords[2] || 0}`, valueOf(c));
  const max = Math.max(1e-300, ...[...cells.values()].map(Math.abs));
  box.replaceChildren();
  for (let z = 0; z < Math.min(nz, 64); ++z) {
    const table = document.createElement('table');
    const cap = table.createCaption();
    cap.textContent = `${topo.name}${nz > 1 ? ` (${topo.dims[2].name} = ${z})` : ''}`;
    for (let y = 0; y < Math.min(ny, 256); ++y) {
      const tr = table.insertRow();
      for (let x = 0; x < Math.min(nx, 256); ++x) {
        const td = tr.insertCell();
        const v = cells.get(`${x},${y},${z}`);
        if (v !== undefined) { td.style.background = colour(Math.abs(v) / max); td.title = `(${x},${y},${z}) ${fmt(v)}`; }
      }
    }
    box.appendChild(table);
  }
}

// The regions by exclusive value, the first FLAT_ROWS of them: a report of thousands of
// regions would take the browser most of a second to lay out, and the top is what one reads
// first; a last row shows the rest on request.
const FLAT_ROWS = 50;
async function renderFlat(all = false) {
  const r = await api('flat', { report: state.report, metric: state.metric, metric_flavour: metricFlavour() });
  const rows = r.regions.filter((x) => x.excl !== 0 || x.subroutines !== 0).sort((a, b) => b.excl - a.excl);
  const shown = all ? rows : rows.slice(0, FLAT_ROWS);
  const more = rows.length - shown.length;
  $('flat').innerHTML = '<tr><th>region</th><th>exclusive</th><th>subroutines</th><th>inclusive</th></tr>' +
    shown.map((x) => `<tr><td>${escapeHtml(x.name)}</td><td>${fmt(x.excl)}</td><td>${fmt(x.subroutines)}</td><td>${fmt(x.incl)}</td></tr>`).join('') +
    (more > 0 ? `<tr class="more"><td colspan="4"><button id="flat-all">${more} more regions: show all</button></td></tr>` : '');
  if (more > 0) $('flat-all').addEventListener('click', () => renderFlat(true));
}

// POP efficiencies of the selected call path (or of the roots), indented as the hierarchy.
async function renderPop() {
  const params = { report: state.report, model: $('pop-model').value };
  if (state.cnode !== null) params.focus = String(state.cnode);
  const r = await api('pop', params);
  const result = r.results[0];
  $('pop').innerHTML = `<caption>${escapeHtml(result.focus)}</caption>` +
    '<tr><th>metric</th><th>value</th></tr>' +
    result.values.map((v) => `<tr title="${escapeHtml(v.missing || '')}"><td style="padding-left:${v.depth * 1.2}em">${escapeHtml(v.label)}</td>` +
      `<td>${v.value === null ? '–' : fmt(v.value)}</td></tr>`).join('');
}

// ---- search ----------------------------------------------------------------------------------

async function search(text) {
  const box = $('hits');
  document.querySelectorAll('#calls .row.match').forEach((r) => r.classList.remove('match'));
  if (!text) { box.hidden = true; return; }
  const r = await api('search', { report: state.report, name: text });
  box.replaceChildren(...r.hits.map((h) => {
    const d = document.createElement('div');
    d.textContent = `${h.name} (id ${h.id}, depth ${h.path.length - 1})`;
    d.addEventListener('click', () => { box.hidden = true; reveal(h.path); });
    return d;
  }));
  if (r.truncated) box.append('…');
  box.hidden = r.hits.length === 0;
  const needle = text.toLowerCase();
  for (const li of $('calls').querySelectorAll('li'))
    if (li._node.c.name.toLowerCase().includes(needle)) li.firstChild.classList.add('match');
}

// Opens the lazily loaded tree along `path` (ids from the root) and selects its end.
async function reveal(path) {
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

// ---- start -----------------------------------------------------------------------------------

async function openReport(path) {
  state.report = path;
  state.calls = null; state.callsRequest = null; state.metricTotals.clear(); state.cnode = null; state.systemValues = null;
  $('metrics').replaceChildren(); $('calls').replaceChildren(); $('system').replaceChildren();
  status(`opening ${path} …`);
  try {
    state.tree = await api('tree', { report: path, parts: 'metrics,system' });
  } catch (e) { status(e.message); return; }
  const byId = new Map(state.tree.metrics.map((m) => [m.id, { ...m, kids: [] }]));
  const roots = [];
  for (const m of byId.values()) {
    if (m.ghost) continue;
    if (m.parent === null) roots.push(m); else if (byId.has(m.parent)) byId.get(m.parent).kids.push(m);
  }
  const nodes = roots.map((m) => metricNode(m, null));
  for (const n of nodes) $('metrics').appendChild(makeItem(n, metricTree));
  buildSystem();
  const first = nodes.find((n) => n.m.uniq_name === 'time') || nodes[0];
  if (first) {
    metricTree.selected = first; markSelected($('metrics'), first); state.metric = first.m.uniq_name;
    await reloadCalls();
    lastAction = performance.now();  // the first look at the tree counts as the user's turn
    paintMetrics();
  }
  document.title = `cubekit: ${path}`;
}

async function start() {
  const { reports } = await api('reports', {});
  const params = new URLSearchParams(location.search);
  for (const sel of [$('report'), $('compare')])
    for (const r of reports) sel.add(new Option(r.path, r.path));
  $('report').value = params.get('report') || (reports[0] && reports[0].path) || '';
  $('report').addEventListener('change', () => openReport($('report').value));
  $('compare').addEventListener('change', async () => { state.compare = $('compare').value; await loadDiff().catch((e) => status(e.message)); paintCalls(); });
  $('mode').addEventListener('change', () => { state.mode = $('mode').value; paintMetrics(); paintCalls(); paintSystem(); });
  $('pop-model').addEventListener('change', () => renderBottom());
  let timer = null;
  $('search').addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => search($('search').value).catch((e) => status(e.message)), 200); });
  for (const type of ['pointerdown', 'keydown'])
    document.addEventListener(type, () => { lastAction = performance.now(); }, true);
  for (const b of document.querySelectorAll('#tabs button')) {
    b.addEventListener('click', () => {
      state.tab = b.dataset.tab;
      for (const o of document.querySelectorAll('#tabs button')) o.setAttribute('aria-selected', String(o === b));
      for (const t of document.querySelectorAll('.tab')) t.hidden = t.id !== `tab-${state.tab}`;
      renderBottom();
    });
  }
  $('flame').addEventListener('click', (e) => { const r = flameHit(e); if (r) reveal(pathTo(r.c)); });
  $('flame').addEventListener('mousemove', (e) => {
    const r = flameHit(e), tip = $('flame-tip');
    if (!r) { tip.style.display = 'none'; return; }
    tip.style.display = 'block'; tip.style.left = `${e.offsetX + 12}px`; tip.style.top = `${e.offsetY + 12}px`;
    tip.textContent = `${r.c.name}: ${fmt(r.v)}`;
  });
  keyboard($('metrics'), metricTree); keyboard($('calls'), callTree); keyboard($('system'), systemTree);
  document.addEventListener('keydown', (e) => {
    if (e.key === '/' && document.activeElement !== $('search')) { e.preventDefault(); $('search').focus(); }
    if (e.key === 'Escape') { $('hits').hidden = true; $('calls').focus(); }
  });
  if ($('report').value) await openReport($('report').value);
}

function pathTo(c) {
  const byId = new Map(state.calls.map((x) => [x.id, x]));
  const path = [];
  for (let x = c; x; x = x.parent === null ? null : byId.get(x.parent)) path.unshift(x.id);
  return path;
}

window.cubekitViewer = { state, ready: start().catch((e) => status(e.message)) };
