// Browser test of the user's derived metrics (core/derived.js): names offered while typing, the
// new metric's numbers against those computed here from the API's base metrics, kept across a
// reload, and "save as report" downloading a report that holds the metric with the same numbers
// (opened by a second server). Called from viewer_test.js.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const assert = require('assert');
const { startServer, api, apiValues, openPage } = require('./support');

const SUMMARY = 'cubelib/examples/summary.cubex';
const NAME = 'time_per_visit';
const EXPRESSION = 'metric::time()/metric::visits()';

const openSummary = (ctx) => openPage(ctx, ctx.url, SUMMARY);

const close = (a, b) => Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));

// time / visits per call path, from the API's values of the two base metrics.
async function expectedRatios(url, calltree) {
  const time = await apiValues(url, { report: SUMMARY, metric: 'time', calltree });
  const visits = await apiValues(url, { report: SUMMARY, metric: 'visits', calltree });
  return new Map([...time].filter(([id]) => visits.get(id) > 0).map(([id, t]) => [id, t / visits.get(id)]));
}

// The call pane's visible rows that have a ratio, checked against it; returns how many.
async function checkCallPane(page, incl, excl) {
  const rows = await page.$$eval('#calls li', (lis) => lis.filter((li) => li.offsetParent).map((li) => ({
    id: li._node.c.id, expanded: li._node.expanded, value: Number(li.querySelector('.value').dataset.value) })));
  let checked = 0;
  for (const r of rows) {
    const want = (r.expanded ? excl : incl).get(r.id);
    if (want === undefined) continue;
    assert.ok(close(r.value, want), `call path ${r.id}: ${r.value} shown, time/visits = ${want}`);
    checked += 1;
  }
  return checked;
}

async function derivedMetrics(ctx) {
  let page = await openSummary(ctx);
  // Typing offers the metric tree's names, completed in place.
  await page.fill('#derive-expression', 'metric::time()/metric::vi');
  await page.waitForSelector('#derive-names option[value="metric::time()/metric::visits()"]', { state: 'attached' });
  await page.fill('#derive-name', NAME);
  await page.fill('#derive-expression', EXPRESSION);
  await page.click('#derive button[type=submit]');
  // Added, selected, and the call pane painted with its values at once.
  await page.waitForFunction((x) => window.cubekitViewer.state.metric === x, EXPRESSION);
  await page.waitForFunction(() => document.querySelector('#calls-unit').textContent !== '' &&
    document.querySelector('#call-caption').textContent.startsWith('(time_per_visit'));
  const incl = await expectedRatios(ctx.url, 'incl');
  const excl = await expectedRatios(ctx.url, 'excl');
  await page.waitForFunction(() => [...document.querySelectorAll('#calls li .value')].filter((v) => v.offsetParent).every((v) => (v.dataset.value || '') !== ''));
  assert.ok(await checkCallPane(page, incl, excl) >= 2, 'call paths with visits checked');
  // Its total in the metric pane: the sum over the call tree's roots.
  const roots = (await api(ctx.url, 'tree', { report: SUMMARY, parts: 'calls' })).calls.filter((c) => c.parent === null);
  const total = roots.reduce((s, c) => s + incl.get(c.id), 0);
  const row = `#metrics > li.user-metric`;
  // Painted: the row has its value (a row not yet painted has no data-value at all).
  await page.waitForFunction((sel) => (document.querySelector(`${sel} .value`).dataset.value || '') !== '', row);
  assert.strictEqual(await page.textContent(`${row} .name`), NAME);
  const shown = Number(await page.$eval(`${row} .value`, (v) => v.dataset.value));
  assert.ok(close(shown, total), `metric pane total: ${shown} shown, ${total} over the roots`);
  await page.screenshot({ path: path.join(ctx.shots, '20-derived.png') });

  // Kept in the browser: after a reload it is there again.
  await page.reload();
  await page.evaluate(() => window.cubekitViewer.ready);
  await page.waitForSelector(`${row} .name >> text=${NAME}`);
  await savedReport(ctx, page, incl);

  // Removed: gone from the pane, and after a reload too.
  await page.click(`${row} .remove`);
  assert.strictEqual(await page.$$eval(row, (l) => l.length), 0);
  assert.ok(await page.isHidden('#derive-save'));
  await page.reload();
  await page.evaluate(() => window.cubekitViewer.ready);
  await page.waitForSelector('#metrics > li');
  assert.strictEqual(await page.$$eval(row, (l) => l.length), 0);
  assert.deepStrictEqual(page.errors, []);
  await page.close();
}

// "Save as report": the download holds the metric (a derived metric of the report), and a
// second server's values of it equal time / visits.
async function savedReport(ctx, page, incl) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'cubekit-derived-'));
  let server = null;
  try {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#derive-save')]);
    assert.strictEqual(download.suggestedFilename(), 'summary-derived.cubex');
    await download.saveAs(path.join(folder, download.suggestedFilename()));
    await download.delete();
    server = await startServer(ctx.cubekit, folder);
    const metrics = (await api(server.url, 'tree', { report: 'summary-derived.cubex', parts: 'metrics' })).metrics;
    const added = metrics.find((m) => m.uniq_name === NAME);
    assert.ok(added, 'the saved report holds the derived metric');
    assert.strictEqual(added.expression, EXPRESSION);
    assert.ok(metrics.some((m) => m.uniq_name === 'time') && metrics.some((m) => m.uniq_name === 'visits'));
    const saved = await apiValues(server.url, { report: 'summary-derived.cubex', metric: NAME, calltree: 'incl' });
    for (const [id, want] of incl) assert.ok(close(saved.get(id), want), `saved report, call path ${id}`);
  } finally {
    if (server) server.proc.kill('SIGTERM');
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

module.exports = { derivedMetrics };
