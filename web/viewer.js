// The cubekit viewer: CubeGUI's three panes over the JSON API of `cubekit serve`
// (docs/server.md), and tabs below them, each a plugin (docs/viewer.md): the built-in ones of
// web/plugins/ and the user's of `cubekit serve --plugins DIR`.
import { $ } from './core/util.js';
import { get, newGeneration, isStale } from './core/requests.js';
import { state, status, report, showReport, setUpPanes, reveal, repaint, reloadCalls, activity } from './core/panes.js';
import { setUpDerived, loadUserMetrics, userMetricItem, removeUserMetric, updateSaveLink } from './core/derived.js';
import { register, showFirst, reportOpened, loadUserPlugins } from './core/plugins.js';
import flame from './plugins/flame.js';
import box from './plugins/box.js';
import topology from './plugins/topology.js';
import flat from './plugins/flat.js';
import pop from './plugins/pop.js';
import diff from './plugins/diff.js';
import sunburst from './plugins/sunburst.js';
import source from './plugins/source.js';
import callgraph from './plugins/callgraph.js';
import iterations from './plugins/iterations.js';
import scaling from './plugins/scaling.js';

// The series of the report list (/reports' `series`) by the value of their item: the folder's
// path with a trailing '/', which no report path has.
const seriesItems = new Map();

// Opens a report, or a series item of the list: its first report in the panes, the whole
// series for the plugins (api.series, the Scaling tab).
async function openReport(item) {
  const series = seriesItems.get(item);
  const path = series ? series.first : item;
  state.generation = newGeneration();  // every answer still on its way is stale now
  const mine = state.generation;
  state.series = series ? series.path : null;
  state.report = path; state.tree = null;
  state.callsRequest = null; state.metricTotals.clear(); state.cnode = null; state.systemValues = null;
  state.ext.metricTotals.clear(); state.ext.calls = null; state.ext.systemValues = null;
  $('metrics').replaceChildren(); $('calls').replaceChildren(); $('system').replaceChildren();
  status(`opening ${path} …`);
  let tree;
  try {
    tree = await get('tree', { report: path, parts: 'metrics,system' });
  } catch (e) { report(e); return; }
  if (mine !== state.generation) return;
  state.tree = tree;
  state.userMetrics = loadUserMetrics(path);
  updateSaveLink();
  let painted;
  state.painted = new Promise((resolve) => { painted = resolve; });
  reportOpened();
  try {
    await showReport(state.userMetrics.map((u) => ({ m: userMetricItem(u), onRemove: () => removeUserMetric(u) })));
  } finally { painted(); }
  if (mine === state.generation) document.title = `cubekit: ${series ? `${series.path}/ (series)` : path}`;
}

async function search(text) {
  const hits = $('hits');
  document.querySelectorAll('#calls .row.match').forEach((r) => r.classList.remove('match'));
  if (!text) { hits.hidden = true; return; }
  const r = await get('search', { report: state.report, name: text });
  hits.replaceChildren(...r.hits.map((h) => {
    const d = document.createElement('div');
    d.textContent = `${h.name} (id ${h.id}, depth ${h.path.length - 1})`;
    d.addEventListener('click', () => { hits.hidden = true; reveal(h.path); });
    return d;
  }));
  if (r.truncated) hits.append('…');
  hits.hidden = r.hits.length === 0;
  const needle = text.toLowerCase();
  for (const li of $('calls').querySelectorAll('li'))
    if (li._node.c.name.toLowerCase().includes(needle)) li.firstChild.classList.add('match');
}

function setUpHeader(reports, series) {
  for (const sel of [$('report'), $('external')])
    for (const r of reports) sel.add(new Option(r.path, r.path));
  if (series.length) {
    const group = document.createElement('optgroup');
    group.label = 'series (Scaling tab)';
    for (const s of series) {
      seriesItems.set(`${s.path}/`, s);
      group.append(new Option(`${s.path}/ (series: ${s.points} points of ${s.parameters.join(',')}, ${s.reports} reports)`, `${s.path}/`));
    }
    $('report').append(group);
  }
  $('report').addEventListener('change', () => openReport($('report').value));
  $('external').addEventListener('change', () => {
    state.external = $('external').value;
    state.ext.metricTotals.clear(); state.ext.calls = null; state.ext.systemValues = null;
    reloadCalls();
    repaint();
  });
  let timer = null;
  $('search').addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => search($('search').value).catch(report), 200); });
  for (const type of ['pointerdown', 'keydown'])
    document.addEventListener(type, () => { activity.last = performance.now(); }, true);
  document.addEventListener('keydown', (e) => {
    if (e.key === '/' && document.activeElement !== $('search')) { e.preventDefault(); $('search').focus(); }
    if (e.key === 'Escape') { $('hits').hidden = true; $('calls').focus(); }
  });
}

async function start() {
  setUpPanes();
  setUpDerived();
  for (const [plugin, id] of [[flame, 'flame'], [sunburst, 'sunburst'], [box, 'box'], [topology, 'topology'], [flat, 'flat'], [pop, 'pop'], [diff, 'diff'], [source, 'source'], [callgraph, 'callgraph'], [iterations, 'iterations'], [scaling, 'scaling']])
    register(plugin, id);
  showFirst();
  const [{ reports, series }] = await Promise.all([get('reports'), loadUserPlugins().catch(report)]);
  setUpHeader(reports, series);
  const params = new URLSearchParams(location.search);
  $('report').value = params.get('report') || (reports[0] && reports[0].path) || '';
  if ($('report').value) await openReport($('report').value);
}

window.cubekitViewer = { state, openReport, ready: start().catch((e) => { if (!isStale(e)) status(e.message); }) };
