// Every topology of the report as grids coloured by the selected call path's values per
// location: 1-D and 2-D directly, 3-D as slices, one grid per plane along a chosen axis.
import { el, colour, groupBy } from '../core/util.js';

const MAX_PLANES = 64, MAX_SIDE = 256;
let box, pick, axis, last = null;

const label = (topo, i) => topo.name || `topology ${i + 1}`;

function fillChoices(tree) {
  pick.replaceChildren(...tree.topologies.map((t, i) => new Option(`${label(t, i)} (${t.dims.map((d) => d.size).join('×')})`, String(i))));
  pick.hidden = tree.topologies.length === 0;
  fillAxes(tree);
}

function fillAxes(tree) {
  const topo = tree.topologies[Number(pick.value) || 0];
  const dims = topo ? topo.dims : [];
  axis.replaceChildren(...dims.map((d, i) => new Option(`planes along ${d.name || `dimension ${i + 1}`}`, String(i))));
  axis.value = String(Math.max(0, dims.length - 1));
  axis.parentNode.hidden = dims.length < 3;
}

function draw(tree, values, api) {
  const topo = tree.topologies[Number(pick.value) || 0];
  if (!topo) { box.textContent = 'The report has no topology.'; return; }
  const locsOfGroup = groupBy(tree.system.locations, (l) => l.group);
  const sum = (ids) => ids.reduce((s, l) => s + (values.get(l) || 0), 0);
  const valueOf = (c) => (c.kind === 'location' ? values.get(c.id) || 0 : sum((locsOfGroup.get(c.id) || []).map((l) => l.id)));
  // Columns, rows and planes: the two dimensions other than the slicing axis, then the axis.
  const n = topo.dims.length;
  const along = n >= 3 ? Number(axis.value) : 2;
  const [cx, cy] = [0, 1, 2].filter((d) => d !== along);
  const size = (d) => (topo.dims[d] ? topo.dims[d].size : 1);
  const cells = new Map();
  const at = (c, d) => c.coords[d] || 0;
  for (const c of topo.coords) cells.set(`${at(c, cx)},${at(c, cy)},${at(c, along)}`, [valueOf(c), c.coords.join(',')]);
  const max = Math.max(1e-300, ...[...cells.values()].map(([v]) => Math.abs(v)));
  box.replaceChildren();
  for (let z = 0; z < Math.min(size(along), MAX_PLANES); ++z) {
    const table = el('table', { dataset: { plane: String(z) } });
    table.createCaption().textContent = `${label(topo, Number(pick.value) || 0)}${n >= 3 ? ` (${topo.dims[along].name || `dimension ${along + 1}`} = ${z})` : ''}`;
    for (let y = 0; y < Math.min(size(cy), MAX_SIDE); ++y) {
      const tr = table.insertRow();
      for (let x = 0; x < Math.min(size(cx), MAX_SIDE); ++x) {
        const td = tr.insertCell();
        const cell = cells.get(`${x},${y},${z}`);
        if (!cell) continue;
        td.style.background = colour(Math.abs(cell[0]) / max);
        td.title = `(${cell[1]}) ${api.format(cell[0])}`;
        td.dataset.coords = cell[1];
        td.dataset.value = String(cell[0]);
      }
    }
    box.append(table);
  }
}

export default {
  name: 'Topology',
  help: "The report's topologies, each cell coloured by the selected call path's value at its location; 3-D ones as planes along a chosen axis.",
  mount(element, api) {
    pick = el('select', { id: 'topology-select', 'aria-label': 'topology' });
    axis = el('select', { id: 'topology-axis', 'aria-label': 'slicing axis' });
    box = el('div', { id: 'topology' });
    const redraw = () => { if (last) this.onSelect(last, api); };
    pick.addEventListener('change', () => { fillAxes(api.tree); redraw(); });
    axis.addEventListener('change', redraw);
    element.append(el('div', { className: 'controls' }, pick, ' ', el('label', {}, axis)), box);
    if (api.tree) fillChoices(api.tree);
  },
  onReportOpened(report, api) { if (box) { box.replaceChildren(); fillChoices(api.tree); } },
  async onSelect(sel, api) {
    last = sel;
    if (sel.cnode === null) return;
    if (!api.tree.topologies.length) { draw(api.tree, new Map(), api); return; }
    const r = await api.get('values', { report: sel.report, metric: sel.metric, metric_flavour: sel.metricFlavour, calltree: sel.callFlavour, cnode: sel.cnode });
    draw(api.tree, new Map(r.values), api);
  },
};
