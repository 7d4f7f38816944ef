// An example plugin for the cubekit viewer (docs/viewer.md): the ten call paths of largest
// exclusive value of the selected metric, as a table in its own tab and as marks "#1" … "#10"
// on the call tree's rows. Load it with `cubekit serve --plugins web/examples`.
//
// A plugin is one ES module whose default export has a name (the tab's label), a help text,
// mount(element, api) and, optionally, onReportOpened, onSelect and onValueMode.

const TOP = 10;
let table = null;
let caption = null;

export default {
  name: 'Hotspots',
  help: 'The ten call paths of largest exclusive value of the selected metric.',

  // Called once, when the tab is first shown: build the tab's content inside `element`.
  mount(element) {
    caption = document.createElement('p');
    table = document.createElement('table');
    table.id = 'hotspots';
    element.append(caption, table);
  },

  // Called for every report opened (the first included), shown or not: forget the old one.
  onReportOpened(report, api) {
    api.clearMarks('calls');
    if (table) table.replaceChildren();
  },

  // Called when a metric, call path or system item is selected while the tab is shown.
  // api.get answers go stale when the user clicks on: awaiting them is safe, a stale answer
  // throws and the viewer drops it.
  async onSelect(selection, api) {
    // /values' `top`: the ten largest with their region names, not every call path's value
    // (2.8 MB for 100,000 call paths).
    const excl = await api.get('values', { report: selection.report, metric: selection.metric,
      metric_flavour: selection.metricFlavour, calltree: 'excl', top: TOP });
    const top = excl.values.map(([id, value], i) => [id, value, excl.names[i]]).filter(([, v]) => v > 0);
    caption.textContent = `${selection.metric}, exclusive${selection.unit ? ` (${selection.unit})` : ''}`;
    api.clearMarks('calls');
    table.replaceChildren(...top.map(([id, value, name], i) => {
      api.mark('calls', id, { text: `#${i + 1}`, title: `hotspot ${i + 1} of ${selection.metric}` });
      const tr = document.createElement('tr');
      for (const text of [`#${i + 1}`, name, api.format(value)]) {
        const td = document.createElement('td');
        td.textContent = text;  // names come from the report: text, never HTML
        tr.append(td);
      }
      tr.dataset.cnode = String(id);
      tr.addEventListener('click', () => api.selectCallPath(id));
      return tr;
    }));
  },

  // Called when a pane's value mode changes while the tab is shown.
  onValueMode(modes) {
    if (caption) caption.title = `value modes: ${Object.entries(modes).map(([p, m]) => `${p} ${m}`).join(', ')}`;
  },
};
