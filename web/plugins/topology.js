// The report's first topology as grids coloured by the selected call path's values per
// location: 2-D directly, 3-D as one grid per plane.
import { el, colour, groupBy } from '../core/util.js';

let box;

function draw(tree, values, api) {
  const topo = tree.topologies[0];
  if (!topo) { box.textContent = 'The report has no topology.'; return; }
  const locsOfGroup = groupBy(tree.system.locations, (l) => l.group);
  const sum = (ids) => ids.reduce((s, l) => s + (values.get(l) || 0), 0);
  const valueOf = (c) => (c.kind === 'location' ? values.get(c.id) || 0 : sum((locsOfGroup.get(c.id) || []).map((l) => l.id)));
  const dims = topo.dims.map((d) => d.size);
  const [nx, ny, nz] = [dims[0] || 1, dims[1] || 1, dims[2] || 1];
  const cells = new Map();
  for (const c of topo.coords) cells.set(`${c.coords[0] || 0},${c.coords[1] || 0},${c.coords[2] || 0}`, valueOf(c));
  const max = Math.max(1e-300, ...[...cells.values()].map(Math.abs));
  box.replaceChildren();
  for (let z = 0; z < Math.min(nz, 64); ++z) {
    const table = el('table');
    table.createCaption().textContent = `${topo.name}${nz > 1 ? ` (${topo.dims[2].name} = ${z})` : ''}`;
    for (let y = 0; y < Math.min(ny, 256); ++y) {
      const tr = table.insertRow();
      for (let x = 0; x < Math.min(nx, 256); ++x) {
        const td = tr.insertCell();
        const v = cells.get(`${x},${y},${z}`);
        if (v !== undefined) { td.style.background = colour(Math.abs(v) / max); td.title = `(${x},${y},${z}) ${api.format(v)}`; }
      }
    }
    box.append(table);
  }
}

export default {
  name: 'Topology',
  help: "The report's first topology, each cell coloured by the selected call path's value at its location.",
  mount(element) { box = el('div', { id: 'topology' }); element.append(box); },
  onReportOpened() { if (box) box.replaceChildren(); },
  async onSelect(sel, api) {
    if (sel.cnode === null) return;
    if (!api.tree.topologies.length) { draw(api.tree, new Map(), api); return; }
    const r = await api.get('values', { report: sel.report, metric: sel.metric, metric_flavour: sel.metricFlavour, calltree: sel.callFlavour, cnode: sel.cnode });
    draw(api.tree, new Map(r.values), api);
  },
};
