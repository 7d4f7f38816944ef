// The plugin host. A plugin is an ES module whose default export is
//   { name, help, mount(element, api), onReportOpened?(report, api), onSelect?(selection, api),
//     onValueMode?(modes, api) }
// (docs/viewer.md). Each plugin gets a tab; mount is called when the tab is first shown,
// onReportOpened for every report opened (shown or not), onSelect and onValueMode while the tab
// is shown (a tab being shown is told the latest selection at once). Every handler call gets
// an api whose requests go stale when the same handler is called again, when the tab is hidden
// (onSelect's) or another report is opened: their answers then throw StaleAnswer, which the host drops, so a plugin that awaits
// api.get and paints afterwards never paints an answer to an older question.
import { $, el, fmt, colour } from './util.js';
import { get, ticket, isStale, StaleAnswer } from './requests.js';
import { state, hooks, status, setMark, clearMarks, reveal, metricFlavour, callFlavour, selectedMetric, activity, callTree } from './panes.js';

const plugins = [];
let shown = null;

// The current selection as plugins see it.
export function selection() {
  const m = selectedMetric();
  return {
    report: state.report,
    metric: state.metric, metricFlavour: metricFlavour(), unit: m ? m.uom : '',
    cnode: state.cnode, callFlavour: callFlavour(), callName: callTree.selected ? callTree.selected.c.name : '',
    location: state.location,
    systemValues: state.systemValues,
    modes: { ...state.modes },
  };
}

// The whole call tree (api.calls(): iterations, scaling, the user's plugins), asked for once
// per report: a caller while the first answer is on its way waits for it instead of asking
// again (7.5 MB of JSON for 100,000 call paths).
function allCalls() {
  if (!state.callsRequest) state.callsRequest = get('tree', { report: state.report, parts: 'calls' }).then((t) => t.calls);
  return state.callsRequest;
}

function makeApi(plugin, handler) {
  const t = ticket(`${plugin.id} ${handler}`);
  return {
    // GET /api/v1/<path> (path may carry its query; params are added to it) as JSON.
    get: (path, params = {}) => get(path.replace(/^\/?(api\/v1\/)?/, ''), params, t),
    get report() { return state.report; },
    // The series folder when the report list's series item is open (its first report is api.report).
    get series() { return state.series; },
    get tree() { return state.tree; },
    get selection() { return selection(); },
    get shown() { return shown === plugin; },
    // Resolved when the open report's panes have had their first paint (work a plugin does in
    // advance waits for it, so as not to delay that paint).
    get painted() { return state.painted; },
    calls: () => allCalls().then((c) => { if (!t.current()) throw new StaleAnswer(); return c; }),
    mark: (pane, id, mark) => setMark(pane, id, typeof mark === 'string' ? { text: mark } : mark, plugin.id),
    clearMarks: (pane) => clearMarks(pane, plugin.id),
    // The way to a call path from the server (/path), not from the whole tree (7.5 MB of JSON
    // for 100,000 call paths).
    selectCallPath: (id) => {
      const report = state.report;
      return get('path', { report, cnode: id }).then((r) => { if (state.report === report) return reveal(r.path); });
    },
    status,
    format: fmt,
    colour,
    element: plugin.element,
  };
}

function call(plugin, handler, ...args) {
  if (typeof plugin.module[handler] !== 'function') return;
  const api = makeApi(plugin, handler);
  try {
    Promise.resolve(plugin.module[handler](...args, api)).catch((e) => { if (!isStale(e)) status(`${plugin.name}: ${e.message}`); });
  } catch (e) { status(`${plugin.name}: ${e.message}`); }
}

// A plugin's default export must at least have a name and mount(); a clear message otherwise.
function check(module, source) {
  const problems = [];
  if (!module || typeof module !== 'object') problems.push('its default export is not an object');
  else {
    if (typeof module.name !== 'string' || !module.name) problems.push('no `name`');
    if (typeof module.mount !== 'function') problems.push('no `mount(element, api)`');
    for (const h of ['onReportOpened', 'onSelect', 'onValueMode'])
      if (h in module && typeof module[h] !== 'function') problems.push(`\`${h}\` is not a function`);
  }
  if (problems.length) throw new Error(`plugin ${source}: ${problems.join(', ')}`);
}

export function register(module, source) {
  check(module, source);
  const id = `plugin-${plugins.length}`;
  const element = el('div', { className: 'tab', id: `tab-${id}`, hidden: true });
  const button = el('button', { role: 'tab', title: module.help || '', 'aria-selected': 'false', dataset: { tab: module.name, source } }, module.name);
  const plugin = { id, module, name: module.name, element, button, mounted: false };
  button.addEventListener('click', () => show(plugin));
  $('tabs').insertBefore(button, $('scale'));
  $('bottom').append(element);
  plugins.push(plugin);
  if (state.tree) call(plugin, 'onReportOpened', state.report);
  return plugin;
}

export function show(plugin) {
  // The tab hidden drops what its last selection still waits for (a flame graph of 100,000
  // call paths: 2.8 MB of values to parse and lay out during the next click); shown again, it
  // is told the selection anew.
  if (shown && shown !== plugin) ticket(`${shown.id} onSelect`);
  shown = plugin;
  for (const p of plugins) { p.button.setAttribute('aria-selected', String(p === plugin)); p.element.hidden = p !== plugin; }
  if (!plugin.mounted) { plugin.mounted = true; call(plugin, 'mount', plugin.element); }
  if (state.tree) { call(plugin, 'onValueMode', { ...state.modes }); call(plugin, 'onSelect', selection()); }
}

export const showFirst = () => plugins.length && show(plugins[0]);

export function reportOpened() {
  for (const p of plugins) call(p, 'onReportOpened', state.report);
}

hooks.onSelect = () => { if (shown && state.tree) call(shown, 'onSelect', selection()); };
hooks.onModes = () => { if (shown) call(shown, 'onValueMode', { ...state.modes }); };

// The user's plugins (cubekit serve --plugins DIR), each imported as a module; one that fails
// to load is named in the header (#problems, kept) and left out.
export async function loadUserPlugins() {
  const { plugins: list } = await get('plugins');
  for (const p of list) {
    try {
      register((await import(p.url)).default, p.name);
    } catch (e) { $('problems').append(el('span', {}, `${p.name}: ${e.message}`)); }
  }
  activity.last = performance.now();
}
