// Scaling (CubeGUI's ScalingBehaviourExploration, Extra-P's plot): for the selected call path
// and metric of a report that is one experiment of a series (Extra-P's layout:
// SERIES/exp.p2.r1/profile.cubex, docs/models.md), the performance model `cubekit model` fits
// (/api/v1/model) — its formula and quality — and a plot of the measured points (the measure
// chosen, with the median and the spread of the samples) and the model's curve, on linear or
// logarithmic axes; in a series of several parameters along the parameter chosen, the others
// fixed at one of their measured values each (Extra-P's plot of one parameter).
// HotspotHighlighting: the call tree's rows marked with each call path's growth (its leading
// term) or its model's value at a point the user types. PerformanceModeling: the models fitted
// again with another hypothesis space the user types (each parameter's, with several).
import { el, svgEl } from '../core/util.js';
import { isStale } from '../core/requests.js';

const WIDTH = 560, HEIGHT = 230, MARGIN = { left: 70, right: 16, top: 12, bottom: 36 };
const CURVE_SAMPLES = 64;
let ui = null, series = null, last = null, latest = null;  // latest: the api of the last onSelect
// PerformanceModeling: the hypothesis space the user refits with ({exponents, log_exponents} as
// typed, e.g. '1,2,4' and '0,1'), or null for the models as `cubekit model` fits them.
let space = null;
// The plot of a multi-parameter series: the parameter along which it runs and the value each
// other parameter is fixed at ({along: 'n', fixed: {p: 2}}), kept while the report is open.
let view = { along: null, fixed: {} };

// The series a report belongs to: the folder above its experiment folder.
function seriesOf(report) {
  const parts = report.split('/');
  return parts.length >= 3 ? parts.slice(0, -2).join('/') : null;
}

// A model of /model (terms as `cubekit model -s json` prints them) at parameter value(s):
// `at` maps each parameter's name to its value.
export function evaluate(model, at) {
  let sum = model.constant;
  for (const t of model.terms) {
    let v = t.coefficient;
    for (const f of t.factors || [t]) v *= at[f.parameter] ** f.exponent * Math.log2(at[f.parameter]) ** f.log_exponent;
    sum += v;
  }
  return sum;
}

// The leading term of a model: its largest exponent, then log exponent ("p^1.5·log2(p)"); a
// term of several parameters counts by the sum of its factors' ("p·n" grows as p^2).
export function growth(model) {
  const factors = (t) => t.factors || [t];
  const order = (t) => factors(t).reduce((sum, f) => sum + f.exponent + 0.01 * f.log_exponent, 0);
  const lead = model.terms.filter((t) => t.coefficient > 0).sort((a, b) => order(b) - order(a))[0];
  if (!lead) return { text: 'constant', exponent: 0 };
  const parts = [];
  for (const f of factors(lead)) {
    if (f.exponent) parts.push(`${f.parameter}^${Number(f.exponent.toPrecision(4))}`);
    if (f.log_exponent) parts.push(`log2(${f.parameter})${f.log_exponent === 1 ? '' : `^${f.log_exponent}`}`);
  }
  return { text: parts.join('·') || 'constant', exponent: order(lead) };
}

// A linear or logarithmic scale from [lo, hi] onto [a, b].
function scale(lo, hi, a, b, log) {
  const f = log ? Math.log10 : (x) => x;
  const l = f(lo), h = f(hi) === l ? l + 1 : f(hi);
  const map = (x) => a + ((f(x) - l) / (h - l)) * (b - a);
  map.ticks = () => {
    if (log) {
      const out = [];
      for (let e = Math.floor(l); e <= Math.ceil(h); ++e) if (10 ** e >= lo * 0.999 && 10 ** e <= hi * 1.001) out.push(10 ** e);
      return out.length >= 2 ? out : [lo, hi];
    }
    return [0, 1, 2, 3, 4].map((i) => lo + ((hi - lo) * i) / 4);
  };
  return map;
}

// The series' parameters (`parameters`; a server without them names only the first).
const parametersOf = (answer) => answer.parameters || [answer.parameter];
// A point's value of every parameter (`coordinates`; a server without them: the first only).
const coordinatesOf = (answer, point) => point.coordinates || { [answer.parameter]: point.parameter_value };
// "p = 2, n = 10"
const pointName = (at, api) => Object.entries(at).map(([k, v]) => `${k} = ${api.format(v)}`).join(', ');

// The view of `answer`'s parameters: the parameter plotted (the one chosen, else the first) and
// each other one's fixed value (the one chosen if it was measured, else its smallest value).
function viewOf(answer, m) {
  const params = parametersOf(answer);
  const along = params.includes(view.along) ? view.along : params[0];
  const fixed = {};
  for (const q of params.filter((q) => q !== along)) {
    const values = measuredValues(answer, m, q);
    fixed[q] = values.includes(view.fixed[q]) ? view.fixed[q] : values[0];
  }
  return { along, fixed };
}

const measuredValues = (answer, m, q) => [...new Set(m.points.map((p) => coordinatesOf(answer, p)[q]))].sort((a, b) => a - b);

// The controls of a multi-parameter plot: `#scaling-parameter` and a `#scaling-fixed-NAME` per
// other parameter (none for one parameter).
function viewControls(answer, m, shown, api) {
  const params = parametersOf(answer);
  if (params.length < 2) return [];
  const option = (v, text, selected) => { const o = el('option', { value: String(v) }, text); o.selected = selected; return o; };
  const along = el('select', { id: 'scaling-parameter', title: 'the parameter the plot runs along' },
    ...params.map((q) => option(q, `along ${q}`, q === shown.along)));
  along.addEventListener('change', () => { view = { ...shown, along: along.value }; replot(api); });
  const fixers = Object.keys(shown.fixed).map((q) => {
    const select = el('select', { id: `scaling-fixed-${q}`, title: `the value ${q} is fixed at` },
      ...measuredValues(answer, m, q).map((v) => option(v, `${q} = ${api.format(v)}`, v === shown.fixed[q])));
    select.addEventListener('change', () => { view = { along: shown.along, fixed: { ...shown.fixed, [q]: Number(select.value) } }; replot(api); });
    return select;
  });
  return [along, ...fixers];
}

// The last answer's plot and its controls again (axes, plotted parameter or a fixed value changed).
function replot(api) {
  if (!last) return;
  const m = last.answer.models[0];
  const shown = viewOf(last.answer, m);
  ui.view.replaceChildren(...viewControls(last.answer, m, shown, api));
  ui.plot.replaceChildren(plot(last.answer, m, shown, ui.axes.value === 'log', api));
}

// The plot of one model along `shown.along`, the other parameters at `shown.fixed`: the points
// there (measure, median, spread), the model's value at each (hollow) and its curve between the
// smallest and largest value of the plotted parameter.
function plot(answer, m, shown, log, api) {
  const param = shown.along;
  const at = (x) => ({ ...shown.fixed, [param]: x });
  const pts = m.points.filter((p) => Object.entries(shown.fixed).every(([q, v]) => coordinatesOf(answer, p)[q] === v));
  const ps = pts.map((p) => coordinatesOf(answer, p)[param]);
  const [pLo, pHi] = [Math.min(...ps), Math.max(...ps)];
  const samples = [];
  for (let i = 0; i <= CURVE_SAMPLES; ++i) {
    const t = i / CURVE_SAMPLES;
    const p = log ? pLo * (pHi / pLo) ** t : pLo + (pHi - pLo) * t;
    samples.push([p, evaluate(m, at(p))]);
  }
  const ys = [...pts.flatMap((p) => [p.minimum, p.maximum, p.value]), ...samples.map((s) => s[1])].filter(Number.isFinite);
  let [yLo, yHi] = [Math.min(...ys), Math.max(...ys)];
  const logY = log && yLo > 0;
  if (!logY) { yLo = Math.min(0, yLo); yHi = yHi === yLo ? yLo + 1 : yHi; }
  const x = scale(pLo, pHi, MARGIN.left, WIDTH - MARGIN.right, log && pLo > 0);
  const y = scale(yLo, yHi, HEIGHT - MARGIN.bottom, MARGIN.top, logY);
  const svg = svgEl('svg', { id: 'scaling-plot', width: WIDTH, height: HEIGHT, viewBox: `0 0 ${WIDTH} ${HEIGHT}`, 'data-axes': log ? 'log' : 'linear',
    'data-along': param, 'data-fixed': JSON.stringify(shown.fixed) });
  const axis = (x1, y1, x2, y2) => svgEl('line', { x1, y1, x2, y2, class: 'axis', stroke: '#555' });
  svg.append(axis(MARGIN.left, HEIGHT - MARGIN.bottom, WIDTH - MARGIN.right, HEIGHT - MARGIN.bottom), axis(MARGIN.left, MARGIN.top, MARGIN.left, HEIGHT - MARGIN.bottom));
  for (const p of ps) svg.append(svgEl('text', { x: x(p), y: HEIGHT - MARGIN.bottom + 14, 'text-anchor': 'middle', class: 'tick' }, api.format(p)));
  for (const v of y.ticks()) svg.append(svgEl('text', { x: MARGIN.left - 4, y: y(v) + 4, 'text-anchor': 'end', class: 'tick' }, api.format(v)));
  svg.append(svgEl('text', { x: (MARGIN.left + WIDTH) / 2, y: HEIGHT - 4, 'text-anchor': 'middle', class: 'label' }, param));
  const d = samples.filter(([, v]) => Number.isFinite(v) && (!logY || v > 0))
    .map(([p, v], i) => `${i ? 'L' : 'M'}${x(p).toFixed(1)},${y(v).toFixed(1)}`).join('');
  svg.append(svgEl('path', { d, class: 'model', fill: 'none', stroke: '#d7301f' }));
  for (const p of pts) {
    const coordinates = coordinatesOf(answer, p);
    const cx = x(coordinates[param]).toFixed(1);
    const fit = evaluate(m, coordinates);
    const name = pointName(coordinates, api);
    svg.append(svgEl('line', { x1: cx, x2: cx, y1: y(p.minimum), y2: y(p.maximum), class: 'spread', stroke: '#6baed6' }),
      svgEl('line', { x1: cx - 5, x2: Number(cx) + 5, y1: y(p.median), y2: y(p.median), class: 'median', stroke: '#6baed6' }));
    // data-p: the plotted parameter's value; data-coordinates: every parameter's.
    const where = { 'data-p': coordinates[param], 'data-coordinates': JSON.stringify(coordinates) };
    const dot = svgEl('circle', { cx, cy: y(p.value), r: 3.5, class: 'point', ...where, 'data-value': p.value,
      'data-median': p.median, 'data-minimum': p.minimum, 'data-maximum': p.maximum });
    dot.append(svgEl('title', {}, `${name}: ${api.format(p.value)} (median ${api.format(p.median)}, ${api.format(p.minimum)} … ${api.format(p.maximum)})`));
    const fitted = svgEl('circle', { cx, cy: y(fit), r: 5, class: 'fit', fill: 'none', stroke: '#d7301f', ...where, 'data-value': fit });
    fitted.append(svgEl('title', {}, `model at ${name}: ${api.format(fit)}`));
    svg.append(dot, fitted);
  }
  return svg;
}

function query(s, extra = {}) {
  return { series, metric: s.metric, calltree: s.callFlavour, measure: ui.measure.value, scaling: ui.scaling.value, ...(space || {}), ...extra };
}

// The point typed for HotspotHighlighting ("p=1024", "p=1024,n=80": every parameter of the
// series, each once) as {p: 1024, n: 80}, or a message saying what is wrong with it.
export function parsePoint(text, parameters) {
  const how = `type the point as ${parameters.map((q) => `${q}=VALUE`).join(',')}`;
  const at = {};
  for (const item of text.split(',')) {
    const match = /^\s*([A-Za-z_]\w*)\s*=\s*([0-9.eE+-]+)\s*$/.exec(item);
    if (!match || !Number.isFinite(Number(match[2]))) return { message: how };
    if (!parameters.includes(match[1])) return { message: `the series has no parameter ${match[1]}: ${how}` };
    if (match[1] in at) return { message: `${match[1]} is given twice: ${how}` };
    at[match[1]] = Number(match[2]);
  }
  const missing = parameters.filter((q) => !(q in at));
  if (missing.length) return { message: `a value of ${missing.join(' and ')} is missing: ${how}` };
  return { at };
}

// HotspotHighlighting: every call path with a model marked with its growth, or with its value
// at the point typed (e.g. "p=1024", "p=1024,n=80").
async function highlight(s, api) {
  api.clearMarks('calls');
  if (ui.hotspots.value === 'off') return;
  const [calls, answer] = await Promise.all([api.calls(), api.get('model', query(s))]);
  let at = null;
  if (ui.hotspots.value === 'value') {
    const typed = parsePoint(ui.point.value, parametersOf(answer));
    if (typed.message) { ui.message.textContent = typed.message; return; }
    at = typed.at;
  }
  const byPath = new Map(answer.models.map((m) => [m.callpath.join('\u0000'), m]));
  const byId = new Map(calls.map((c) => [c.id, c]));
  const pathOf = (c) => { const names = []; for (let x = c; x; x = x.parent === null ? null : byId.get(x.parent)) names.unshift(x.name); return names.join('\u0000'); };
  for (const c of calls) {
    const m = byPath.get(pathOf(c));
    if (!m) continue;
    const g = growth(m);
    const text = at ? api.format(evaluate(m, at)) : g.text;
    const bucket = g.exponent === 0 ? 0 : g.exponent <= 1 ? 1 : g.exponent <= 2 ? 2 : 3;
    api.mark('calls', c.id, { text, title: m.model, className: `growth-${bucket}` });
  }
}

async function paint(s, api) {
  if (!series) { ui.message.textContent = `${s.report} is not an experiment of a series (SERIES/exp.p2.r1/profile.cubex)`; return; }
  if (!s.metric || s.cnode === null) return;
  ui.message.textContent = '';
  let answer;
  try {
    answer = await api.get('model', query(s, { cnode: s.cnode, report: s.report }));
  } catch (e) {
    if (isStale(e)) throw e;
    ui.formula.textContent = ''; ui.quality.textContent = ''; ui.plot.replaceChildren(); ui.view.replaceChildren();
    ui.message.textContent = e.message;
    return;
  }
  const m = answer.models[0];
  last = { s, answer };
  ui.formula.textContent = m.model;
  ui.formula.dataset.callpath = m.callpath.join('/');
  const hypotheses = answer.exponents ? `refitted with exponents ${answer.exponents} and log exponents ${answer.log_exponents}` : 'Extra-P\'s hypotheses';
  ui.quality.textContent = `${answer.metric} (${answer.calltree}), ${answer.measure} of the samples, ${answer.scaling} scaling, ${hypotheses}: RSS ${api.format(m.rss)}, SMAPE ${api.format(m.smape)}, adjusted R² ${api.format(m.adjusted_r2)}`;
  ui.point.placeholder = parametersOf(answer).map((q, i) => `${q}=${[1024, 80][i] ?? 8}`).join(',');
  replot(api);
  await highlight(s, api);
}

export default {
  name: 'Scaling',
  help: 'The performance model of the selected call path and metric over the series this report belongs to: formula, measured points and the model curve; marks the call tree with each call path\'s growth.',
  mount(element, api) {
    const select = (id, options) => el('select', { id }, ...options.map(([v, t]) => el('option', { value: v }, t)));
    ui = {
      measure: select('scaling-measure', [['mean', 'mean'], ['median', 'median'], ['minimum', 'minimum'], ['maximum', 'maximum']]),
      scaling: select('scaling-scaling', [['weak', 'weak scaling'], ['strong', 'strong scaling']]),
      axes: select('scaling-axes', [['linear', 'linear axes'], ['log', 'logarithmic axes']]),
      hotspots: select('scaling-hotspots', [['off', 'no marks'], ['growth', 'mark growth'], ['value', 'mark value at']]),
      point: el('input', { id: 'scaling-point', placeholder: 'p=1024', size: 10 }),
      formula: el('p', { id: 'scaling-formula', className: 'formula' }),
      quality: el('p', { id: 'scaling-quality', className: 'caption' }),
      message: el('p', { id: 'scaling-message', className: 'caption' }),
      plot: el('div', { className: 'scaling-plot' }),
      view: el('span', { className: 'scaling-view' }),
      exponents: el('input', { id: 'scaling-exponents', placeholder: 'exponents 0,1/2,1,2,3', size: 18 }),
      logs: el('input', { id: 'scaling-logs', placeholder: 'log exponents 0,1,2', size: 14 }),
    };
    const refit = el('button', { id: 'scaling-refit', title: 'fit again with terms p^(i/j)·log2(p)^l of these exponents (for each parameter p)' }, 'Refit');
    const reset = el('button', { id: 'scaling-reset', title: 'the models as cubekit model fits them (Extra-P\'s hypotheses)' }, 'Extra-P\'s hypotheses');
    refit.addEventListener('click', () => { space = { exponents: ui.exponents.value.replace(/\s/g, ''), log_exponents: ui.logs.value.replace(/\s/g, '') || '0' }; again(); });
    reset.addEventListener('click', () => { space = null; again(); });
    // A control changed: the shown selection again, with the last onSelect's api.
    const again = () => { if (latest) paint(latest.selection, latest).catch((e) => { if (!isStale(e)) api.status(e.message); }); };
    for (const c of [ui.measure, ui.scaling, ui.hotspots]) c.addEventListener('change', again);
    ui.point.addEventListener('change', again);
    ui.axes.addEventListener('change', () => replot(api));
    element.append(el('div', { className: 'controls' }, ui.measure, ui.scaling, ui.axes, ui.view, ui.hotspots, ui.point, ui.exponents, ui.logs, refit, reset), ui.formula, ui.quality, ui.message, ui.plot);
  },
  onReportOpened(report, api) {
    series = api.series || seriesOf(report);
    last = null; latest = null; space = null; view = { along: null, fixed: {} };
    api.clearMarks('calls');
    if (ui) { ui.formula.textContent = ''; ui.quality.textContent = ''; ui.message.textContent = ''; ui.plot.replaceChildren(); ui.view.replaceChildren(); }
  },
  onSelect(s, api) { latest = api; return paint(s, api); },
};
