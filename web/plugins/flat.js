// Flat profile: the regions by exclusive value, the first ROWS of them (a report of thousands
// of regions would take the browser most of a second to lay out, and the top is what one
// reads first); a last row shows the rest on request.
import { el } from '../core/util.js';

const ROWS = 50;
let table;

function draw(regions, all, api) {
  const rows = regions.filter((x) => x.excl !== 0 || x.subroutines !== 0).sort((a, b) => b.excl - a.excl);
  const shown = all ? rows : rows.slice(0, ROWS);
  const more = rows.length - shown.length;
  const f = api.format;
  table.replaceChildren(
    el('tr', {}, el('th', {}, 'region'), el('th', {}, 'exclusive'), el('th', {}, 'subroutines'), el('th', {}, 'inclusive')),
    ...shown.map((x) => el('tr', {}, el('td', {}, x.name), el('td', {}, f(x.excl)), el('td', {}, f(x.subroutines)), el('td', {}, f(x.incl)))));
  if (more > 0) {
    const button = el('button', { id: 'flat-all', onclick: () => draw(regions, true, api) }, `${more} more regions: show all`);
    table.append(el('tr', { className: 'more' }, el('td', { colSpan: 4 }, button)));
  }
}

export default {
  name: 'Flat profile',
  help: 'Regions by exclusive value of the selected metric, with their subroutines and inclusive values.',
  mount(element) { table = el('table', { id: 'flat' }); element.append(table); },
  onReportOpened() { if (table) table.replaceChildren(); },
  async onSelect(sel, api) {
    if (!sel.metric) return;
    const r = await api.get('flat', { report: sel.report, metric: sel.metric, metric_flavour: sel.metricFlavour });
    draw(r.regions, false, api);
  },
};
