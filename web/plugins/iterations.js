// Iterations (CubeGUI's Barplot and Heatmap plugins): where call paths stand for the iterations
// of a loop — call paths of one region below one parent that differ by a numeric parameter, as
// Score-P writes the instances of a dynamic region — a bar plot of the selected metric per
// iteration (minimum, mean and maximum over the locations) and a heat map locations ×
// iterations. The iterations are those below the selected call path, or its siblings when it is
// one itself. At most MAX_ITERATIONS are shown (an SVG of three elements each, a canvas).
import { el, svgEl } from '../core/util.js';

const MAX_ITERATIONS = 500;
let box = null;

const numeric = (params) => (params || []).find(([, v]) => v !== '' && Number.isFinite(Number(v)));

// The iterations among call paths `kids` (/children's rows): [{id, name, key, n}] sorted by n,
// the largest group of one region and one numeric parameter, or [] when no group has two.
function group(kids) {
  const sets = new Map();
  for (const c of kids) {
    const p = numeric(c.params);
    if (!p) continue;
    const key = `${c.name}\u0000${p[0]}`;
    (sets.get(key) || sets.set(key, []).get(key)).push({ id: c.id, name: c.name, key: p[0], n: Number(p[1]) });
  }
  const best = [...sets.values()].filter((s) => s.length >= 2).sort((a, b) => b.length - a.length)[0] || [];
  return best.sort((a, b) => a.n - b.n);
}

// The iteration call paths at `cnode`: its children's, or its siblings' when it is an
// iteration itself. Asks for that call path's children and its way from the root (/children,
// /path), then for its parent's children: not for the whole call tree (7.5 MB of JSON for
// 100,000 call paths).
export async function iterationsOf(report, cnode, api) {
  const kids = async (parent) => (await api.get('children', parent === null ? { report } : { report, cnode: parent })).cnodes;
  if (cnode === null) return group(await kids(null));
  const [below, { path }] = await Promise.all([kids(cnode).then(group), api.get('path', { report, cnode })]);
  if (below.length || path.length < 2) return below;
  const siblings = await kids(path[path.length - 2]);
  const self = siblings.find((c) => c.id === cnode);
  if (!self || !numeric(self.params)) return below;
  return group(siblings.filter((c) => c.name === self.name));
}

function barPlot(its, stats, api) {
  const W = 14, H = 140, PAD = 24;
  const max = Math.max(1e-300, ...stats.map((s) => s.max));
  const y = (v) => PAD + H - (H * Math.max(0, v)) / max;
  const svg = svgEl('svg', { id: 'iterations-bars', width: PAD + its.length * W + 8, height: H + 2 * PAD });
  svg.append(svgEl('text', { x: 2, y: 12, class: 'axis' }, `max ${api.format(max)}`));
  its.forEach((it, i) => {
    const s = stats[i], x = PAD + i * W;
    const bar = svgEl('rect', { x: x + 2, y: y(s.mean), width: W - 4, height: Math.max(0.5, y(0) - y(s.mean)), fill: api.colour(s.mean / max),
      class: 'bar', 'data-iteration': it.n, 'data-min': s.min, 'data-mean': s.mean, 'data-max': s.max });
    bar.append(svgEl('title', {}, `${it.key} ${it.n}: min ${api.format(s.min)}, mean ${api.format(s.mean)}, max ${api.format(s.max)}`));
    bar.addEventListener('click', () => api.selectCallPath(it.id));
    svg.append(bar, svgEl('path', { d: `M${x + W / 2},${y(s.max)}V${y(s.min)}M${x + 3},${y(s.max)}H${x + W - 3}M${x + 3},${y(s.min)}H${x + W - 3}`, class: 'range' }));
  });
  return svg;
}

// Locations down, iterations across; each cell coloured by its share of the largest value.
function heatMap(its, rows, api) {
  const cols = its.length, nloc = rows[0] ? rows[0].length : 0;
  const cw = Math.max(1, Math.min(14, Math.floor(1000 / Math.max(1, cols))));
  const ch = Math.max(1, Math.min(14, Math.floor(600 / Math.max(1, nloc))));
  const canvas = el('canvas', { id: 'iterations-heat', width: cols * cw, height: nloc * ch });
  const max = Math.max(1e-300, ...rows.flat().map(Math.abs));
  const ctx = canvas.getContext('2d');
  rows.forEach((row, i) => row.forEach((v, l) => { ctx.fillStyle = api.colour(Math.abs(v) / max); ctx.fillRect(i * cw, l * ch, cw, ch); }));
  Object.assign(canvas.dataset, { cellWidth: cw, cellHeight: ch, max });
  canvas.title = 'locations (down) × iterations (across)';
  return canvas;
}

export default {
  name: 'Iterations',
  help: 'The selected metric per loop iteration (Score-P dynamic regions): min, mean and max over the locations, and a heat map locations × iterations.',
  mount(element) {
    box = el('div', { className: 'iterations' });
    element.append(box);
  },
  onReportOpened() { if (box) box.replaceChildren(); },
  async onSelect(s, api) {
    const all = await iterationsOf(s.report, s.cnode, api);
    if (!all.length) {
      box.replaceChildren(el('p', {}, 'No iterations at this call path: select a loop whose children are call paths of one region told apart by a numeric parameter (Score-P\u2019s dynamic regions), or one of them.'));
      return;
    }
    const its = all.slice(0, MAX_ITERATIONS);
    const r = await api.get('values', { report: s.report, metric: s.metric, metric_flavour: s.metricFlavour, calltree: 'incl',
      cnodes: its.map((it) => it.id).join(','), per_location: 1 });
    const rows = r.rows.map(([, row]) => row);
    const stats = rows.map((row) => ({ min: Math.min(...row), max: Math.max(...row), mean: row.reduce((a, b) => a + b, 0) / row.length }));
    const caption = `${its[0].name}, ${its.length}${all.length > its.length ? ` of ${all.length}` : ''} iterations by ${its[0].key}; ${s.metric} (inclusive): bars the mean over ${rows[0].length} locations, whiskers min and max`;
    box.replaceChildren(el('p', { className: 'caption' }, caption), barPlot(its, stats, api), heatMap(its, rows, api));
  },
};
