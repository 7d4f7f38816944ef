// POP efficiencies of the selected call path (or of the roots) for the chosen model,
// indented as the hierarchy (/pop).
import { el } from '../core/util.js';

let table, model, last = null;

export default {
  name: 'POP',
  help: 'POP efficiency metrics of the selected call path for the chosen model (docs/pop_metrics.md).',
  mount(element, api) {
    model = el('select', { id: 'pop-model' },
      ...[['mpi', 'MPI'], ['hybrid-add', 'hybrid additive'], ['hybrid-mult', 'hybrid multiplicative'], ['bsc', 'BSC']].map(([v, t]) => new Option(t, v)));
    table = el('table', { id: 'pop' });
    model.addEventListener('change', () => { if (last) this.onSelect(last, api); });
    element.append(el('label', {}, 'Model ', model), table);
  },
  onReportOpened() { if (table) table.replaceChildren(); },
  async onSelect(sel, api) {
    last = sel;
    const params = { report: sel.report, model: model.value };
    if (sel.cnode !== null) params.focus = String(sel.cnode);
    const r = await api.get('pop', params);
    const result = r.results[0];
    table.replaceChildren(el('caption', {}, result.focus), el('tr', {}, el('th', {}, 'metric'), el('th', {}, 'value')),
      ...result.values.map((v) => el('tr', { title: v.missing || '' },
        el('td', { style: { paddingLeft: `${v.depth * 1.2}em` } }, v.label), el('td', {}, v.value === null ? '–' : api.format(v.value)))));
  },
};
