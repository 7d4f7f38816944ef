// Box plot of the selected call path's values over the locations (/statistics).
import { svgEl } from '../core/util.js';

let svg;

export default {
  name: 'Box plot',
  help: 'Minimum, quartiles, median, mean and maximum of the selected call path over the locations.',
  mount(element) {
    svg = svgEl('svg', { id: 'box', width: '100%', height: 240 });
    element.append(svg);
  },
  onReportOpened() { if (svg) { svg.replaceChildren(); delete svg.dataset.median; } },
  async onSelect(sel, api) {
    if (sel.cnode === null) return;
    const s = await api.get('statistics', { report: sel.report, metric: sel.metric, metric_flavour: sel.metricFlavour, calltree: sel.callFlavour, cnode: sel.cnode });
    // The plot on the left, the numbers in a column on the right (labels on the axis collide
    // when the values are close).
    const W = svg.clientWidth || 600, pad = 40, plotW = Math.max(200, W - 2 * pad - 260);
    const lo = Math.min(s.min, 0), hi = s.max === lo ? lo + 1 : s.max;
    const X = (v) => pad + ((v - lo) / (hi - lo)) * plotW;
    const y = 100, f = api.format;
    const parts = [
      svgEl('text', { x: pad, y: 20, 'font-size': 12 }, `${sel.callName}: ${s.metric} over ${s.count} locations${sel.unit ? ` (${sel.unit})` : ''}`),
      svgEl('line', { x1: X(lo), x2: X(hi), y1: y + 40, y2: y + 40, stroke: '#999' }),
      svgEl('text', { x: X(lo), y: y + 56, 'font-size': 11, 'text-anchor': 'middle' }, f(lo)),
      svgEl('text', { x: X(hi), y: y + 56, 'font-size': 11, 'text-anchor': 'middle' }, f(hi)),
      svgEl('line', { x1: X(s.min), x2: X(s.max), y1: y, y2: y, stroke: '#333' }),
      svgEl('line', { x1: X(s.min), x2: X(s.min), y1: y - 12, y2: y + 12, stroke: '#333' }),
      svgEl('line', { x1: X(s.max), x2: X(s.max), y1: y - 12, y2: y + 12, stroke: '#333' }),
      svgEl('rect', { x: X(s.q1), y: y - 22, width: Math.max(1, X(s.q3) - X(s.q1)), height: 44, fill: '#c6dbef', stroke: '#333' }),
      svgEl('line', { x1: X(s.median), x2: X(s.median), y1: y - 22, y2: y + 22, stroke: '#d7301f', 'stroke-width': 2 }),
      svgEl('circle', { cx: X(s.mean), cy: y, r: 4, fill: '#fc8d59', stroke: '#333' }),
      ...[['max', s.max], ['q3', s.q3], ['median', s.median], ['mean', s.mean], ['q1', s.q1], ['min', s.min]]
        .map(([t, v], i) => svgEl('text', { x: pad + plotW + 40, y: 50 + 18 * i, 'font-size': 12 }, `${t}: ${f(v)}`)),
    ];
    svg.replaceChildren(...parts);
    svg.dataset.median = String(s.median);
  },
};
