// The user's derived metrics: CubePL expressions typed in the metric pane, each a new root of
// the metric tree at once (the server evaluates an expression given as `metric`), kept per
// report in the browser (localStorage) and downloadable as a report with them added, as
// cube_derive adds a metric (/api/v1/derived-report).
import { $, el } from './util.js';
import { get } from './requests.js';
import { state, status, addMetricRoot, removeMetricRoot } from './panes.js';

const storageKey = (report) => `cubekit.derived.${report}`;

// The user's metrics of a report: [{name, expression}] (none when storage is unreadable).
export function loadUserMetrics(report) {
  try {
    const list = JSON.parse(localStorage.getItem(storageKey(report)) || '[]');
    return Array.isArray(list) ? list.filter((m) => m && typeof m.name === 'string' && typeof m.expression === 'string') : [];
  } catch (e) { return []; }
}

function storeUserMetrics() {
  try { localStorage.setItem(storageKey(state.report), JSON.stringify(state.userMetrics)); } catch (e) { status(`cannot keep the metrics: ${e.message}`); }
}

// The metric pane's item of a user's metric: its expression is its `uniq_name` (what the API
// is asked with), its name the label.
export const userMetricItem = (u) => ({ id: `user:${u.name}`, uniq_name: u.expression, disp_name: u.name, uom: '', descr: u.expression, user: true });

// Offers the metric names for the word being typed: each option is the whole expression with
// that word completed to `metric::<name>()`, so the browser's list completes it in place.
function offerNames(input) {
  const before = input.value.slice(0, input.selectionStart ?? input.value.length);
  const after = input.value.slice(before.length);
  const word = /(?:metric::)?[A-Za-z_][\w]*$/.exec(before);
  const list = $('derive-names');
  if (!word || !state.tree) { list.replaceChildren(); return; }
  const prefix = word[0].replace(/^metric::/, '');
  const head = before.slice(0, word.index);
  const names = state.tree.metrics.map((m) => m.uniq_name).filter((n) => n.startsWith(prefix)).slice(0, 50);
  list.replaceChildren(...names.map((n) => el('option', { value: `${head}metric::${n}()${after}` })));
}

// Checks the expression with the server (its total over the call tree roots), then adds it.
async function add(name, expression) {
  if (!name || !expression) throw new Error('a derived metric needs a name and an expression');
  const taken = state.tree.metrics.some((m) => m.uniq_name === name || m.disp_name === name) ||
    state.userMetrics.some((u) => u.name === name || u.expression === expression);
  if (taken) throw new Error(`'${name}' or its expression is a metric already`);
  await get('children', { report: state.report, metric: expression });
  const u = { name, expression };
  state.userMetrics.push(u);
  storeUserMetrics();
  addMetricRoot(userMetricItem(u), true, () => removeUserMetric(u));
  updateSaveLink();
}

export function removeUserMetric(u) {
  state.userMetrics = state.userMetrics.filter((x) => x !== u);
  storeUserMetrics();
  removeMetricRoot(u.expression);
  updateSaveLink();
}

// "Save as report": the report with the user's metrics added, as a file.
export function updateSaveLink() {
  const link = $('derive-save');
  const params = new URLSearchParams({ report: state.report });
  for (const u of state.userMetrics) { params.append('name', u.name); params.append('expression', u.expression); }
  link.href = `/api/v1/derived-report?${params}`;
  link.hidden = state.userMetrics.length === 0;
}

export function setUpDerived() {
  const input = $('derive-expression');
  input.addEventListener('input', () => offerNames(input));
  $('derive').addEventListener('submit', (e) => {
    e.preventDefault();
    const name = $('derive-name').value.trim() || `derived ${state.userMetrics.length + 1}`;
    add(name, input.value.trim()).then(() => { input.value = ''; $('derive-name').value = ''; status(''); })
      .catch((err) => status(`derived metric: ${err.message}`));
  });
}

