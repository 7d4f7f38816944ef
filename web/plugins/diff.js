// Difference of the open report and another one per call path (/diff, matched by the path of
// region names): a table of the call paths that differ most (/diff's `top`: not the 50 MB of
// every call path of a 100,000-call-path report), and a mark "Δ diff (a − b)" of the inclusive
// values on the call tree row of each of them.
import { el } from '../core/util.js';

const ROWS = 50;
let select, table, last = null, listed = null;

// The reports below the root (/reports), asked once (again after a failure).
function reportList(api) {
  if (!listed) listed = api.get('reports').then(({ reports }) => reports).catch((e) => { listed = null; throw e; });
  return listed;
}

// The report a user most likely compares with: in the open report's folder, the one of the
// nearest size (another run of the same program); null when the folder has no other.
export function likelyPartner(report, reports) {
  const folder = (path) => path.slice(0, path.lastIndexOf('/') + 1);
  const own = reports.find((r) => r.path === report);
  let best = null;
  for (const r of reports) {
    if (r.path === report || folder(r.path) !== folder(report)) continue;
    const distance = own ? Math.abs(r.size - own.size) : 0;
    if (!best || distance < best.distance) best = { path: r.path, distance };
  }
  return best && best.path;
}

// The server prepares the comparison with the report chosen, or else the likely partner
// (/diff's prepare=1, in advance on a thread of its own: opening it, 70-170 ms for 100,000 call
// paths, if it fits the report cache; its values of the metric with memory that is free; the
// matching of call paths), so that choosing it only computes the rows.
async function preparePartner(sel, api) {
  try {  // a stale or failed preparation is no one's error
    const partner = (select && select.value) || likelyPartner(sel.report, await reportList(api));
    if (!partner) return;
    await api.get('diff', { a: sel.report, b: partner, metric: sel.metric, metric_flavour: sel.metricFlavour, calltree: 'incl', prepare: 1 });
  } catch { /* nothing to show */ }
}

export default {
  name: 'Diff',
  help: 'Report A (open) minus report B (chosen here) per call path; the call tree rows show the difference too.',
  mount(element, api) {
    select = el('select', { id: 'compare' }, new Option('(none)', ''));
    table = el('table', { id: 'diff' });
    select.addEventListener('change', () => { if (last) this.onSelect(last, api); });
    element.append(el('label', {}, 'Compare with ', select), table);
    reportList(api).then((reports) => { for (const r of reports) select.add(new Option(r.path, r.path)); });
  },
  onReportOpened(report, api) {
    api.clearMarks('calls'); if (table) table.replaceChildren();
    // Prepared when the report opens, whether the tab is shown or not (a user who shows the tab
    // and compares at once would wait for the partner being opened), after the panes' first
    // paint, whose requests come first.
    api.painted.then(() => { if (api.report === report) preparePartner(api.selection, api); });
  },
  async onSelect(sel, api) {
    last = sel;
    if (!select.value) { api.clearMarks('calls'); table.replaceChildren(); preparePartner(sel, api); return; }
    const r = await api.get('diff', { a: sel.report, b: select.value, metric: sel.metric, metric_flavour: sel.metricFlavour, calltree: 'incl', top: ROWS });
    const f = api.format;
    api.clearMarks('calls');
    for (const row of r.values) {
      if (row.a_cnode === null) continue;
      api.mark('calls', row.a_cnode, { text: `Δ ${f(row.diff)} (${f(row.a)} − ${f(row.b)})`,
        className: row.diff > 0 ? 'diff-pos' : row.diff < 0 ? 'diff-neg' : '', title: `${sel.report} − ${select.value}` });
    }
    const rows = r.values;  // largest |A − B| first
    table.replaceChildren(
      el('caption', {}, `${sel.metric} (inclusive): ${sel.report} − ${select.value}`),
      el('tr', {}, el('th', {}, 'call path'), el('th', {}, 'A'), el('th', {}, 'B'), el('th', {}, 'A − B')),
      ...rows.map((x) => el('tr', {}, el('td', {}, x.path.join ? x.path.join(' / ') : String(x.path)),
        el('td', {}, f(x.a)), el('td', {}, f(x.b)), el('td', { dataset: { diff: String(x.diff) } }, f(x.diff)))));
  },
};
