// Browser test of the call graph tab (plugins/callgraph.js): every drawn region's value is its
// exclusive time summed over its call paths, every drawn edge's the inclusive time of the call
// paths where the caller calls the callee, both computed here from the API's values; a click on
// a node selects the region's call path of largest inclusive time. Called from viewer_test.js.
'use strict';
const path = require('path');
const assert = require('assert');
const { api, apiValues } = require('./support');

const SUMMARY = 'cubelib/examples/summary.cubex';
const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

async function callGraph(ctx) {
  const page = await ctx.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${ctx.url}?report=${encodeURIComponent(SUMMARY)}`);
  await page.evaluate(() => window.cubekitViewer.ready);
  await page.waitForSelector('#calls li .value[data-value]:not([data-value=""])');
  await page.click('#tabs button[data-source=callgraph]');
  await page.waitForSelector('#callgraph g.node');

  const calls = (await api(ctx.url, 'tree', { report: SUMMARY, parts: 'calls' })).calls;
  const incl = await apiValues(ctx.url, { report: SUMMARY, metric: 'time', calltree: 'incl' });
  const excl = await apiValues(ctx.url, { report: SUMMARY, metric: 'time', calltree: 'excl' });
  const byId = new Map(calls.map((c) => [c.id, c]));
  const regionExcl = new Map();
  const edgeIncl = new Map();
  for (const c of calls) {
    regionExcl.set(c.name, (regionExcl.get(c.name) || 0) + excl.get(c.id));
    if (c.parent === null) continue;
    const key = `${byId.get(c.parent).name} ${c.name}`;
    edgeIncl.set(key, (edgeIncl.get(key) || 0) + incl.get(c.id));
  }
  const nodes = await page.$$eval('#callgraph g.node', (gs) => gs.map((g) => ({ region: g.dataset.region, value: Number(g.dataset.value) })));
  assert.strictEqual(nodes.length, Math.min(50, regionExcl.size), 'regions drawn');
  for (const n of nodes) assert.ok(close(n.value, regionExcl.get(n.region)), `region ${n.region}: ${n.value} vs ${regionExcl.get(n.region)}`);
  const edges = await page.$$eval('#callgraph path.edge', (ps) => ps.map((p) => ({ from: p.dataset.from, to: p.dataset.to, value: Number(p.dataset.value) })));
  assert.ok(edges.length > 10, 'calls drawn');
  for (const e of edges) assert.ok(close(e.value, edgeIncl.get(`${e.from} ${e.to}`)), `call ${e.from} → ${e.to}`);

  // The region of largest exclusive time: a click selects its call path of largest inclusive time.
  const hottest = [...regionExcl].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
  const target = calls.filter((c) => c.name === hottest).reduce((a, b) => (incl.get(b.id) > incl.get(a.id) ? b : a));
  await page.$eval(`#callgraph g.node[data-region="${hottest}"]`, (g) => g.dispatchEvent(new MouseEvent('click', { bubbles: true })));
  await page.waitForFunction((id) => window.cubekitViewer.state.cnode === id, target.id, { timeout: 5000 });
  await page.waitForSelector(`#callgraph g.node.selected[data-region="${hottest}"]`);
  await page.screenshot({ path: path.join(ctx.shots, '21-callgraph.png') });
  assert.deepStrictEqual(errors, []);
  await page.close();
}

module.exports = { callGraph };
