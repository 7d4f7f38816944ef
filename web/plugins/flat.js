// Flat profile: the regions by exclusive value, the first ROWS of them (a report of thousands
// of regions would take the browser most of a second to lay out, and the top is what one
// reads first); a last row shows the rest on request. The server picks the first ROWS
// (/api/v1/flat's `top`): all regions of a report of 100,000 call paths are 2 MB of JSON.
import { el } from '../core/util.js';

const ROWS = 50;
let table;

// `shown`: rows by descending exclusive value; `rows`: how many regions have a value. A value
// the region does not have (null: nothing adds to it, e.g. a maximum over no call path) is
// shown as a dash, not as a number.
function draw(shown, rows, query, api) {
  const more = rows - shown.length;
  const f = (x) => (x === null ? '–' : api.format(x));
  table.replaceChildren(
    el('tr', {}, el('th', {}, 'region'), el('th', {}, 'exclusive'), el('th', {}, 'subroutines'), el('th', {}, 'inclusive')),
    ...shown.map((x) => el('tr', {}, el('td', {}, x.name), el('td', {}, f(x.excl)), el('td', {}, f(x.subroutines)), el('td', {}, f(x.incl)))));
  if (more > 0) {
    const button = el('button', { id: 'flat-all', onclick: () => showAll(query, api) }, `${more} more regions: show all`);
    table.append(el('tr', { className: 'more' }, el('td', { colSpan: 4 }, button)));
  }
}

async function showAll(query, api) {
  const r = await api.get('flat', query);
  // Stable: of equal values, the earlier region first, as the server's `top` orders them.
  const excl = (x) => (x.excl === null ? -Infinity : x.excl);
  const rows = r.regions.filter((x) => (x.excl ?? 0) !== 0 || (x.subroutines ?? 0) !== 0)
    .sort((a, b) => (excl(b) > excl(a)) - (excl(b) < excl(a)));
  draw(rows, rows.length, query, api);
}

export default {
  name: 'Flat profile',
  help: 'Regions by exclusive value of the selected metric, with their subroutines and inclusive values.',
  mount(element) { table = el('table', { id: 'flat' }); element.append(table); },
  onReportOpened() { if (table) table.replaceChildren(); },
  async onSelect(sel, api) {
    if (!sel.metric) return;
    const query = { report: sel.report, metric: sel.metric, metric_flavour: sel.metricFlavour };
    const r = await api.get('flat', { ...query, top: ROWS });
    draw(r.regions, r.rows, query, api);
  },
};
