// Browser test of the Scaling tab (plugins/scaling.js) on generated series whose laws are known
// by construction (`cubekit generate --series`): with no noise the formula shown is the law and
// the one `cubekit model` prints, the plotted points and the model's values at them are the law
// computed here; with noise, the points' mean, median, minimum and maximum are those of the
// values the series' reports store (asked of /values report by report), also with another
// measure (the formula then `cubekit model --measure median`'s); log axes space the points
// evenly; the call tree's marks give each call path's growth and its value at a point typed
// (`cubekit model --predict`'s); a call path refitted with exponents that include the law's
// (outside Extra-P's hypotheses) gets the law, as `cubekit model --exponents` does; a series
// opened as one item of the report list shows `cubekit model`'s model; a series of two
// parameters is plotted along either with the other fixed, its points and the model's values
// there the law computed here, its marks at a point of both parameters `cubekit model
// --predict`'s, its refit `cubekit model --exponents`'s. Called from viewer_test.js.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const assert = require('assert');
const { startServer, api, apiValues, openPage } = require('./support');

const POINTS = [2, 4, 8, 16, 32];
const solveLaw = (p) => 2 + 0.5 * p ** 1.5;
const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

function run(cubekit, args) {
  const r = spawnSync(cubekit, args, { encoding: 'utf8' });
  assert.strictEqual(r.status, 0, `cubekit ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

// `cubekit model ARGS -s json SERIES`'s model of `callpath` (main/solve by default),
// inclusive (the flavour of a collapsed call path, as the tab asks).
function printedSolve(cubekit, series, args = [], callpath = 'main/solve') {
  const models = JSON.parse(run(cubekit, ['model', ...args, '-s', 'json', series]));
  return models.find((m) => m.callpath.join('/') === callpath && m.flavour === 'incl');
}

async function points(page) {
  return page.$$eval('#scaling-plot circle.point', (cs) => cs.map((c) => ({ p: Number(c.dataset.p), value: Number(c.dataset.value),
    median: Number(c.dataset.median), minimum: Number(c.dataset.minimum), maximum: Number(c.dataset.maximum), cx: Number(c.getAttribute('cx')) })));
}

async function showSolve(page) {
  await page.click('#calls li .name >> text=solve');
  await page.click('#tabs button[data-source=scaling]');
  await page.waitForFunction(() => document.getElementById('scaling-formula').dataset.callpath === 'main/solve');
}

const markOf = (page, name) => page.$$eval('#calls li', (lis, n) => {
  const li = lis.find((x) => x._node.c.name === n);
  return li ? li.querySelector(':scope > .row > .mark').textContent : null;
}, name);
// Marks are painted as the tree's rows are (re)drawn: wait for a mark to read `text`, then
// compare it, so that a row drawn a moment later is not read while still blank.
async function expectMark(page, name, text) {
  await page.waitForFunction(([n, t]) => {
    const li = [...document.querySelectorAll('#calls li')].find((x) => x._node.c.name === n);
    return li && li.querySelector(':scope > .row > .mark').textContent === t;
  }, [name, text], { timeout: 10000 }).catch(() => {});
  assert.strictEqual(await markOf(page, name), text, `mark of ${name}`);
}

async function exactSeries(ctx, url, root, cubekit) {
  const page = await openPage(ctx, url, 'exact/exp.p2.r1/profile.cubex');
  await showSolve(page);
  const printed = printedSolve(cubekit, path.join(root, 'exact'));
  assert.strictEqual(printed.model, '2 + 0.5 * p^(3/2)', 'the law comes back');
  assert.strictEqual(await page.textContent('#scaling-formula'), printed.model);
  const shown = await points(page);
  assert.deepStrictEqual(shown.map((x) => x.p), POINTS);
  for (const x of shown)
    for (const v of [x.value, x.median, x.minimum, x.maximum]) assert.ok(close(v, solveLaw(x.p)), `p=${x.p}: ${v} vs ${solveLaw(x.p)}`);
  const fits = await page.$$eval('#scaling-plot circle.fit', (cs) => cs.map((c) => [Number(c.dataset.p), Number(c.dataset.value)]));
  assert.strictEqual(fits.length, POINTS.length);
  for (const [p, v] of fits) assert.ok(close(v, solveLaw(p)), `model at p=${p}`);
  assert.ok(await page.$eval('#scaling-plot path.model', (e) => e.getAttribute('d').split('L').length) > 10, 'curve drawn');
  // Linear axes: the points' x as far apart as their p; log axes: evenly (p doubles).
  const gaps = (xs) => xs.slice(1).map((x, i) => x.cx - xs[i].cx);
  const linear = gaps(shown);
  for (let i = 1; i < linear.length; ++i) assert.ok(Math.abs(linear[i] / linear[0] - (POINTS[i + 1] - POINTS[i]) / (POINTS[1] - POINTS[0])) < 0.02, `linear gap ${i}`);
  await page.selectOption('#scaling-axes', 'log');
  await page.waitForSelector('#scaling-plot[data-axes=log]');
  const logGaps = gaps(await points(page));
  for (const g of logGaps) assert.ok(Math.abs(g - logGaps[0]) < 0.2, `log gaps ${logGaps}`);
  await page.screenshot({ path: path.join(ctx.shots, '24-scaling.png') });

  // HotspotHighlighting: each call path's leading term, then its value at p=64.
  await page.selectOption('#scaling-hotspots', 'growth');
  await expectMark(page, 'solve', 'p^1.5');
  await expectMark(page, 'io', 'log2(p)');
  const predicted = JSON.parse(run(cubekit, ['model', '--predict', 'p=64', '-s', 'json', path.join(root, 'exact')]));
  const at64 = (name) => predicted.find((m) => m.callpath.at(-1) === name && m.flavour === 'incl').predictions[0].value;
  await page.selectOption('#scaling-hotspots', 'value');
  await page.fill('#scaling-point', 'p=64');
  await page.press('#scaling-point', 'Enter');
  const fmt = (v) => page.evaluate(async (x) => (await import('/core/util.js')).fmt(x), v);
  const solve64 = await fmt(at64('solve'));
  await expectMark(page, 'solve', solve64);
  await expectMark(page, 'io', await fmt(at64('io')));
  await page.screenshot({ path: path.join(ctx.shots, '25-scaling-hotspots.png') });

  // PerformanceModeling: p^4 lies outside Extra-P's hypotheses (exponents up to 3); refitted
  // with exponents that include 4, the model is the law; back to Extra-P's, the first model.
  await page.click('#calls li .name >> text=big');
  await page.waitForFunction(() => document.getElementById('scaling-formula').dataset.callpath === 'main/big');
  const extrap = await page.textContent('#scaling-formula');
  assert.ok(!extrap.includes('p^(4)'), extrap);
  await page.fill('#scaling-exponents', '1, 2, 4');
  await page.fill('#scaling-logs', '0,1');
  await page.click('#scaling-refit');
  await page.waitForFunction(() => document.getElementById('scaling-quality').textContent.includes('refitted with exponents 1,2,4 and log exponents 0,1'));
  assert.ok((await page.textContent('#scaling-formula')).includes(' * p^(4)'), await page.textContent('#scaling-formula'));
  assert.strictEqual(await page.textContent('#scaling-formula'),
    printedSolve(cubekit, path.join(root, 'exact'), ['--exponents', '1,2,4', '--log-exponents', '0,1'], 'main/big').model);
  const refitted = await page.$$eval('#scaling-plot circle.fit', (cs) => cs.map((c) => [Number(c.dataset.p), Number(c.dataset.value)]));
  for (const [p, v] of refitted) assert.ok(close(v, 1 + 0.25 * p ** 4), `refitted model at p=${p}: ${v}`);
  await page.click('#scaling-reset');
  await page.waitForFunction(() => document.getElementById('scaling-quality').textContent.includes('Extra-P\'s hypotheses'));
  assert.strictEqual(await page.textContent('#scaling-formula'), extrap);
  assert.strictEqual(extrap, printedSolve(cubekit, path.join(root, 'exact'), [], 'main/big').model);
  assert.deepStrictEqual(page.errors, []);
  await page.close();
}

// The stored time of main/solve in every report of the noisy series at p, sorted.
async function storedSolve(url, p) {
  const out = [];
  for (const r of [1, 2, 3]) {
    const report = `noisy/exp.p${p}.r${r}/profile.cubex`;
    const solve = (await api(url, 'tree', { report, parts: 'calls' })).calls.find((c) => c.name === 'solve');
    out.push((await apiValues(url, { report, metric: 'time', calltree: 'incl' })).get(solve.id));
  }
  return out.sort((a, b) => a - b);
}

async function noisySeries(ctx, url, root, cubekit) {
  // Another report than the series' first: the call path is named by its id in this one.
  const page = await openPage(ctx, url, 'noisy/exp.p8.r2/profile.cubex');
  await showSolve(page);
  const stored = new Map();
  for (const p of POINTS) stored.set(p, await storedSolve(url, p));
  let shown = await points(page);
  assert.deepStrictEqual(shown.map((x) => x.p), POINTS);
  for (const x of shown) {
    const [lo, mid, hi] = stored.get(x.p);
    assert.deepStrictEqual([x.minimum, x.median, x.maximum], [lo, mid, hi], `p=${x.p}`);
    assert.ok(close(x.value, (lo + mid + hi) / 3), `mean at p=${x.p}`);
  }
  assert.strictEqual(await page.textContent('#scaling-formula'), printedSolve(cubekit, path.join(root, 'noisy')).model);
  await page.selectOption('#scaling-measure', 'median');
  await page.waitForFunction(() => document.getElementById('scaling-quality').textContent.includes('median of the samples'));
  shown = await points(page);
  for (const x of shown) assert.strictEqual(x.value, stored.get(x.p)[1], `median at p=${x.p}`);
  assert.strictEqual(await page.textContent('#scaling-formula'), printedSolve(cubekit, path.join(root, 'noisy'), ['--measure', 'median']).model);
  // A report of no series: the tab says so.
  await page.selectOption('#report', 'plain.cubex');
  await page.waitForFunction(() => document.getElementById('scaling-message').textContent.includes('is not an experiment of a series'));
  assert.deepStrictEqual(page.errors, []);
  await page.close();
}

// A series opened as one item of the report list: listed once per series folder (with its
// points and reports), its first report (in folder-name order) in the panes, and the Scaling
// tab's model of the selected call path the one `cubekit model` prints for the folder.
async function seriesItem(ctx, url, root, cubekit) {
  const page = await openPage(ctx, url, 'plain.cubex');
  const items = await page.$$eval('#report option', (os) => os.filter((o) => o.value.endsWith('/')).map((o) => [o.value, o.textContent]));
  assert.deepStrictEqual(items.map((i) => i[0]), ['exact/', 'grid/', 'noisy/']);
  assert.ok(items[2][1].includes('5 points of p, 15 reports'), items[2][1]);
  const first = (await api(url, 'reports')).reports.map((r) => r.path).filter((r) => r.startsWith('noisy/')).sort()[0];
  await page.selectOption('#report', 'noisy/');
  await page.waitForFunction((f) => window.cubekitViewer.state.report === f && document.title.endsWith('(series)'), first);
  await page.waitForSelector('#calls li .value[data-value]:not([data-value=""])');
  await showSolve(page);
  assert.strictEqual(await page.textContent('#scaling-formula'), printedSolve(cubekit, path.join(root, 'noisy')).model);
  assert.deepStrictEqual((await points(page)).map((x) => x.p), POINTS);
  assert.deepStrictEqual(page.errors, []);
  await page.close();
}

// The grid of the two-parameter series and its law (main/solve, no noise).
const GRID = { p: [2, 4, 8, 16], n: [10, 20, 40] };
const gridLaw = ({ p, n }) => 1 + 0.5 * p * n;

// The plot's points and the model's hollow circles: [{p (the plotted parameter's value),
// coordinates, value}], and what the plot says it shows.
async function plotted(page) {
  const read = (selector) => page.$$eval(selector, (cs) => cs.map((c) => ({ p: Number(c.dataset.p),
    coordinates: JSON.parse(c.dataset.coordinates), value: Number(c.dataset.value) })));
  const svg = await page.$eval('#scaling-plot', (e) => ({ along: e.dataset.along, fixed: JSON.parse(e.dataset.fixed),
    label: e.querySelector('text.label').textContent }));
  return { ...svg, points: await read('#scaling-plot circle.point'), fits: await read('#scaling-plot circle.fit') };
}

// The plot along `along` with the other parameter at `fixed`: the measured values there, the
// model's values at them and the tooltips naming both coordinates.
async function expectAlong(page, along, fixed) {
  const shown = await plotted(page);
  assert.strictEqual(shown.along, along);
  assert.strictEqual(shown.label, along, 'x-axis label');
  assert.deepStrictEqual(shown.fixed, fixed);
  const expected = GRID[along].map((v) => ({ ...fixed, [along]: v }));
  for (const kind of ['points', 'fits']) {
    assert.deepStrictEqual(shown[kind].map((x) => x.p), GRID[along], `${kind} along ${along}`);
    shown[kind].forEach((x, i) => {
      assert.deepStrictEqual(x.coordinates, { p: expected[i].p, n: expected[i].n });
      assert.ok(close(x.value, gridLaw(expected[i])), `${kind} at ${JSON.stringify(expected[i])}: ${x.value} vs ${gridLaw(expected[i])}`);
    });
  }
  const title = await page.$eval('#scaling-plot circle.point title', (t) => t.textContent);
  assert.ok(title.startsWith(`p = ${expected[0].p}, n = ${expected[0].n}: `), title);
}

async function twoParameterSeries(ctx, url, root, cubekit) {
  const page = await openPage(ctx, url, 'grid/exp.p2n10.r1/profile.cubex');
  await showSolve(page);
  const printed = printedSolve(cubekit, path.join(root, 'grid'));
  assert.strictEqual(await page.textContent('#scaling-formula'), printed.model);
  // Along p (the first parameter) with n at its smallest value; then n fixed at 40.
  assert.deepStrictEqual(await page.$$eval('#scaling-parameter option', (os) => os.map((o) => o.value)), ['p', 'n']);
  await expectAlong(page, 'p', { n: 10 });
  await page.selectOption('#scaling-fixed-n', '40');
  await page.waitForFunction(() => document.getElementById('scaling-plot').dataset.fixed === '{"n":40}');
  await expectAlong(page, 'p', { n: 40 });
  // Along n, p fixed: at its smallest, then at 8.
  await page.selectOption('#scaling-parameter', 'n');
  await page.waitForFunction(() => document.getElementById('scaling-plot').dataset.along === 'n');
  assert.strictEqual(await page.$('#scaling-fixed-n'), null);
  assert.deepStrictEqual(await page.$$eval('#scaling-fixed-p option', (os) => os.map((o) => Number(o.value))), GRID.p);
  await expectAlong(page, 'n', { p: 2 });
  await page.selectOption('#scaling-fixed-p', '8');
  await page.waitForFunction(() => document.getElementById('scaling-plot').dataset.fixed === '{"p":8}');
  await expectAlong(page, 'n', { p: 8 });
  await page.selectOption('#scaling-axes', 'log');
  await page.waitForSelector('#scaling-plot[data-axes=log]');
  await expectAlong(page, 'n', { p: 8 });
  await page.screenshot({ path: path.join(ctx.shots, '26-scaling-two-parameters.png') });

  // HotspotHighlighting: the leading term p·n; the value at p=64,n=80 as `cubekit model
  // --predict p=64,n=80`; a point without n gets a message naming n.
  await page.selectOption('#scaling-hotspots', 'growth');
  await expectMark(page, 'solve', 'p^1·n^1');
  const predicted = JSON.parse(run(cubekit, ['model', '--predict', 'p=64,n=80', '-s', 'json', path.join(root, 'grid')]));
  const at = (name) => predicted.find((m) => m.callpath.at(-1) === name && m.flavour === 'incl').predictions[0];
  assert.deepStrictEqual(at('solve').point, { p: 64, n: 80 });
  assert.ok(close(at('solve').value, gridLaw({ p: 64, n: 80 })), 'the prediction is the law');
  const fmt = (v) => page.evaluate(async (x) => (await import('/core/util.js')).fmt(x), v);
  await page.selectOption('#scaling-hotspots', 'value');
  await page.fill('#scaling-point', 'p=64');
  await page.press('#scaling-point', 'Enter');
  await page.waitForFunction(() => document.getElementById('scaling-message').textContent.includes('a value of n is missing'));
  await page.fill('#scaling-point', 'p=64,n=80');
  await page.press('#scaling-point', 'Enter');
  await expectMark(page, 'solve', await fmt(at('solve').value));
  await expectMark(page, 'main', await fmt(at('main').value));
  assert.strictEqual(await page.textContent('#scaling-message'), '');
  // PerformanceModeling on two parameters: each parameter's model fitted over the exponents
  // typed, as `cubekit model --exponents 1,2 --log-exponents 0` fits it; the law again.
  await page.fill('#scaling-exponents', '1,2');
  await page.fill('#scaling-logs', '0');
  await page.click('#scaling-refit');
  await page.waitForFunction(() => document.getElementById('scaling-quality').textContent.includes('refitted with exponents 1,2 and log exponents 0'));
  assert.strictEqual(await page.textContent('#scaling-formula'),
    printedSolve(cubekit, path.join(root, 'grid'), ['--exponents', '1,2', '--log-exponents', '0']).model);
  await expectAlong(page, 'n', { p: 8 });
  assert.deepStrictEqual(page.errors, []);
  await page.close();
}

async function scalingTab(ctx) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cubekit-series-'));
  const { cubekit } = ctx;
  let server = null;
  try {
    run(cubekit, ['generate', '--series', path.join(root, 'exact'), '--law', 'main:time=3', '--law', 'main/solve:time=2+0.5*p^1.5',
      '--law', 'main/io:time=4*log2(p)', '--law', 'main/big:time=1+0.25*p^4', '--points', `p=${POINTS.join(',')}`, '--repetitions', '2']);
    run(cubekit, ['generate', '--series', path.join(root, 'noisy'), '--law', 'main:time=3', '--law', 'main/solve:time=1+2*p',
      '--points', `p=${POINTS.join(',')}`, '--repetitions', '3', '--noise', '0.1']);
    run(cubekit, ['generate', '--series', path.join(root, 'grid'), '--law', 'main:time=3', '--law', 'main/solve:time=1+0.5*p*n',
      '--points', `p=${GRID.p.join(',')}`, '--points', `n=${GRID.n.join(',')}`]);
    run(cubekit, ['generate', '--size', '1MB', '--call-paths', '20', '-o', path.join(root, 'plain.cubex')]);
    server = await startServer(cubekit, root);
    await exactSeries(ctx, server.url, root, cubekit);
    await noisySeries(ctx, server.url, root, cubekit);
    await seriesItem(ctx, server.url, root, cubekit);
    await twoParameterSeries(ctx, server.url, root, cubekit);
  } finally {
    if (server) server.proc.kill('SIGTERM');
    fs.rmSync(root, { recursive: true, force: true });
  }
}

module.exports = { scalingTab };
